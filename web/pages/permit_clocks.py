"""Permit clocks: the list, a page to open one, its page with ledger and forms, the
Deadlines list across every kind of clock, and their JSON API. Every write goes through
the permit-clock actions (actions/permit_clocks.py), the same ones the CLI uses."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select

from actions.errors import ActionFailed, bad
from actions.permit_clock_requests import OpenPermitClock, RecordPermitEvent
from models.schema import PermitClockRow
from rules.access import require
from rules.kernel.citations import citation_title
from rules.permit_clocks import rule_catalog
from rules.permit_clocks.packs import PERMIT_RULES
from web.context import ctx_of, hand_over, redirect_with_flash, render
from web.deps import checked_form, form_dict, principal_in_city, staff_session
from web.queries.deadlines import deadlines, permit_deadline
from web.queries.jurisdictions import jurisdiction_options
from web.queries.permit_clocks import permit_clock_page

router = APIRouter()

# Form fields that carry an event's details, with how to read each from the form.
INT_FIELDS = ("days", "months")
# A project change's size in percent: signed (a reduction is negative), decimals allowed.
PCT_FIELDS = ("units_change_pct", "area_change_pct")
TEXT_FIELDS = ("outcome", "document", "reason", "until", "result", "citation")
DONE = ("met", "met_late", "withdrawn")


def rule_choices() -> list[tuple[str, str]]:
    """(rule id, label) for the open form: every rule the core knows."""
    return [(r["id"], f"{r['title']} ({citation_title(r['citation'])})") for r in rule_catalog()]


def _int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise bad(f"{name}: '{value}' is not a whole number") from None


def _pct(value: str, name: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise bad(f"{name}: '{value}' is not a number (percent; a reduction is negative)") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise bad(f"{name}: '{value}' is not a number (percent; a reduction is negative)")
    return number


def event_fields(form: dict[str, Any]) -> dict[str, Any]:
    """The event details a form carries (blank fields are left out)."""
    out: dict[str, Any] = {}
    for name in INT_FIELDS:
        value = str(form.get(name) or "").strip()
        if value:
            out[name] = _int(value, name)
    for name in PCT_FIELDS:
        value = str(form.get(name) or "").strip()
        if value:
            out[name] = _pct(value, name)
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
    # The rule's own facts, each in its own field (`fact_<name>`), when the form shows them.
    kinds = {f.name: f.kind for f in rule_facts(str(form.get("rule") or ""))}
    for name, kind in kinds.items():
        text = str(form.get(f"fact_{name}") or "").strip()
        if kind == "bool":
            if f"fact_{name}" in form:
                facts[name] = text in ("1", "true", "on", "yes")
        elif text:
            if not text.lstrip("-").isdigit():
                raise bad(f"facts: {name} must be a whole number, got {text!r}")
            facts[name] = int(text)
    return facts


def start_events(rule_id: str) -> list[str]:
    rule = PERMIT_RULES.get(rule_id)
    return list(rule.start.events) if rule is not None else []


def rule_facts(rule_id: str) -> list[Any]:
    """The facts a rule and the rules it chains ask for (pack data), for the open form."""
    out: dict[str, Any] = {}
    todo = [rule_id]
    while todo:
        rule = PERMIT_RULES.get(todo.pop(0))
        if rule is None:
            continue
        for name, fact in rule.facts.items():
            out.setdefault(name, fact)
        todo.extend(chain.rule for chain in rule.next)
    return list(out.values())


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
        rule_facts=rule_facts(str((values or {}).get("rule") or "")),
        start_events=start_events(str((values or {}).get("rule") or "")),
        jurisdiction_options=jurisdiction_options(ctx.actions),
    )


@router.get("/permits/new", response_class=HTMLResponse)
def open_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "permit.open")
    # A rule picked beforehand (`?rule=`): the form asks for its own facts and events.
    chosen = request.query_params.get("rule", "")
    return _open_form(request, session, {"rule": chosen} if chosen in PERMIT_RULES else None)


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
        who = await principal_in_city(request, session.user, payload.jurisdiction or "")
        summary = await ctx_of(request).actions.permit_clocks.open(who, payload)
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
    return render(
        request, "permit.html.j2", session=session, **permit_clock_page(ctx_of(request), clock_id)
    )


@router.post("/permits/{clock_id}/events", response_model=None)
async def record_submit(request: Request, clock_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    try:
        result = await ctx_of(request).actions.permit_clocks.record_event(
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
            **permit_clock_page(ctx_of(request), clock_id),
        )
    clock = result.clock
    return redirect_with_flash(
        request,
        f"/permits/{clock_id}",
        "ok",
        f"Recorded {form.get('type')}: due {clock.get('due_date') or '-'} "
        f"(conservative {clock.get('conservative_date') or '-'}), {clock.get('status')}.",
    )


@router.post("/permits/{clock_id}/owner", response_model=None)
async def reassign_submit(request: Request, clock_id: str) -> Response:
    session = staff_session(request)
    ctx = ctx_of(request)
    return await hand_over(
        request,
        session,
        lambda email, reason: ctx.actions.permit_clocks.reassign(
            session.user.principal, clock_id, email, reason
        ),
        clock_id,
        (f"/permits/{clock_id}", "permit.html.j2", lambda: permit_clock_page(ctx, clock_id)),
    )


def _clock_today(request: Request, clock_id: str) -> str:
    """Today in the clock's jurisdiction (an event's default date)."""
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = db.get(PermitClockRow, clock_id)
        return ctx.today(row.jurisdiction if row is not None else "").isoformat()
