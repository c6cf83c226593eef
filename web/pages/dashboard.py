"""The dashboard (clocks, projects, my review queue) and the review queues."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from rules.access import require
from rules.conditions.lifecycle import DEPARTMENTS
from web.context import ctx_of, render
from web.deps import city_roles, staff_session
from web.queries import readmodel
from web.queries.deadlines import deadlines
from web.queries.inbox_cities import inbox_in_cities, review_queue_in_cities

router = APIRouter()
# The first page shows the nearest deadlines of every kind; /deadlines lists them all.
DASHBOARD_DEADLINES = 15
# The first page is an inbox: its top items, with a count and a link to the whole inbox
# (/inbox), and the first rows of each full list, with a link to it. (Fifty of everything
# made a 100 KiB page that took most of the app's time under 50 users.)
DASHBOARD_INBOX = 25
DASHBOARD_ROWS = 10


def _int(value: str | None, default: int = 1) -> int:
    try:
        return max(1, int(value or default))
    except ValueError:
        return default


@router.get("/", response_class=HTMLResponse)
def dashboard(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    params = request.query_params
    user = session.user
    rows = DASHBOARD_ROWS
    roles = city_roles(request, user)
    with ctx.sessions() as db:
        clocks = readmodel.clocks(db, ctx.today, _int(params.get("clocks_page")), size=rows)
        projects = readmodel.projects(
            db, _int(params.get("projects_page")), params.get("q", ""), listing=True, size=rows
        )
        queue = review_queue_in_cities(
            db,
            roles,
            (user.role, user.department),
            _int(params.get("queue_page")),
            rows,
            ctx.actions.cities.find,
        )
        inbox = inbox_in_cities(
            db,
            roles,
            (user.role, user.department),
            user.email,
            ctx.today(),
            ctx.time_zone(),
            ctx.actions.cities.find,
        )
        upcoming = deadlines(db, ctx.today(), limit=DASHBOARD_DEADLINES)
    return render(
        request,
        "dashboard.html.j2",
        session=session,
        clocks=clocks,
        projects=projects,
        queue=queue.page,
        queue_shares=queue.shares,
        inbox=inbox,
        inbox_limit=DASHBOARD_INBOX,
        inbox_capped=inbox.capped,
        deadlines=upcoming,
        queue_department=queue.department,
        departments=DEPARTMENTS,
        q=params.get("q", ""),
    )


@router.get("/inbox", response_class=HTMLResponse)
def whole_inbox(request: Request) -> HTMLResponse:
    """Everything in the user's inbox (the first page shows its top items)."""
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    user = session.user
    with ctx.sessions() as db:
        inbox = inbox_in_cities(
            db,
            city_roles(request, user),
            (user.role, user.department),
            user.email,
            ctx.today(),
            ctx.time_zone(),
            ctx.actions.cities.find,
        )
    return render(
        request,
        "inbox.html.j2",
        session=session,
        inbox=inbox,
        inbox_capped=inbox.capped,
    )


@router.get("/queues", response_class=HTMLResponse)
def queues(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return render(request, "queues.html.j2", session=session, departments=DEPARTMENTS)


@router.get("/queues/{department}", response_class=HTMLResponse)
def queue(request: Request, department: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    if department not in DEPARTMENTS:
        raise HTTPException(404, f"There is no department {department!r}.")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        page = readmodel.review_queue(db, department, _int(request.query_params.get("page")))
    return render(
        request,
        "queue.html.j2",
        session=session,
        department=department,
        department_name=DEPARTMENTS[department],
        queue=page,
    )
