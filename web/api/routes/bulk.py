"""Bulk actions on a selection of conditions (actions/bulk.py), as JSON."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of

router = APIRouter()


class BulkBody(BaseModel):
    action: Literal["assign", "route", "not_applicable", "digest"]
    selection: list[str] = Field(
        ..., description="conditions as PROJECT:NUMBER", min_length=1, max_length=200
    )
    reason: str = Field("", max_length=2000, description="recorded for each condition")
    department: str = Field("", max_length=40, description="the department to route to")
    reviewer: str = Field("", max_length=200, description="the reviewer to assign ('': none)")


@router.post("/conditions/bulk")
async def bulk(request: Request, body: BulkBody, user: CurrentUser = User) -> dict[str, Any]:
    """One action over many conditions, each checked and audited on its own: the ones done
    and the ones refused, with the reason."""
    outcome = await ctx_of(request).actions.bulk.run(
        user.principal,
        body.action,
        body.selection,
        {"reason": body.reason, "department": body.department, "reviewer": body.reviewer},
    )
    return {
        "summary": outcome.summary(),
        "done": [{"ref": ref, "result": what} for ref, what in outcome.done],
        "refused": [{"ref": ref, "reason": why} for ref, why in outcome.refused],
    }
