"""Permit clocks: list and read them (the read model), open one, record an event. Each
write calls `actions.permit_clocks` (actions/permit_clocks.py), whose method starts the
PermitClockWorkflow or sends its `record_event` update."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from actions.permit_clock_requests import OpenPermitClock, RebasePermitClock, RecordPermitEvent
from models.schema import PermitClockRow
from rules.access import require
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.deps import principal_in_city
from web.queries.permit_clocks import permit_clock_page

router = APIRouter()


class EventBody(BaseModel):
    type: str = Field(..., examples=["inspection"])
    date: str = Field(..., examples=["2026-11-20"])
    note: str = ""
    items: list[dict[str, Any]] | None = None
    outcome: str | None = None
    document: str | None = None
    days: int | None = None
    months: int | None = None
    reason: str | None = None
    until: str | None = None
    result: str | None = None
    qualifying: bool | None = None
    units_change_pct: float | None = None
    area_change_pct: float | None = None
    citation: str | None = Field(
        None, description="a statutory_extension's statute", examples=["Gov. Code 65914.4"]
    )

    def fields(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"type", "date", "note"}, exclude_none=True)
        return data


class OpenPermitClockBody(BaseModel):
    clock_id: str = Field(..., examples=["BP-2026-0142"])
    rule: str = Field(..., examples=["building_permit_expiry"])
    jurisdiction: str = Field("", description="default: the deployment's jurisdiction")
    events: list[dict[str, Any]]
    facts: dict[str, Any] = Field(default_factory=dict)
    title: str = ""
    site_address: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    staff_email: str = ""
    companion_id: str = ""
    reminder_offsets: list[int] | None = None


@router.get("/permits")
def api_permits(request: Request, user: CurrentUser = User) -> list[dict[str, Any]]:
    require(user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        rows = db.scalars(
            select(PermitClockRow).order_by(
                PermitClockRow.next_deadline.asc().nulls_last(), PermitClockRow.clock_id
            )
        )
        return [_row_json(row) for row in rows]


def _row_json(row: PermitClockRow) -> dict[str, Any]:
    return {
        "clock_id": row.clock_id,
        "rule": row.rule,
        "jurisdiction": row.jurisdiction,
        "title": row.title,
        "status": row.status,
        "conservative_status": row.conservative_status,
        "due_date": row.due_date,
        "conservative_date": row.conservative_date,
        "next_deadline": row.next_deadline,
        "hard_stop": row.hard_stop,
        "consequence": row.consequence,
        "provisional": row.provisional,
        "companion_id": row.companion_id,
        "project_id": row.project_id,
        "condition_number": row.condition_number,
        "escalated": row.escalated,
    }


@router.get("/permits/{clock_id}")
def api_permit(request: Request, clock_id: str, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "read")
    page = permit_clock_page(ctx_of(request), clock_id)
    return {
        **_row_json(page["row"]),
        "today": page["clock_today"].isoformat(),
        "clock": page["clock"],
        "events": [
            {
                "event_id": e.event_id,
                **e.payload,
                "recorded_by": e.recorded_by,
                "note": e.note,
            }
            for e in page["events"]
        ],
    }


@router.post("/permits", status_code=201, response_model=None)
async def api_open(request: Request, body: OpenPermitClockBody, user: CurrentUser = User) -> Any:
    payload = OpenPermitClock(**body.model_dump())
    who = await principal_in_city(request, user, payload.jurisdiction or "")
    summary = await ctx_of(request).actions.permit_clocks.open(who, payload)
    return {"clock_id": summary.info.clock_id, "clock": summary.clock}


class PermitRebaseBody(BaseModel):
    reason: str = Field(..., description="why the clock is rebased (goes into the ledger)")


@router.post("/permits/{clock_id}/rebase", response_model=None)
async def api_rebase(
    request: Request, clock_id: str, body: PermitRebaseBody, user: CurrentUser = User
) -> Any:
    """Apply the current version of the clock's rule to a running clock (administrators;
    the clock keeps the version it was opened under until then)."""
    result = await ctx_of(request).actions.permit_clocks.rebase(
        user.principal, RebasePermitClock(clock_id=clock_id, reason=body.reason)
    )
    return dataclasses.asdict(result)


@router.post("/permits/{clock_id}/events", response_model=None)
async def api_record(
    request: Request, clock_id: str, body: EventBody, user: CurrentUser = User
) -> Any:
    result = await ctx_of(request).actions.permit_clocks.record_event(
        user.principal,
        RecordPermitEvent(
            clock_id=clock_id,
            type=body.type,
            date=body.date,
            fields=body.fields(),
            note=body.note,
        ),
    )
    return dataclasses.asdict(result)


class OwnerBody(BaseModel):
    email: str
    reason: str = ""


@router.post("/permits/{clock_id}/owner")
async def api_reassign(
    request: Request, clock_id: str, body: OwnerBody, user: CurrentUser = User
) -> Any:
    """Hand the clock to another user who can log in (permit.reassign)."""
    result = await ctx_of(request).actions.permit_clocks.reassign(
        user.principal, clock_id, body.email, body.reason
    )
    return dataclasses.asdict(result)
