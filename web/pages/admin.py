"""The administrator's pages: the jurisdiction calendar (holidays and closures, and adding
a closure day with the clocks' own add_local_closure update on every open clock of the
city), and the users."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select

from actions.errors import ActionFailed
from models.schema import ClosureDay, User
from rules.access import STAFF_ROLES, require
from rules.conditions.lifecycle import DEPARTMENTS
from rules.kernel.calendars import ALL, CONSERVATIVE
from rules.kernel.input import TimelineError, parse_date
from rules.law_watch import law_watch
from web.auth.accounts import AccountError
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session
from web.queries.scope import grant, held_roles

router = APIRouter()


def _calendar_context(request: Request, key: str, year: int) -> dict[str, Any]:
    ctx = ctx_of(request)
    cities = ctx.actions.cities.all()
    if key not in cities:
        raise HTTPException(404, f"There is no jurisdiction {key!r}.")
    city = cities[key]
    with ctx.sessions() as db:
        added = list(
            db.scalars(
                select(ClosureDay)
                .where(ClosureDay.jurisdiction == key)
                .order_by(ClosureDay.date.desc())
                .limit(200)
            )
        )
    # Every layer (shot-clocks.md 8.6): which law marks the day, and whether the
    # conservative reading rolls over it.
    layers = city.calendar_layers(tuple(c.date for c in added))
    calendar = layers.calendar(ALL)
    conservative = layers.calendar(CONSERVATIVE)
    days = [
        {
            "date": d,
            "name": name,
            "reason": calendar.closure_reason(d) or "observed on a weekday",
            "layers": layers.notes_for(d, CONSERVATIVE),
            "conservative": not conservative.is_business_day(d),
        }
        for d, name in calendar.holidays_in(year).items()
    ]
    return {
        "layers": layers.layers,
        "jurisdiction_key": key,
        "city": city,
        "cities": cities,
        "year": year,
        "days": days,
        "added": added,
        "configured": list(city.local_closures),
    }


def _year(value: str | None, default: int) -> int:
    try:
        year = int(value or default)
    except ValueError:
        return default
    return year if 1990 <= year <= 2100 else default


@router.get("/admin/calendar", response_class=HTMLResponse)
def calendar_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    key = request.query_params.get("jurisdiction") or ctx.actions.city().key
    year = _year(request.query_params.get("year"), ctx.today(key).year)
    return render(
        request, "admin_calendar.html.j2", session=session, **_calendar_context(request, key, year)
    )


@router.post("/admin/calendar/closures")
async def add_closure(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    ctx = ctx_of(request)
    who = session.user.principal
    require(who, "admin.calendar")
    key = form.get("jurisdiction") or ctx.actions.city().key
    day = form.get("date", "").strip()
    try:
        if key not in ctx.actions.cities.all():
            raise ActionFailed(f"there is no jurisdiction {key!r}", 400)
        try:
            parse_date(day, "date")
        except TimelineError as err:
            raise ActionFailed(str(err), 400) from None
        # Stored before it is fanned out (shot-clocks.md 8.10), by the action.
        outcome = await ctx.actions.shot_clocks.closure_everywhere(
            who, key, day, form.get("reason", "")
        )
    except ActionFailed as err:
        year = _year(day[:4], ctx.today(key).year)
        return render(
            request,
            "admin_calendar.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Refused: {err.message}"),
            **_calendar_context(
                request, key if key in ctx.actions.cities.all() else ctx.actions.city().key, year
            ),
        )
    changed = outcome.changed
    if changed is None:
        message = (
            f"{day} is now a closure day; it is being applied to {len(outcome.targeted)} "
            "open clock(s) in the background (it finishes even if this page is closed)"
        )
    else:
        message = (
            f"{day} is now a closure day; {len(changed)} open clock(s) recounted: "
            f"{', '.join(changed[:20]) or 'none open'}"
            f"{f' and {len(changed) - 20} more' if len(changed) > 20 else ''}"
        )
        if outcome.refused:
            message += f"; refused by {len(outcome.refused)}: {'; '.join(outcome.refused[:5])}"
    if outcome.permit_targeted:
        permits = outcome.permit_changed
        message += (
            f"; {len(outcome.permit_targeted)} open permit clock(s) being recounted"
            if permits is None
            else f"; {len(permits)} open permit clock(s) recounted: {', '.join(permits[:20])}"
            f"{f' and {len(permits) - 20} more' if len(permits) > 20 else ''}"
        )
        if outcome.permit_refused:
            message += (
                f"; refused by {len(outcome.permit_refused)} permit clock(s): "
                f"{'; '.join(outcome.permit_refused[:5])}"
            )
    return redirect_with_flash(
        request,
        f"/admin/calendar?jurisdiction={key}&year={day[:4]}",
        "ok",
        message + ".",
    )


# -- users ---------------------------------------------------------------------------------------


def _users_page(
    request: Request, session: Any, status: int = 200, flash: Any = None
) -> HTMLResponse:
    ctx = ctx_of(request)
    cities = ctx.actions.cities.all()
    default_key = ctx.actions.cities.default_key or ctx.actions.city().key
    held = held_roles(ctx.sessions, default_key)
    return render(
        request,
        "admin_users.html.j2",
        status=status,
        session=session,
        flash=flash,
        # The users of the administrator's cities, each with their role in each of them.
        users=[u for u in ctx.accounts.list_users() if set(held.get(u.id, {})) & set(cities)],
        held=held,
        cities=cities,
        roles=STAFF_ROLES,
        departments=DEPARTMENTS,
    )


@router.get("/admin/users", response_class=HTMLResponse)
def users_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "admin.users")
    return _users_page(request, session)


@router.post("/admin/users")
async def add_user(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "admin.users")
    try:
        user = ctx_of(request).accounts.add_user(
            form.get("email", ""),
            form.get("role", ""),
            form.get("password", ""),
            form.get("department", ""),
            form.get("display_name", ""),
        )
    except AccountError as err:
        return _users_page(request, session, 400, ("error", f"Not added: {err}"))
    ctx = ctx_of(request)
    key = ctx.actions.city(form.get("jurisdiction", "")).key
    grant(ctx.sessions, user.id, key, user.role, user.department)
    return redirect_with_flash(
        request, "/admin/users", "ok", f"Added {user.email} ({user.role} in {key})."
    )


@router.post("/admin/users/{user_id}/jurisdictions")
async def give_role(request: Request, user_id: int) -> Response:
    """Give a user a role in one of the administrator's cities (a person may hold
    different roles in different cities)."""
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "admin.users")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        user = db.get(User, user_id)
    if user is None:
        raise HTTPException(404, "There is no such user.")
    key = ctx.actions.city(form.get("jurisdiction", "")).key
    role = form.get("role", "")
    if role not in STAFF_ROLES:
        return _users_page(request, session, 400, ("error", f"role: {role!r} is not a role"))
    department = form.get("department", "")
    if department and department not in DEPARTMENTS:
        return _users_page(
            request, session, 400, ("error", f"department: {department!r} is not a department")
        )
    grant(ctx.sessions, user.id, key, role, department)
    return redirect_with_flash(
        request, "/admin/users", "ok", f"{user.email} is now {role} in {key}."
    )


@router.post("/admin/users/import")
async def import_users(request: Request) -> Response:
    """Users from a CSV file with their roles (the same as `clearance users import`)."""
    from starlette.datastructures import UploadFile

    from web.auth.accounts import MAX_USERS_FILE_BYTES, read_users_csv

    session = staff_session(request)
    form = await checked_form(request, session)
    require(session.user.principal, "admin.users")
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        return _users_page(request, session, 400, ("error", "Not imported: choose a CSV file."))
    try:
        rows = read_users_csv(await upload.read(MAX_USERS_FILE_BYTES + 1))
    except AccountError as err:
        return _users_page(request, session, 400, ("error", f"Not imported: {err}"))
    added, existing, errors = ctx_of(request).accounts.import_users(rows)
    if errors:
        listed = "; ".join(errors[:20]) + ("; ..." if len(errors) > 20 else "")
        message = f"Not imported, no user was added: {listed}"
        return _users_page(request, session, 400, ("error", message))
    return redirect_with_flash(
        request, "/admin/users", "ok", f"{len(added)} added, {len(existing)} already there."
    )


@router.post("/admin/users/{user_id}/disable")
async def disable_user(request: Request, user_id: int) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    require(session.user.principal, "admin.users")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        user = db.get(User, user_id)
    if user is None:
        raise HTTPException(404, "There is no such user.")
    if user.id == session.user.id:
        return _users_page(request, session, 409, ("error", "You cannot disable yourself."))
    ctx.accounts.set_active(user.email, False)
    return redirect_with_flash(
        request, "/admin/users", "ok", f"{user.email} can no longer log in; their sessions ended."
    )


@router.get("/admin/rules", response_class=HTMLResponse)
def rules_page(request: Request) -> HTMLResponse:
    """The law watch: provisional rules, rules not verified in 12 months, pending changes."""
    session = staff_session(request)
    require(session.user.principal, "admin.rules")
    today = ctx_of(request).today()
    return render(request, "admin_rules.html.j2", session=session, watch=law_watch(today))
