"""Each user's deadlines as an ICS feed behind a secret token, and the page to get it."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import ColumnElement, and_, false, or_, select, true

from models.conditions import RESOLVED_STATUSES
from models.schema import Application, ConditionRow, Project
from rules.access import CLOCK_STAFF, require
from rules.kernel.citations import citation_title
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from web.auth.accounts import CurrentUser
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, staff_session
from web.middleware.idempotency import SHOWN_ONCE_HEADER
from web.queries.deadlines import permit_calendar_events
from web.queries.scope import Roles, roles_of
from web.views.ics import CalendarEvent, build
from web.views.present import window_label

router = APIRouter()
MAX_CLOCKS = 2000
MAX_PROJECTS = 500
REMINDER_DAYS = (14, 7, 3, 1)
WINDOW_REMINDER_DAYS = (3, 1)


@router.get("/me", response_class=HTMLResponse)
def me(request: Request) -> HTMLResponse:
    session = staff_session(request)
    ctx = ctx_of(request)
    return render(
        request,
        "me.html.j2",
        session=session,
        has_feed=ctx.accounts.has_calendar_token(session.user.id),
        feed_url=request.query_params.get("feed", ""),
    )


@router.post("/me/calendar")
async def new_feed(request: Request) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    token = ctx.accounts.new_calendar_token(session.user.id)
    url = f"{ctx.settings.public_url.rstrip('/')}/calendar/{token}.ics"
    response = redirect_with_flash(
        request,
        "/me",
        "ok",
        f"Your calendar address (keep it secret; any older address stopped working): {url}",
    )
    response.headers[SHOWN_ONCE_HEADER] = "1"  # never stored for an idempotent replay
    return response


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _each_city(roles: Roles, column: Any, mine: Any) -> ColumnElement[bool]:
    """Rows of every city the user holds a role in, as that role there sees them:
    `mine(role, department)` is the filter for that role (True: every row)."""
    return or_(
        false(),
        *(
            and_(column == key, true() if (found := mine(role, dept)) is True else found)
            for key, (role, dept) in roles.items()
        ),
    )


def deadlines(request: Request, user: CurrentUser) -> list[CalendarEvent]:
    """The user's deadlines in each of their cities, chosen by their role in that city
    (a planner in one city and a project manager in another sees each city's share)."""
    ctx = ctx_of(request)
    base = ctx.settings.public_url.rstrip("/")
    roles = roles_of(ctx.sessions, user.id, ctx.actions.city().key)
    events: list[CalendarEvent] = []
    with ctx.sessions() as db:
        named = or_(
            Application.planner_email == user.email,
            Application.supervisor_email == user.email,
            Application.attorney_email == user.email,
        )
        query = select(Application).where(
            Application.status.not_in(TERMINAL_STATUSES),
            _each_city(
                roles,
                Application.jurisdiction,
                lambda role, _d: True if role in (*CLOCK_STAFF, "city_attorney") else named,
            ),
        )
        for app in db.scalars(query.order_by(Application.conservative_date).limit(MAX_CLOCKS)):
            clock = app.clock or {}
            day = _date(app.conservative_date)
            url = f"{base}/applications/{app.application_id}"
            if day is not None:
                events.append(
                    CalendarEvent(
                        uid=f"clock-{app.application_id}-conservative@clearance",
                        day=day,
                        summary=f"Shot clock deadline: {app.application_id} ({app.site_address})",
                        description=(
                            f"Conservative date (earliest reading) for {app.application_id}; "
                            f"literal shot clock date {app.shot_clock_date or '-'}. "
                            f"Status: {app.status.replace('_', ' ')}."
                        ),
                        url=url,
                        alarms_days_before=REMINDER_DAYS,
                    )
                )
            for window in clock.get("notice_windows") or []:
                closes = _date(window.get("closes"))
                if window.get("state") != "open" or closes is None:
                    continue
                events.append(
                    CalendarEvent(
                        uid=f"clock-{app.application_id}-window-{window.get('kind')}@clearance",
                        day=closes,
                        summary=f"Notice window closes: {app.application_id}",
                        description=(
                            f"Last day for the {window_label(window.get('kind'))} "
                            f"({citation_title(window.get('rule', ''))})."
                        ),
                        url=url,
                        alarms_days_before=WINDOW_REMINDER_DAYS,
                    )
                )
        permit_staff = (*CLOCK_STAFF, "city_attorney", "engineering")
        events.extend(
            permit_calendar_events(
                db,
                base,
                user.email,
                sees_all_in={key for key, (role, _d) in roles.items() if role in permit_staff},
            )
        )

        def projects_for(role: str, department: str) -> Any:
            if role == "project_manager":
                return Project.project_manager_email == user.email
            if role == "department_reviewer":
                owing = select(ConditionRow.project_id).where(
                    ConditionRow.department_key == department,
                    ConditionRow.status.not_in(RESOLVED_STATUSES),
                )
                return Project.project_id.in_(owing.distinct())
            return True

        projects = select(Project).where(_each_city(roles, Project.jurisdiction, projects_for))
        for project in db.scalars(projects.order_by(Project.project_id).limit(MAX_PROJECTS)):
            signed = {s.get("milestone") for s in project.signoffs or [] if isinstance(s, dict)}
            targets = (project.planned or {}).get("milestone_targets") or {}
            for milestone, target in sorted(targets.items()):
                day = _date(target)
                if day is None or milestone in signed:
                    continue
                label = milestone.replace("_", " ")
                events.append(
                    CalendarEvent(
                        uid=f"project-{project.project_id}-{milestone}@clearance",
                        day=day,
                        summary=f"Milestone target: {label}, {project.name}",
                        description=(
                            f"Target date for {label} on {project.project_id}"
                            + (
                                f"; {project.next_milestone_blockers} condition(s) block it now."
                                if project.next_milestone == milestone
                                else "."
                            )
                        ),
                        url=f"{base}/projects/{project.project_id}",
                        alarms_days_before=(7, 1),
                    )
                )
    return events


@router.get("/calendar/{token}.ics")
def feed(request: Request, token: str) -> Response:
    ctx = ctx_of(request)
    user = ctx.accounts.user_for_calendar_token(token)
    if user is None:
        raise HTTPException(
            404, "There is no calendar at this address (it may have been replaced)."
        )
    body = build(f"Clearance deadlines: {user.email}", deadlines(request, user))
    return Response(
        body,
        media_type="text/calendar; charset=utf-8",
        headers={"Content-Disposition": 'inline; filename="clearance.ics"'},
    )
