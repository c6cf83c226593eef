"""A wireless application's shot clock: list and read them (the read model), open one,
read its workflow's summary, record its events. Each write calls `actions.shot_clocks`
(actions/shot_clocks.py), whose method sends the ShotClockWorkflow update."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, Field

from actions.shot_clock_requests import (
    AddLocalClosure,
    RebaseShotClock,
    RecordApplicantNotice,
    RecordDecision,
    RecordNonTollingEvent,
    RecordNotice,
    RecordResubmission,
    RecordTollingAgreement,
    RecordWithdrawal,
    ShotClockEvent,
)
from models.shot_clock import ClockUpdateResult
from web.api.deps import ERRORS, User, require_read
from web.api.shapes import page_json
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.deps import principal_in_city
from web.queries import readmodel

router = APIRouter()


class OpenShotClockBody(BaseModel):
    application_id: str = Field(..., examples=["WTF-2026-014"])
    planner_email: str = Field(..., examples=["planner@city.example"])
    category: str | None = Field(None, examples=["macro_collocation"])
    batch: list[str] = Field(default_factory=list, description="an SWF batch: each site's")
    jurisdiction: str = Field("", description="default: the deployment's jurisdiction")
    submitted: str | None = Field(None, description="YYYY-MM-DD; default today in the city")
    pre_application: str | None = None
    site_address: str = ""
    description: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    supervisor_email: str = Field("", description="default: the jurisdiction's")
    attorney_email: str = Field("", description="default: the jurisdiction's")
    reminder_offsets: list[int] | None = Field(None, description="default: the jurisdiction's")


class Dated(BaseModel):
    date: str | None = Field(None, description="YYYY-MM-DD; default today in the city")
    note: str = ""


class Item(BaseModel):
    id: str = Field(..., examples=["A"])
    text: str = Field(..., examples=["RF emissions compliance report"])
    rule: str = Field(..., examples=["CMC 17.44.070(A)"])


class NoticeBody(Dated):
    items: list[Item]


class TollingBody(Dated):
    days: int | None = None
    new_date: str | None = None


class DecisionBody(Dated):
    outcome: Literal["approved", "approved_with_conditions", "denied"]


class KindBody(Dated):
    kind: str = Field(..., description="applicant notice or non-tolling event kind")


class ClosureBody(BaseModel):
    date: str


class RebaseBody(BaseModel):
    reason: str = Field(..., description="why the clock is rebased (goes into the ledger)")
    date: str | None = Field(None, description="the day recorded (default: today)")


@router.get("/applications", responses=ERRORS)
def list_applications(
    request: Request,
    page: int = Query(1, ge=1),
    closed: bool = False,
    full: bool = Query(False, description="also each clock's compute contract"),
    user: CurrentUser = User,
) -> dict[str, Any]:
    require_read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        result = readmodel.clocks(db, ctx.today, page, closed=closed)
        items = [c.to_json() for c in result.items]
        if full:
            for item in items:
                row = readmodel.application(db, item["application_id"])
                item["jurisdiction"] = row.jurisdiction if row else ""
                item["risk_flagged"] = bool(row and row.risk_flagged)
                item["clock"] = row.clock if row else {}
    return page_json(result, items)


@router.get("/applications/{application_id}", responses=ERRORS)
def get_application(request: Request, application_id: str, user: CurrentUser = User) -> Any:
    require_read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = readmodel.application(db, application_id)
        if row is None:
            raise HTTPException(404, f"no application {application_id!r}")
        events = readmodel.clock_events(db, application_id)
    return {
        **readmodel.clock_line(row, ctx.today).to_json(),
        "clock": row.clock,
        "events": [
            {
                "event_id": e.event_id,
                "type": e.type,
                "date": e.date,
                "payload": e.payload,
                "recorded_by": e.recorded_by,
                "note": e.note,
            }
            for e in events
        ],
    }


@router.post("/applications", responses=ERRORS, status_code=201)
async def open_application(request: Request, body: OpenShotClockBody, user: CurrentUser = User):
    """Open a wireless application: its shot clock starts (refused, 400, on bad input)."""
    fields = body.model_dump()
    who = await principal_in_city(request, user, str(fields.get("jurisdiction") or ""))
    summary = await ctx_of(request).actions.shot_clocks.open_from_fields(who, fields)
    return {"application_id": summary.application.application_id, "clock": summary.clock}


@router.get("/applications/{application_id}/summary", responses=ERRORS)
async def application_summary(
    request: Request, application_id: str, user: CurrentUser = User
) -> dict[str, Any]:
    """The clock as its workflow holds it now (application, events, clock contract)."""
    summary = await ctx_of(request).actions.shot_clocks.summary(user.principal, application_id)
    return dataclasses.asdict(summary)


@router.post("/applications/{application_id}/notice", responses=ERRORS)
async def notice(request: Request, application_id: str, body: NoticeBody, user: CurrentUser = User):
    """Record a notice of incompleteness (the letter goes to the applicant)."""
    return await _record(request, user, RecordNotice, application_id, body)


@router.post("/applications/{application_id}/notice/preview", responses=ERRORS)
async def notice_preview(
    request: Request, application_id: str, body: NoticeBody, user: CurrentUser = User
) -> dict[str, Any]:
    """The letter and the new dates, without recording anything; refused like the send."""
    return await ctx_of(request).actions.shot_clocks.preview_notice(
        user.principal, application_id, body.model_dump()
    )


@router.post("/applications/{application_id}/resubmission", responses=ERRORS)
async def resubmission(
    request: Request, application_id: str, body: Dated, user: CurrentUser = User
):
    return await _record(request, user, RecordResubmission, application_id, body)


@router.post("/applications/{application_id}/tolling-agreement", responses=ERRORS)
async def tolling(
    request: Request, application_id: str, body: TollingBody, user: CurrentUser = User
):
    return await _record(request, user, RecordTollingAgreement, application_id, body)


@router.post("/applications/{application_id}/decision", responses=ERRORS)
async def decision(
    request: Request, application_id: str, body: DecisionBody, user: CurrentUser = User
):
    return await _record(request, user, RecordDecision, application_id, body)


@router.post("/applications/{application_id}/withdrawal", responses=ERRORS)
async def withdrawal(request: Request, application_id: str, body: Dated, user: CurrentUser = User):
    return await _record(request, user, RecordWithdrawal, application_id, body)


@router.post("/applications/{application_id}/applicant-notice", responses=ERRORS)
async def applicant_notice(
    request: Request, application_id: str, body: KindBody, user: CurrentUser = User
):
    return await _record(request, user, RecordApplicantNotice, application_id, body)


@router.post("/applications/{application_id}/non-tolling-event", responses=ERRORS)
async def non_tolling(
    request: Request, application_id: str, body: KindBody, user: CurrentUser = User
):
    return await _record(request, user, RecordNonTollingEvent, application_id, body)


@router.post("/applications/{application_id}/closures", responses=ERRORS)
async def closure(
    request: Request, application_id: str, body: ClosureBody, user: CurrentUser = User
):
    return await _record(request, user, AddLocalClosure, application_id, body)


@router.post("/applications/{application_id}/rebase", responses=ERRORS)
async def rebase(request: Request, application_id: str, body: RebaseBody, user: CurrentUser = User):
    """Apply the current rule pack and calendar layers to a running clock (administrator
    only); the ledger records what moved and why (docs/how-dates-are-decided.md, "Frozen
    rules and rebase")."""
    return await _record(request, user, RebaseShotClock, application_id, body)


async def _record(
    request: Request,
    user: CurrentUser,
    kind: type[ShotClockEvent],
    application_id: str,
    body: BaseModel,
) -> dict[str, Any]:
    """Record the event `kind` from the body: actions.shot_clocks checks the role, reads
    the request and sends the workflow update it names."""
    shot_clocks = ctx_of(request).actions.shot_clocks
    result = await shot_clocks.record_from_fields(
        user.principal, kind, application_id, body.model_dump()
    )
    return _event_json(result)


def _event_json(result: ClockUpdateResult) -> dict[str, Any]:
    return {"event_id": result.event_id, "clock": result.clock}


class OwnerBody(BaseModel):
    email: str
    reason: str = ""


@router.post("/applications/{application_id}/owner", responses=ERRORS)
async def reassign(
    request: Request, application_id: str, body: OwnerBody, user: CurrentUser = User
) -> Any:
    """Hand the application to another planner who can log in (clock.reassign)."""
    result = await ctx_of(request).actions.shot_clocks.reassign(
        user.principal, application_id, body.email, body.reason
    )
    return {"event_id": result.event_id, "clock": result.clock}
