"""The outbox: every notice and its delivery state."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request

from web.api.deps import ERRORS, User, require_read
from web.api.shapes import page_json
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries import readmodel

router = APIRouter()


@router.get("/outbox", responses=ERRORS)
def outbox(
    request: Request, page: int = Query(1, ge=1), state: str = "", user: CurrentUser = User
) -> dict[str, Any]:
    require_read(user)
    with ctx_of(request).sessions() as db:
        result = readmodel.outbox(db, page, state)
    items = [
        {**n, "created_at": str(n["created_at"]), "delivered_at": str(n["delivered_at"] or "")}
        for n in result.items
    ]
    return page_json(result, items)
