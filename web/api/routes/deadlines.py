"""One Deadlines list across shot clocks, permit clocks and project milestones."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from rules.access import require
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries.deadlines import deadlines

router = APIRouter()


@router.get("/deadlines")
def api_deadlines(request: Request, user: CurrentUser = User) -> list[dict[str, Any]]:
    require(user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        return [d.as_json() for d in deadlines(db, ctx.today())]
