"""A department's review queue: the conditions waiting for its review."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request

from rules.conditions.lifecycle import DEPARTMENTS
from web.api.deps import ERRORS, User, require_read
from web.api.shapes import page_json
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries import readmodel

router = APIRouter()


@router.get("/queues/{department}", responses=ERRORS)
def queue(
    request: Request, department: str, page: int = Query(1, ge=1), user: CurrentUser = User
) -> dict[str, Any]:
    require_read(user)
    if department not in DEPARTMENTS:
        raise HTTPException(404, f"no department {department!r}")
    with ctx_of(request).sessions() as db:
        result = readmodel.review_queue(db, department, page)
    return page_json(result, result.items)
