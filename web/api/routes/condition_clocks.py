"""A project's conditions' time limits become its clocks (permit clocks): `actions.
condition_clocks` (actions/condition_clocks.py) opens them."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from actions.condition_clock_requests import OpenConditionClocks
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of

router = APIRouter()


class TimeLimitsBody(BaseModel):
    conditions: list[dict[str, Any]] = Field(
        ...,
        description="conditions with `number` and `time_limits` (docs/resolutions.md, Time limits)",
    )
    anchors: dict[str, str] = Field(default_factory=dict, examples=[{"approval": "2024-02-27"}])


@router.post("/projects/{project_id}/time-limits", response_model=None)
async def api_condition_clocks(
    request: Request, project_id: str, body: TimeLimitsBody, user: CurrentUser = User
) -> dict[str, Any]:
    """The conditions' time limits with a known anchor become clocks of the project."""
    done = await ctx_of(request).actions.condition_clocks.open(
        user.principal,
        OpenConditionClocks(
            project_id=project_id, conditions=body.conditions, anchors=body.anchors
        ),
    )
    return dataclasses.asdict(done)
