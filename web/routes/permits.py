"""Permit clocks: the list, a page to open one, its page with ledger and forms, the
Deadlines list across every kind of clock, and their JSON API. Every write goes through
the permit-clock actions (actions/permit_clocks.py), the same ones the CLI uses."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from sqlalchemy import select

from actions.condition_clocks import OpenConditionClocks
from actions.errors import ActionFailed, bad
from actions.permit_clocks import OpenPermitClock, RecordPermitEvent
from models.schema import Notice, PermitClockRow, PermitEventRow
from rules.access import require
from rules.kernel.jurisdictions import JURISDICTIONS
from rules.permit_clocks import rule_catalog
from web.accounts import CurrentUser
from web.context import ctx_of, redirect_with_flash, render
from web.deadlines import deadlines, permit_deadline
from web.deps import api_user, checked_form, form_dict, staff_session

router = APIRouter()
api = APIRouter(prefix="/api/v1", tags=["api"])
# Who is asking is settled before a body is read: a request without a token or session
# is refused (401) before its body is validated.
API_USER = Depends(api_user)

# Form fields that carry an event's details, with how to read each from the form.
INT_FIELDS = ("days", "months", "units_change_pct", "area_change_pct")
TEXT_FIELDS = ("outcome", "document", "reason", "until", "result")
DONE = ("met", "met_late", "withdrawn")


def rule_choices() -> list[tuple[str, str]]:
    """(rule id, label) for the open form: every rule the core knows."""
    return [(r["id"], f"{r['title']} ({r['citation']})") for r in rule_catalog()]


def _int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise bad(f"{name}: '{value}' is not a whole number") from None


def event_fields(form: dict[str, Any]) -> dict[str, Any]:
    """The event details a form carries (blank fields are left out)."""
    out: dict[str, Any] = {}
    for name in INT_FIELDS:
        value = str(form.get(name) or "").strip()
        if value:
            out[name] = _int(value, name)
    for name in TEXT_FIELDS:
        value = str(form.get(name) or "").strip()
        if value:
            out[name] = value
    if form.get("qualifying"):
        out["qualifying"] = form.get("qualifying") in ("1", "true", "on", "yes")
    items = str(form.get("items") or "").strip()
    if items:
        out["items"] = [
            {"id": str(i + 1), "text": line.strip(), "rule": ""}
            for i, line in enumerate(items.splitlines())
            if line.strip()
        ]
    return out


def facts_of(form: dict[str, Any]) -> dict[str, Any]:
    """`facts` as `name=value` lines: numbers become numbers, true/false booleans."""
    facts: dict[str, Any] = {}
    for line in str(form.get("facts") or "").splitlines():
        if not line.strip():
            continue
        if "=" not in line:
            raise bad(f"facts: '{line.strip()}' is not name=value")
        name, value = (part.strip() for part in line.split("=", 1))
        lowered = value.lower()
        if lowered in ("true", "false"):
            facts[name] = lowered == "true"
        elif value.lstrip("-").isdigit():
            facts[name] = int(value)
        else:
            facts[name] = value
    return facts


def _clock_page(request: Request, clock_id: str) -> dict[str, Any]:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = db.get(PermitClockRow, clock_id)
        if row is None:
            raise HTTPException(404, f"There is no permit clock {clock_id!r}.")
        events = list(
            db.scalars(
                select(PermitEventRow)
                .where(PermitEventRow.clock_id == clock_id)
                .order_by(PermitEventRow.date, PermitEventRow.event_id)
            )
        )
        notices = list(
            db.scalars(
                select(Notice)
                .where(Notice.application_id == clock_id)
                .order_by(Notice.created_at.desc())
            )
        )
        followers = list(
            db.scalars(select(PermitClockRow).where(PermitClockRow.companion_id == clock_id))
        )
        db.expunge_all()
    clock = row.clock or {}
    chained: list[dict[str, Any]] = []
    for one in clock.get("next") or []:
        chained.append(one)
        chained.extend(one.get("next") or [])
    return {
        "row": row,
        "clock": clock,
        "chained": chained,
        "events": events,
        "notices": notices,
        "followers": followers,
        "line": permit_deadline(row, ctx.today(row.jurisdiction)),
        "clock_today": ctx.today(row.jurisdiction),
    }


# -- pages ----------------------------------------------------------------------------------


@router.get("/deadlines", response_class=HTMLResponse)
def deadline_list(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        items = deadlines(db, ctx.today())
    return render(request, "deadlines.html.j2", session=session, items=items)


@router.get("/permits", response_class=HTMLResponse)
def permit_list(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    closed = request.query_params.get("closed") == "1"
    with ctx.sessions() as db:
        query = select(PermitClockRow)
        query = query.where(
            PermitClockRow.status.in_(DONE) if closed else PermitClockRow.status.not_in(DONE)
        )
        rows = list(
            db.scalars(
                query.order_by(
                    PermitClockRow.next_deadline.asc().nulls_last(), PermitClockRow.clock_id
                ).limit(500)
            )
        )
        db.expunge_all()
    today = ctx.today()
    lines = [(row, permit_deadline(row, today)) for row in rows]
    return render(request, "permits.html.j2", session=session, lines=lines, closed=closed)


def _open_form(
    request: Request,
    session: Any,
    values: dict[str, Any] | None = None,
    error: str | None = None,
    status: int = 200,
) -> HTMLResponse:
    ctx = ctx_of(request)
    try:
        defaults = {"jurisdiction": ctx.actions.city().key}
    except ActionFailed:
        defaults = {}
    return render(
        request,
        "permit_open.html.j2",
        status=status,
        session=session,
        flash=("error", error) if error else None,
        values={**defaults, **(values or {})},
        rules=rule_choices(),
        jurisdiction_options=[(key, JURISDICTIONS[key].name) for key in sorted(JURISDICTIONS)],
    )


@router.get("/permits/new", response_class=HTMLResponse)
def open_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "permit.open")
    return _open_form(request, session)


@router.post("/permits/new", response_model=None)
async def open_submit(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    try:
        fields = event_fields(form)
        payload = OpenPermitClock(
            clock_id=form.get("clock_id", "").strip(),
            rule=form.get("rule", "").strip(),
            jurisdiction=form.get("jurisdiction", "").strip(),
            events=[
                {
                    "type": form.get("start_event", "").strip(),
                    "date": form.get("start_date", "").strip(),
                    **fields,
                }
            ],
            facts=facts_of(form),
            title=form.get("title", "").strip(),
            site_address=form.get("site_address", "").strip(),
            applicant_name=form.get("applicant_name", "").strip(),
            applicant_email=form.get("applicant_email", "").strip(),
            companion_id=form.get("companion_id", "").strip(),
        )
        summary = await ctx_of(request).actions.open_permit_clock(session.user.principal, payload)
    except ActionFailed as err:
        return _open_form(request, session, form, err.message, err.status)
    clock_id = summary.info.clock_id
    return redirect_with_flash(
        request,
        f"/permits/{clock_id}",
        "ok",
        f"Opened {clock_id}: due {summary.clock.get('due_date') or '-'} "
        f"(conservative {summary.clock.get('conservative_date') or '-'}).",
    )


@router.get("/permits/{clock_id}", response_class=HTMLResponse)
def permit_page(request: Request, clock_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return render(request, "permit.html.j2", session=session, **_clock_page(request, clock_id))


@router.post("/permits/{clock_id}/events", response_model=None)
async def record_submit(request: Request, clock_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    try:
        result = await ctx_of(request).actions.record_permit_event(
            session.user.principal,
            RecordPermitEvent(
                clock_id=clock_id,
                type=form.get("type", "").strip(),
                date=form.get("date", "").strip() or _clock_today(request, clock_id),
                fields=event_fields(form),
                note=form.get("note", "").strip(),
            ),
        )
    except ActionFailed as err:
        return render(
            request,
            "permit.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Not recorded: {err.message}"),
            **_clock_page(request, clock_id),
        )
    clock = result.clock
    return redirect_with_flash(
        request,
        f"/permits/{clock_id}",
        "ok",
        f"Recorded {form.get('type')}: due {clock.get('due_date') or '-'} "
        f"(conservative {clock.get('conservative_date') or '-'}), {clock.get('status')}.",
    )


def _clock_today(request: Request, clock_id: str) -> str:
    """Today in the clock's jurisdiction (an event's default date)."""
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = db.get(PermitClockRow, clock_id)
        return ctx.today(row.jurisdiction if row is not None else "").isoformat()


# -- JSON API ---------------------------------------------------------------------------------


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

    def fields(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"type", "date", "note"}, exclude_none=True)
        return data


class OpenBody(BaseModel):
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


@api.get("/deadlines")
def api_deadlines(request: Request, user: CurrentUser = API_USER) -> list[dict[str, Any]]:
    require(user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        return [d.as_json() for d in deadlines(db, ctx.today())]


@api.get("/permits")
def api_permits(request: Request, user: CurrentUser = API_USER) -> list[dict[str, Any]]:
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


@api.get("/permits/{clock_id}")
def api_permit(request: Request, clock_id: str, user: CurrentUser = API_USER) -> dict[str, Any]:
    require(user.principal, "read")
    page = _clock_page(request, clock_id)
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


@api.post("/permits", status_code=201, response_model=None)
async def api_open(request: Request, body: OpenBody, user: CurrentUser = API_USER) -> Any:
    summary = await ctx_of(request).actions.open_permit_clock(
        user.principal, OpenPermitClock(**body.model_dump())
    )
    return {"clock_id": summary.info.clock_id, "clock": summary.clock}


@api.post("/permits/{clock_id}/events", response_model=None)
async def api_record(
    request: Request, clock_id: str, body: EventBody, user: CurrentUser = API_USER
) -> Any:
    result = await ctx_of(request).actions.record_permit_event(
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


class TimeLimitsBody(BaseModel):
    conditions: list[dict[str, Any]] = Field(
        ..., description="conditions with `number` and `time_limits` (conditions.md §8)"
    )
    anchors: dict[str, str] = Field(default_factory=dict, examples=[{"approval": "2024-02-27"}])


@api.post("/projects/{project_id}/time-limits", response_model=None)
async def api_condition_clocks(
    request: Request, project_id: str, body: TimeLimitsBody, user: CurrentUser = API_USER
) -> dict[str, Any]:
    """The conditions' time limits with a known anchor become clocks of the project."""
    done = await ctx_of(request).actions.open_condition_clocks(
        user.principal,
        OpenConditionClocks(
            project_id=project_id, conditions=body.conditions, anchors=body.anchors
        ),
    )
    return dataclasses.asdict(done)
