"""Wireless applications: the list, one application's page, its actions and the
incompleteness notice builder."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select

from actions.errors import ActionFailed
from actions.shot_clock_requests import (
    APPLICANT_NOTICE_KINDS,
    NON_TOLLING_KINDS,
    OUTCOMES,
    RecordNotice,
)
from models.schema import Application, ClockEventRow, User
from rules.access import require
from web.auth.accounts import link_state
from web.context import ctx_of, hand_over, redirect_with_flash, render
from web.deps import checked_form, form_dict, principal_in_city, staff_session
from web.queries import readmodel
from web.views.offers import clock_offers
from web.views.present import human_date, outcome_label, tolled_so_far
from web.views.timeline_svg import clock_picture

router = APIRouter()

EVENT_ACTIONS = {
    "resubmission": "clock.resubmission",
    "tolling-agreement": "clock.tolling_agreement",
    "decision": "clock.decision",
    "withdrawal": "clock.withdrawal",
    "applicant-notice": "clock.applicant_notice",
    "non-tolling-event": "clock.non_tolling_event",
    "rebase": "clock.rebase",
}
BLANK_ROWS = 4
# Actions that close the clock for good: the page asks for confirmation first.
CONFIRMED = ("decision", "withdrawal")


@router.get("/applications", response_class=HTMLResponse)
def application_list(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    closed = request.query_params.get("closed") == "1"
    try:
        page = max(1, int(request.query_params.get("page") or 1))
    except ValueError:
        page = 1
    with ctx.sessions() as db:
        clocks = readmodel.clocks(db, ctx.today, page, closed=closed)
    return render(request, "applications.html.j2", session=session, clocks=clocks, closed=closed)


# -- opening an application ---------------------------------------------------------------------

OPEN_FIELDS = (
    "application_id",
    "category",
    "batch",
    "jurisdiction",
    "submitted",
    "pre_application",
    "site_address",
    "description",
    "planner_email",
    "applicant_name",
    "applicant_email",
    "supervisor_email",
    "attorney_email",
    "reminder_offsets",
)


def _open_page(
    request: Request,
    session: Any,
    values: dict[str, str] | None = None,
    flash: tuple[str, str] | None = None,
    status: int = 200,
) -> HTMLResponse:
    from rules.shot_clock.packs import rule_pack
    from web.queries.jurisdictions import jurisdiction_options

    ctx = ctx_of(request)
    city = ctx.actions.city((values or {}).get("jurisdiction", ""))
    defaults = {
        "jurisdiction": city.key,
        "submitted": ctx.today(city.key).isoformat(),
        "planner_email": session.user.email,
        "reminder_offsets": ", ".join(str(d) for d in city.reminder_offsets),
    }
    return render(
        request,
        "application_new.html.j2",
        status=status,
        session=session,
        flash=flash,
        values={**{k: "" for k in OPEN_FIELDS}, **defaults, **(values or {})},
        city=city,
        jurisdiction_options=jurisdiction_options(ctx.actions),
        category_options=[
            (key, f"{c.label} ({c.days} days)")
            for key, c in rule_pack(city.rule_pack).categories.items()
        ],
        jurisdiction_key=city.key,
    )


@router.get("/applications/new", response_class=HTMLResponse)
def open_form(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "clock.open")
    return _open_page(request, session)


@router.post("/applications/new")
async def open_post(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    values = {k: str(form.get(k, "")).strip() for k in OPEN_FIELDS}
    # Opened with the role the person holds in the clock's city.
    who = await principal_in_city(request, session.user, values["jurisdiction"])
    require(who, "clock.open")
    try:
        summary = await ctx_of(request).actions.shot_clocks.open_from_fields(who, dict(values))
    except ActionFailed as err:
        # The refusal in the form's words, with everything typed kept.
        return _open_page(
            request, session, values, flash=("error", f"Refused: {err.message}"), status=err.status
        )
    clock = summary.clock
    app_id = summary.application.application_id
    return redirect_with_flash(
        request,
        f"/applications/{app_id}",
        "ok",
        f"Opened {app_id}: {clock['period_days']} days from {clock['start_date']}; shot clock "
        f"date {clock['shot_clock_date'] or '-'}, conservative date "
        f"{clock['conservative_date'] or '-'}.",
    )


def _application_context(request: Request, application_id: str) -> dict[str, Any]:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = readmodel.application(db, application_id)
        if row is None:
            raise HTTPException(404, f"There is no application {application_id!r}.")
        events = readmodel.clock_events(db, application_id)
        notices = readmodel.notices_for(db, application_id)
        files = readmodel.evidence_files(db, "application", application_id)
        # Whom the application may be handed to: staff who can log in.
        owners = list(
            db.scalars(
                select(User.email)
                .where(User.active.is_(True), User.role != "applicant")
                .order_by(User.email)
                .limit(500)
            )
        )
    today = ctx.today(row.jurisdiction)
    line = readmodel.clock_line(row, today)
    clock = row.clock or {}
    windows = [
        {**w, "days_left": readmodel.days_between(today, w.get("closes"))}
        for w in clock.get("notice_windows") or []
    ]
    links = ctx.accounts.links_for("application", application_id)
    session = getattr(request.state, "session_info", None)
    role = session.user.role if session else ""
    notices_given = [e.date for e in events if e.type == "incomplete_notice"]
    return {
        "owners": owners,
        "picture": clock_picture(
            clock,
            [(e.type, e.date) for e in events],
            row.status,
            today,
            row.judicial_review_deadline,
        ),
        "offers": clock_offers(role, row.status, row.category, row.state),
        "tolled_so_far": tolled_so_far(
            row.tolled_days, row.status, notices_given[-1] if notices_given else None, today
        ),
        "app": row,
        "jurisdiction_key": row.jurisdiction,
        "line": line,
        "clock": clock,
        "events": events,
        "windows": windows,
        "notices": notices,
        "files": files,
        "outstanding": readmodel.outstanding_items(row, events),
        "links": [(link, link_state(link), _link_url(request, link.link_id)) for link in links],
        "outcomes": OUTCOMES,
        "applicant_notice_kinds": APPLICANT_NOTICE_KINDS,
        "non_tolling_kinds": NON_TOLLING_KINDS,
    }


def _link_url(request: Request, link_id: str) -> str:
    ctx = ctx_of(request)
    return f"{ctx.settings.public_url.rstrip('/')}/a/{ctx.signer.link_token(link_id)}"


@router.get("/applications/{application_id}", response_class=HTMLResponse)
def application_page(request: Request, application_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    request.state.session_info = session
    return render(
        request,
        "application.html.j2",
        session=session,
        **_application_context(request, application_id),
    )


@router.post("/applications/{application_id}/events/{name}")
async def record_event(request: Request, application_id: str, name: str) -> Response:
    session = staff_session(request)
    form = await checked_form(request, session)
    if name not in EVENT_ACTIONS:
        raise HTTPException(404, f"There is no action {name!r}.")
    ctx = ctx_of(request)
    request.state.session_info = session
    fields = form_dict(form)
    try:
        if name in CONFIRMED and fields.get("confirmed") != "yes":
            # A decision or a withdrawal closes the clock: say what it does, then ask.
            require(session.user.principal, EVENT_ACTIONS[name])
            return _confirm_event(request, session, application_id, name, fields)
        result = await ctx.actions.shot_clocks.record_event(
            session.user.principal, application_id, EVENT_ACTIONS[name], fields
        )
    except ActionFailed as err:
        return render(
            request,
            "application.html.j2",
            status=err.status,
            session=session,
            flash=("error", err.message),
            **_application_context(request, application_id),
        )
    clock = result.clock
    return redirect_with_flash(
        request,
        f"/applications/{application_id}",
        "ok",
        f"Recorded. Status: {clock['status'].replace('_', ' ')}; shot clock date "
        f"{human_date(clock['shot_clock_date'])}; conservative date "
        f"{human_date(clock['conservative_date'])}."
        + (" The applicant is sent a letter with the new dates." if name == "resubmission" else ""),
    )


@router.post("/applications/{application_id}/owner")
async def reassign(request: Request, application_id: str) -> Response:
    session = staff_session(request)
    request.state.session_info = session
    actions = ctx_of(request).actions
    return await hand_over(
        request,
        session,
        lambda email, reason: actions.shot_clocks.reassign(
            session.user.principal, application_id, email, reason
        ),
        application_id,
        (
            f"/applications/{application_id}",
            "application.html.j2",
            lambda: _application_context(request, application_id),
        ),
    )


def _confirm_event(
    request: Request, session: Any, application_id: str, name: str, fields: dict[str, Any]
) -> HTMLResponse:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = readmodel.application(db, application_id)
        if row is None:
            raise HTTPException(404, f"There is no application {application_id!r}.")
        site, conservative, status = row.site_address, row.conservative_date, row.status
    when = str(fields.get("date") or "") or ctx.today().isoformat()
    back = f"/applications/{application_id}"
    facts = [("Application", f"{application_id}, {site}"), ("Date", human_date(when))]
    if name == "decision":
        outcome = str(fields.get("outcome") or "")
        if outcome not in OUTCOMES:
            raise ActionFailed("choose the decision's outcome (there is no default)", 400)
        facts.insert(1, ("Outcome", outcome_label(outcome)))
        title, button = f"record the decision ({outcome_label(outcome)})", "Record the decision"
        consequences = [
            "The clock stops for good: nothing more can be recorded on it.",
            "The decision is sent to the applicant, the planner and the supervisor.",
        ]
        if conservative and when > conservative:
            consequences.insert(
                0,
                f"This is after the conservative date {human_date(conservative)}: "
                "it is recorded as a late decision.",
            )
        fields = {k: fields.get(k, "") for k in ("date", "outcome", "note")}
    else:
        title, button = "record the withdrawal", "Record the withdrawal"
        consequences = [
            "The applicant has withdrawn the application: the clock stops for good and "
            "nothing more can be recorded on it.",
            f"No decision will be due (the clock is {status.replace('_', ' ')}; its "
            f"conservative date was {human_date(conservative)}).",
        ]
        fields = {k: fields.get(k, "") for k in ("date", "note")}
    return render(
        request,
        "confirm.html.j2",
        session=session,
        confirm={
            "title": title,
            "facts": facts,
            "consequences": consequences,
            "action": f"/applications/{application_id}/events/{name}",
            "fields": fields,
            "button": button,
            "back": back,
            "back_label": application_id,
        },
    )


# -- the incompleteness notice builder ------------------------------------------------------------


def _suggestions(request: Request, row: Application, events: list[ClockEventRow]) -> list[dict]:
    """Items to pick from: a later notice may cite only the first notice's items; for a
    first notice, items this city cited in earlier notices (each with its rule)."""
    notices = [e for e in events if e.type == "incomplete_notice"]
    if notices:
        return list((notices[0].payload or {}).get("items") or [])
    ctx = ctx_of(request)
    seen: dict[tuple[str, str], dict[str, str]] = {}
    with ctx.sessions() as db:
        payloads = db.scalars(
            select(ClockEventRow.payload)
            .join(Application, Application.application_id == ClockEventRow.application_id)
            .where(
                ClockEventRow.type == "incomplete_notice",
                Application.jurisdiction == row.jurisdiction,
            )
            .order_by(ClockEventRow.id.desc())
            .limit(200)
        )
        for payload in payloads:
            for item in (payload or {}).get("items") or []:
                key = (str(item.get("text", "")), str(item.get("rule", "")))
                if key[0] and key not in seen:
                    seen[key] = {"id": "", "text": key[0], "rule": key[1]}
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    out = []
    for item in list(seen.values())[:20]:
        item["id"] = next(letters, "")
        out.append(item)
    return out


def _rows_from_form(form: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    index = 0
    while f"id_{index}" in form or f"text_{index}" in form:
        rows.append(
            {
                "use": bool(form.get(f"use_{index}")),
                "id": str(form.get(f"id_{index}") or ""),
                "text": str(form.get(f"text_{index}") or ""),
                "rule": str(form.get(f"rule_{index}") or ""),
            }
        )
        index += 1
    return rows


def _builder(
    request: Request,
    session: Any,
    application_id: str,
    rows: list[dict[str, Any]] | None = None,
    date: str = "",
    note: str = "",
    preview: dict[str, Any] | None = None,
    flash: tuple[str, str] | None = None,
    status: int = 200,
) -> HTMLResponse:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = readmodel.application(db, application_id)
        if row is None:
            raise HTTPException(404, f"There is no application {application_id!r}.")
        events = readmodel.clock_events(db, application_id)
    later = any(e.type == "incomplete_notice" for e in events)
    if rows is None:
        rows = [{"use": False, **s} for s in _suggestions(request, row, events)]
        if not later:
            rows += [{"use": False, "id": "", "text": "", "rule": ""}] * BLANK_ROWS
    return render(
        request,
        "notice_builder.html.j2",
        status=status,
        session=session,
        flash=flash,
        app=row,
        later=later,
        rows=rows,
        date=date or ctx.today(row.jurisdiction).isoformat(),
        jurisdiction_key=row.jurisdiction,
        note=note,
        preview=preview,
    )


@router.get("/applications/{application_id}/notice", response_class=HTMLResponse)
def notice_builder(request: Request, application_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "clock.notice")
    return _builder(request, session, application_id)


@router.post("/applications/{application_id}/notice")
async def notice_post(request: Request, application_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    who = session.user.principal
    require(who, "clock.notice")
    rows = _rows_from_form(form)
    fields = {
        "date": form.get("date", ""),
        "note": form.get("note", ""),
        "items": [r for r in rows if r["use"]],
    }
    ctx = ctx_of(request)
    keep = {"rows": rows, "date": fields["date"], "note": fields["note"]}
    try:
        if form.get("step") == "send":
            result = await ctx.actions.shot_clocks.record_from_fields(
                who, RecordNotice, application_id, fields
            )
        else:
            preview = await ctx.actions.shot_clocks.preview_notice(who, application_id, fields)
            return _builder(request, session, application_id, preview=preview, **keep)
    except ActionFailed as err:
        return _builder(
            request,
            session,
            application_id,
            flash=("error", f"Refused: {err.message}"),
            status=err.status,
            **keep,
        )
    clock = result.clock
    return redirect_with_flash(
        request,
        f"/applications/{application_id}",
        "ok",
        f"Notice of incompleteness recorded and sent to the applicant. Status: "
        f"{clock['status'].replace('_', ' ')}; conservative date "
        f"{clock['conservative_date'] or '-'}.",
    )
