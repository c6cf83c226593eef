"""The outbox (every notice and its delivery state) and the project reports."""

from __future__ import annotations

import re

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from reports import audit, clearance, mmrp, portfolio
from reports.common import ProjectNotFound
from rules.access import require
from web.context import ctx_of, render
from web.deps import reader, staff_session
from web.queries import readmodel

router = APIRouter()
DELIVERY_STATES = ("pending", "delivered", "failed")


@router.get("/outbox", response_class=HTMLResponse)
def outbox(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    state = request.query_params.get("state", "")
    try:
        page = max(1, int(request.query_params.get("page") or 1))
    except ValueError:
        page = 1
    with ctx.sessions() as db:
        notices = readmodel.outbox(db, page, state if state in DELIVERY_STATES else "")
    return render(
        request,
        "outbox.html.j2",
        session=session,
        notices=notices,
        state=state,
        states=DELIVERY_STATES,
    )


@router.get("/outbox/{notice_key:path}", response_class=HTMLResponse)
def outbox_notice(request: Request, notice_key: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        notice = readmodel.notice(db, notice_key)
    if notice is None:
        raise HTTPException(404, "There is no such notice.")
    return render(request, "notice.html.j2", session=session, notice=notice)


@router.get("/reports", response_class=HTMLResponse)
def reports_index(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        projects = readmodel.projects(db, 1, request.query_params.get("q", ""))
    return render(
        request,
        "reports.html.j2",
        session=session,
        projects=projects,
        portfolio=list(portfolio.kinds().values()),
    )


@router.get("/reports/{project_id}/{kind}.{fmt}")
def report(request: Request, project_id: str, kind: str, fmt: str) -> Response:
    """clearance, mmrp or audit (the audit log), as html or csv, for one project (a bearer
    token or the session)."""
    require(reader(request).principal, "read")
    engine = ctx_of(request).engine
    if kind not in ("clearance", "mmrp", "audit") or fmt not in ("html", "csv"):
        raise HTTPException(404, "Reports are clearance, mmrp or audit, as html or csv.")
    try:
        if kind == "clearance":
            data = clearance.milestone_clearance(engine, project_id)
            body = clearance.render_html(data) if fmt == "html" else clearance.to_csv(data)
        elif kind == "audit":
            log = audit.audit_log(engine, project_id)
            body = audit.render_html(log) if fmt == "html" else audit.to_csv(log)
        else:
            table = mmrp.mmrp(engine, project_id)
            body = mmrp.render_html(table) if fmt == "html" else mmrp.to_csv(table)
    except ProjectNotFound:
        raise HTTPException(404, f"There is no project {project_id!r}.") from None
    if fmt == "csv":
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", project_id)
        return Response(
            body,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{safe}-{kind}.csv"'},
        )
    # The report templates carry their own <style> (they are also written to files).
    return HTMLResponse(
        body,
        headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"},
    )
