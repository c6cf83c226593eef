"""Bulk actions on a selection of a project's conditions (actions/bulk.py): assign or
reassign the reviewer, route to a department, mark not applicable with one reason, send
the applicant's digest. The answer
lists each condition done and each refused, with the reason."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from actions.bulk import BULK_ACTIONS
from models.conditions import RESOLVED_STATUSES
from models.schema import User
from rules.access import require
from rules.conditions.lifecycle import DEPARTMENTS
from web.auth.accounts import SessionInfo
from web.context import ctx_of, render
from web.deps import checked_form, form_dict, staff_session
from web.queries import readmodel

router = APIRouter()


def _page(request: Request, project_id: str, session: SessionInfo, **values: Any) -> HTMLResponse:
    with ctx_of(request).sessions() as db:
        project = readmodel.project(db, project_id)
        if project is None:
            raise HTTPException(404, f"There is no project {project_id!r}.")
        rows = [
            r for r in readmodel.conditions(db, project_id) if r.status not in RESOLVED_STATUSES
        ]
        reviewers = list(
            db.scalars(
                select(User.email)
                .where(User.role == "department_reviewer", User.active.is_(True))
                .order_by(User.email)
            )
        )
    return render(
        request,
        "bulk.html.j2",
        session=session,
        jurisdiction_key=project.jurisdiction,
        project=project,
        rows=rows,
        actions=BULK_ACTIONS,
        departments=DEPARTMENTS,
        reviewers=reviewers,
        **values,
    )


@router.get("/projects/{project_id}/bulk", response_class=HTMLResponse)
def bulk_page(request: Request, project_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return _page(request, project_id, session, outcome=None, chosen=set(), fields={})


@router.post("/projects/{project_id}/bulk", response_class=HTMLResponse)
async def bulk_post(request: Request, project_id: str) -> HTMLResponse:
    session = staff_session(request)
    form = await checked_form(request, session)
    fields = form_dict(form)
    selection = [f"{project_id}:{n}" for n in form.getlist("number") if isinstance(n, str)]
    outcome = await ctx_of(request).actions.bulk.run(
        session.user.principal, str(fields.get("action") or ""), selection, fields
    )
    chosen = {s.rpartition(":")[2] for s in selection}
    return _page(request, project_id, session, outcome=outcome, chosen=chosen, fields=fields)
