"""The dashboard (clocks, projects, my review queue) and the review queues."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from rules.access import require
from rules.conditions.lifecycle import DEPARTMENTS
from web import readmodel
from web.context import ctx_of, render
from web.deadlines import deadlines
from web.deps import staff_session
from web.inbox import LIMIT, inbox_for

router = APIRouter()
# The first page shows the nearest deadlines of every kind; /deadlines lists them all.
DASHBOARD_DEADLINES = 15


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
    queue_department = user.department if user.role == "department_reviewer" else None
    with ctx.sessions() as db:
        clocks = readmodel.clocks(db, ctx.today, _int(params.get("clocks_page")))
        projects = readmodel.projects(
            db, _int(params.get("projects_page")), params.get("q", ""), listing=True
        )
        queue = readmodel.review_queue(db, queue_department, _int(params.get("queue_page")))
        inbox = inbox_for(db, user.role, user.email, user.department, ctx.today(), ctx.time_zone())
        upcoming = deadlines(db, ctx.today(), limit=DASHBOARD_DEADLINES)
    return render(
        request,
        "dashboard.html.j2",
        session=session,
        clocks=clocks,
        projects=projects,
        queue=queue,
        inbox=inbox,
        inbox_limit=LIMIT,
        deadlines=upcoming,
        queue_department=queue_department,
        departments=DEPARTMENTS,
        q=params.get("q", ""),
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
