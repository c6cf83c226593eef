"""Projects: the list, a project's conditions by milestone and department, a condition's
detail and actions, milestone sign-off, planned dates and the applicant's digest."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from models.conditions import KINDS, RESOLVED_STATUSES
from models.schema import EvidenceFile
from rules.access import RESOLUTION_ACTIONS, require
from rules.conditions.lifecycle import DEPARTMENTS, MONITORED_GATES
from web.auth.accounts import link_state
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session
from web.queries import readmodel
from web.uploads.evidence import staged_upload, stored_path
from web.views.offers import may_review
from web.views.present import blocker_summary, human_date, milestone_label
from web.views.timeline_svg import progress_picture

router = APIRouter()

CONDITION_ACTIONS = {
    "submit-evidence": "condition.submit_evidence",
    "review": "condition.review",
    "resolve": "condition.resolve",
    "trigger": "condition.trigger",
    "correct": "condition.correct",
    "owner": "condition.reassign",
}
STATUS_FILTERS = (
    "open",
    "submitted",
    "in_review",
    "returned",
    "cleared",
    "waived",
    "not_applicable",
    "satisfied_by_alternative",
    "blocking",
)


@router.get("/projects", response_class=HTMLResponse)
def project_list(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    q = request.query_params.get("q", "")
    try:
        page = max(1, int(request.query_params.get("page") or 1))
    except ValueError:
        page = 1
    with ctx.sessions() as db:
        projects = readmodel.projects(db, page, q, listing=True)
    return render(request, "projects.html.j2", session=session, projects=projects, q=q)


def _link_url(request: Request, link_id: str) -> str:
    ctx = ctx_of(request)
    return f"{ctx.settings.public_url.rstrip('/')}/a/{ctx.signer.link_token(link_id)}"


def _project_context(request: Request, project_id: str) -> dict[str, Any]:
    ctx = ctx_of(request)
    params = request.query_params
    filters = {k: params.get(k, "") for k in ("milestone", "department", "status", "q")}
    with ctx.sessions() as db:
        project = readmodel.project(db, project_id)
        if project is None:
            raise HTTPException(404, f"There is no project {project_id!r}.")
        rows = readmodel.conditions(db, project_id)
        time_limit_clocks = readmodel.project_clocks(db, project_id)
    view = readmodel.project_view(project, rows, **filters)
    links = ctx.accounts.links_for("project", project_id)
    targets = (project.planned or {}).get("milestone_targets") or {}
    progress = progress_picture(
        project.milestones or [],
        {m: milestone_label(m) for m in view.milestones},
        ctx.today(project.jurisdiction),
    )
    return {
        "jurisdiction_key": project.jurisdiction,
        "project": project,
        "progress": progress,
        "progress_by": {p["milestone"]: p for p in project.milestones or []},
        "view": view,
        "filters": filters,
        "status_filters": STATUS_FILTERS,
        "targets": targets,
        "monitored": MONITORED_GATES,
        "links": [(link, link_state(link), _link_url(request, link.link_id)) for link in links],
        # Time limits with no clock of their own yet (an anchor not recorded, an end date).
        "condition_limits": [
            (r, t)
            for r in rows
            for t in r.time_limits or []
            if t.get("kind") == "until"
            or r.number not in {c.condition_number for c in time_limit_clocks}
        ],
        "time_limit_clocks": time_limit_clocks,
    }


@router.get("/projects/{project_id}", response_class=HTMLResponse)
def project_page(request: Request, project_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return render(
        request, "project.html.j2", session=session, **_project_context(request, project_id)
    )


def _condition_context(
    request: Request, project_id: str, number: str, session: Any = None
) -> dict[str, Any]:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        project = readmodel.project(db, project_id)
        row = readmodel.condition(db, project_id, number)
        if project is None or row is None:
            raise HTTPException(404, f"There is no condition #{number} in project {project_id!r}.")
        history = readmodel.condition_history(db, project_id, number)
        files = [
            f
            for f in readmodel.evidence_files(db, "project", project_id)
            if f.condition_number == number
        ]
        milestones = readmodel.milestone_sequence([g for g in row.gates or []])
        time_limit_clocks = [
            c for c in readmodel.project_clocks(db, project_id) if c.condition_number == number
        ]
        # The owner: the one the project manager chose, else the reviewer the city's data
        # names for the department that clears it.
        try:
            named = ctx.actions.city(project.jurisdiction).departments.get(
                row.department_key, ("", "")
            )[0]
        except ActionFailed:
            named = ""
        owner = row.owner_email or readmodel.condition_owner(db, named, row.department_key)
        owner_choices = readmodel.condition_owner_choices(db, row.department_key)
    return {
        "owner": owner,
        "owner_chosen": bool(row.owner_email),
        "owner_choices": owner_choices,
        "jurisdiction_key": project.jurisdiction,
        "time_limit_clocks": time_limit_clocks,
        "project": project,
        "c": row,
        "history": history,
        "files": files,
        "resolved": row.status in RESOLVED_STATUSES,
        "resolutions": list(RESOLUTION_ACTIONS),
        "kinds": KINDS,
        "departments": DEPARTMENTS,
        "gate_choices": milestones,
        # Clear/Return only for the department that clears it (or an administrator).
        "may_review": session is not None
        and may_review(session.user.role, session.user.department, row.department_key),
    }


@router.get("/projects/{project_id}/conditions/{number}", response_class=HTMLResponse)
def condition_page(request: Request, project_id: str, number: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return render(
        request,
        "condition.html.j2",
        session=session,
        **_condition_context(request, project_id, number, session),
    )


@router.post("/projects/{project_id}/conditions/{number}/{name}")
async def condition_action(request: Request, project_id: str, number: str, name: str) -> Response:
    session = staff_session(request)
    form = await checked_form(request, session)
    if name not in CONDITION_ACTIONS:
        raise HTTPException(404, f"There is no action {name!r}.")
    ctx = ctx_of(request)
    fields = form_dict(form)
    who = session.user.principal
    try:
        upload = form.get("file")
        if name == "submit-evidence" and isinstance(upload, UploadFile) and upload.filename:
            # Refuse before storing anything when the role may not submit.
            require(who, "condition.submit_evidence")
            async with staged_upload(
                ctx.settings.data_dir, upload, ctx.settings.max_upload_bytes
            ) as staged:
                await ctx.actions.conditions.submit_evidence_file(
                    who,
                    project_id,
                    number,
                    fields,
                    sha256=staged.sha256,
                    size=staged.size,
                    filename=staged.filename,
                    content_type=staged.content_type,
                )
                staged.keep()
        else:
            await ctx.actions.conditions.from_fields(
                who, project_id, number, CONDITION_ACTIONS[name], fields
            )
    except ActionFailed as err:
        return render(
            request,
            "condition.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Refused: {err.message}"),
            **_condition_context(request, project_id, number, session),
        )
    return redirect_with_flash(
        request,
        f"/projects/{project_id}/conditions/{number}",
        "ok",
        f"Recorded: condition #{number} {_done(name, fields)}.",
    )


def _done(name: str, fields: dict[str, Any]) -> str:
    if name == "submit-evidence":
        return "has new evidence and awaits review"
    if name == "review":
        return str(fields.get("decision", "reviewed")).replace("_", " ")
    if name == "resolve":
        return "marked " + str(fields.get("resolution", "")).replace("_", " ")
    if name == "trigger":
        return "is now in force"
    if name == "owner":
        return f"is now with {fields.get('email', '')}"
    return "corrected"


@router.get("/evidence/{file_id}")
def download(request: Request, file_id: int) -> Response:
    session = staff_session(request)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = db.get(EvidenceFile, file_id)
    if row is None:
        raise HTTPException(404, "There is no such file.")
    path = stored_path(ctx.settings.data_dir, row.sha256)
    if not path.exists():
        raise HTTPException(404, "The file is missing from the evidence store.")
    return FileResponse(
        path,
        filename=row.filename,
        media_type="application/octet-stream",
        content_disposition_type="attachment",
    )


# -- milestones -----------------------------------------------------------------------------------


def _signoff_context(request: Request, project_id: str, milestone: str) -> dict[str, Any]:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        project = readmodel.project(db, project_id)
        if project is None:
            raise HTTPException(404, f"There is no project {project_id!r}.")
        rows = readmodel.conditions(db, project_id)
    gated = [r for r in rows if milestone in (r.gates or [])]
    if not gated:
        raise HTTPException(404, f"No condition of {project_id} is gated by {milestone!r}.")
    signed = next(
        (
            s
            for s in project.signoffs or []
            if isinstance(s, dict) and s.get("milestone") == milestone
        ),
        None,
    )
    blockers = readmodel.milestone_blockers(rows, milestone)
    return {
        "jurisdiction_key": project.jurisdiction,
        "project": project,
        "milestone": milestone,
        "gated": gated,
        "blockers": blockers,
        "summary": blocker_summary(milestone, [b.department_key for b in blockers]),
        "resolved": sum(1 for r in gated if r.status in RESOLVED_STATUSES),
        "signed": signed,
        "monitored": milestone in MONITORED_GATES,
        "target": ((project.planned or {}).get("milestone_targets") or {}).get(milestone),
    }


@router.get("/projects/{project_id}/milestones/{milestone}/sign-off", response_class=HTMLResponse)
def signoff_page(request: Request, project_id: str, milestone: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    return render(
        request,
        "signoff.html.j2",
        session=session,
        **_signoff_context(request, project_id, milestone),
    )


@router.post("/projects/{project_id}/milestones/{milestone}/sign-off")
async def signoff(request: Request, project_id: str, milestone: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "project.sign_off")
    ctx = ctx_of(request)
    page = _signoff_context(request, project_id, milestone)

    def refused(message: str, status: int) -> HTMLResponse:
        return render(
            request,
            "signoff.html.j2",
            status=status,
            session=session,
            flash=("error", f"Refused: {message}"),
            **page,
        )

    if page["blockers"]:
        # Said briefly, from the read model; the table below lists each blocker.
        return refused(page["summary"], 409)
    if form.get("confirmed") != "yes":
        label = milestone_label(milestone)
        return render(
            request,
            "confirm.html.j2",
            session=session,
            confirm={
                "title": f"sign off {label}",
                "facts": [
                    ("Project", f"{page['project'].name} ({project_id})"),
                    ("Milestone", label),
                    ("Conditions gating it", f"{len(page['gated'])}, all resolved"),
                    ("Target date", human_date(page["target"]) if page["target"] else "none"),
                ],
                "consequences": [
                    "The sign-off is final and goes in the audit log under your name.",
                    "The applicant and the project manager are told it is signed off.",
                ],
                "action": f"/projects/{project_id}/milestones/{milestone}/sign-off",
                "fields": {},
                "button": f"Sign off {label}",
                "back": f"/projects/{project_id}/milestones/{milestone}/sign-off",
                "back_label": "the sign-off page",
            },
        )
    try:
        result = await ctx.actions.projects.sign_off(session.user.principal, project_id, milestone)
    except ActionFailed as err:
        page = _signoff_context(request, project_id, milestone)
        return refused(page["summary"] if page["blockers"] else err.message, err.status)
    return redirect_with_flash(
        request,
        f"/projects/{project_id}/milestones/{milestone}/sign-off",
        "ok",
        f"Signed off: {result.message}.",
    )


@router.post("/projects/{project_id}/plan")
async def plan(request: Request, project_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    fields: dict[str, Any] = {
        k: form.get(k, "")
        for k in ("groundbreaking", "grading_start", "grading_end", "construction_end")
    }
    fields["milestone_targets"] = {
        k[len("target_") :]: v for k, v in form.items() if k.startswith("target_") and v
    }
    return await _project_action(request, session, project_id, "project.plan", fields)


@router.post("/projects/{project_id}/digest")
async def digest(request: Request, project_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    return await _project_action(request, session, project_id, "project.digest", form)


@router.post("/projects/{project_id}/digest-pause")
async def digest_pause(request: Request, project_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    return await _project_action(request, session, project_id, "project.digest_pause", form)


async def _project_action(
    request: Request, session: Any, project_id: str, action: str, fields: dict[str, Any]
) -> Response:
    ctx = ctx_of(request)
    try:
        result = await ctx.actions.projects.from_fields(
            session.user.principal, project_id, action, fields
        )
    except ActionFailed as err:
        return render(
            request,
            "project.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Refused: {err.message}"),
            **_project_context(request, project_id),
        )
    return redirect_with_flash(request, f"/projects/{project_id}", "ok", result.message + ".")
