"""Applicant links: staff create and revoke them; an applicant holding one sees only what
they owe on that one project or application, and uploads evidence for it."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from models.schema import ApplicantLink, PermitClockRow
from models.shot_clock import ApplicantUploadInput
from rules.access import Principal, require
from web.auth.accounts import AccountError, aware
from web.context import ctx_of, redirect_with_flash, render, require_public_url
from web.deps import checked_form, form_dict, staff_session
from web.queries import readmodel
from web.uploads.evidence import record_file, staged_upload
from web.views.present import human_date

router = APIRouter()
log = logging.getLogger("clearance.web")


def _back(scope: str, scope_id: str) -> str:
    if scope == "permit":
        return f"/permits/{scope_id}"
    return f"/projects/{scope_id}" if scope == "project" else f"/applications/{scope_id}"


@router.post("/links")
async def create_link(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "link.create")
    ctx = ctx_of(request)
    require_public_url(ctx.settings)
    scope, scope_id = form.get("scope", ""), form.get("scope_id", "")
    try:
        link = ctx.accounts.create_link(
            scope,
            scope_id,
            session.user.email,
            ctx.settings.applicant_link_days,
            email=form.get("email", "").strip(),
        )
    except AccountError as err:
        raise ActionFailed(str(err), 400) from None
    url = f"{ctx.settings.public_url.rstrip('/')}/a/{ctx.signer.link_token(link.link_id)}"
    return redirect_with_flash(
        request,
        _back(scope, scope_id),
        "ok",
        f"Applicant link created (valid until {human_date(aware(link.expires_at))}): {url}",
    )


@router.post("/links/{link_id}/revoke")
async def revoke_link(request: Request, link_id: str) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    require(session.user.principal, "link.revoke")
    ctx = ctx_of(request)
    try:
        link = ctx.accounts.revoke_link(link_id, session.user.email)
    except AccountError as err:
        raise ActionFailed(str(err), 404) from None
    return redirect_with_flash(
        request, _back(link.scope, link.scope_id), "ok", "The applicant link was revoked."
    )


# -- the applicant's side -----------------------------------------------------------------------


def _link(request: Request, token: str) -> ApplicantLink:
    ctx = ctx_of(request)
    link_id = ctx.signer.link_id(token)
    if link_id is None:
        raise HTTPException(404, "This link is not valid. Check that it was copied in full.")
    link, why = ctx.accounts.live_link(link_id)
    if link is None:
        raise _Gone(why)
    return link


class _Gone(HTTPException):
    def __init__(self, message: str) -> None:
        super().__init__(410, message)


def _applicant(link: ApplicantLink, fallback: str) -> Principal:
    return Principal(link.email or fallback or f"applicant-link-{link.link_id}", "applicant")


def _portal_context(request: Request, token: str, link: ApplicantLink) -> dict[str, Any]:
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        if link.scope == "permit":
            # A permit's own expiry reminder links here: its dates and how to ask for time.
            row = db.get(PermitClockRow, link.scope_id)
            if row is None:
                raise HTTPException(404, "The permit is no longer available.")
            return {
                "link": link,
                "token": token,
                "project": None,
                "application": None,
                "permit": row,
                "permit_clock": row.clock or {},
                "permit_days_left": (
                    (date.fromisoformat(row.conservative_date) - ctx.today(row.jurisdiction)).days
                    if row.conservative_date
                    else None
                ),
                "files": [],
                "portal_csrf": "",
                "jurisdiction_key": row.jurisdiction,
            }
        if link.scope == "project":
            project = readmodel.project(db, link.scope_id)
            if project is None:
                raise HTTPException(404, "The project is no longer available.")
            rows = readmodel.conditions(db, link.scope_id)
            files = readmodel.evidence_files(db, "project", link.scope_id)
            owed = readmodel.owed(rows)
            return {
                "link": link,
                "token": token,
                "project": project,
                "application": None,
                "permit": None,
                "owed": owed,
                "steps": applicant_steps(project, owed),
                "awaiting": [r for r in rows if r.status in ("submitted", "in_review")],
                "files": [f for f in files if f.link_id == link.link_id],
                "targets": (project.planned or {}).get("milestone_targets") or {},
                "time_limit_clocks": readmodel.project_clocks(db, link.scope_id),
                "portal_csrf": ctx.signer.form_token("portal", link.link_id),
            }
        app = readmodel.application(db, link.scope_id)
        if app is None:
            raise HTTPException(404, "The application is no longer available.")
        events = readmodel.clock_events(db, link.scope_id)
        files = readmodel.evidence_files(db, "application", link.scope_id)
    return {
        "link": link,
        "token": token,
        "project": None,
        "application": app,
        "permit": None,
        "outstanding": readmodel.outstanding_items(app, events),
        "files": [f for f in files if f.link_id == link.link_id],
        "portal_csrf": ctx.signer.form_token("portal", link.link_id),
    }


def applicant_steps(project: Any, owed: list[Any]) -> list[dict[str, Any]]:
    """The applicant's stepper: each milestone in order with what they still owe for it.
    The first step with something owed is "next" (its items come first), even when a
    later milestone's target date is nearer: a step is never "next" while an earlier one
    is still owed."""
    by_milestone: dict[str, list[Any]] = {}
    for c in owed:
        for g in c.gates or ["unspecified"]:
            by_milestone.setdefault(g, []).append(c)
    progress = [p for p in project.milestones or [] if not p.get("monitored")]
    order = [p["milestone"] for p in progress]
    order += [m for m in by_milestone if m not in order]
    signed = {p["milestone"] for p in progress if p.get("signed_off")}
    targets = {p["milestone"]: p.get("target") for p in progress}
    owing = [m for m in order if by_milestone.get(m)]
    current = owing[0] if owing else None
    steps = []
    for m in order:
        items = by_milestone.get(m, [])
        state = "done" if m in signed or not items else "next" if m == current else "later"
        steps.append({"milestone": m, "items": items, "state": state, "target": targets.get(m)})
    return steps


def _portal_page(
    request: Request, token: str, status: int = 200, flash: tuple[str, str] | None = None
) -> HTMLResponse:
    try:
        link = _link(request, token)
    except HTTPException as err:
        return render(request, "portal_closed.html.j2", status=err.status_code, message=err.detail)
    return render(
        request,
        "portal.html.j2",
        status=status,
        flash=flash,
        **_portal_context(request, token, link),
    )


@router.get("/a/{token}", response_class=HTMLResponse)
def portal(request: Request, token: str) -> HTMLResponse:
    return _portal_page(request, token)


async def _portal_form(request: Request, link: ApplicantLink) -> Any:
    form = await request.form()
    ctx = ctx_of(request)
    if not ctx.signer.check_form_token("portal", link.link_id, str(form.get("csrf_token") or "")):
        from web.deps import CsrfRefused

        raise CsrfRefused()
    return form


@router.post("/a/{token}/conditions/{number}/evidence")
async def portal_evidence(request: Request, token: str, number: str) -> Response:
    try:
        link = _link(request, token)
    except HTTPException:
        return _portal_page(request, token)
    form = await _portal_form(request, link)
    ctx = ctx_of(request)
    try:
        if link.scope != "project":
            raise ActionFailed("this link is for an application, not a project", 404)
        with ctx.sessions() as db:
            project = readmodel.project(db, link.scope_id)
            rows = readmodel.conditions(db, link.scope_id)
        owed = {r.number for r in readmodel.owed(rows)}
        if number not in owed:
            raise ActionFailed(f"condition #{number} is not one you owe on this project", 404)
        upload = form.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise ActionFailed("choose the file to upload", 400)
        description = str(form.get("description") or "").strip()
        if not description:
            raise ActionFailed("describe the document (what it is, which item it answers)", 400)
        who = _applicant(link, project.applicant_email if project else "")
        async with staged_upload(
            ctx.settings.data_dir, upload, ctx.settings.max_upload_bytes
        ) as staged:
            await ctx.actions.conditions.submit_evidence_file(
                who,
                link.scope_id,
                number,
                {"description": description, "document_date": form.get("document_date") or ""},
                sha256=staged.sha256,
                size=staged.size,
                filename=staged.filename,
                content_type=staged.content_type,
                link_id=link.link_id,
            )
            staged.keep()
            filename = staged.filename
    except ActionFailed as err:
        return _portal_page(request, token, err.status, ("error", f"Not received: {err.message}"))
    return redirect_with_flash(
        request,
        f"/a/{token}",
        "ok",
        f"Received: {filename} for condition #{number}. The city will review it.",
    )


@router.post("/a/{token}/files")
async def portal_application_file(request: Request, token: str) -> Response:
    """A document for an application (e.g. answering a notice of incompleteness): stored
    for the planner, who records the resubmission when it is complete."""
    try:
        link = _link(request, token)
    except HTTPException:
        return _portal_page(request, token)
    form = await _portal_form(request, link)
    ctx = ctx_of(request)
    try:
        if link.scope != "application":
            raise ActionFailed("this link is for a project: upload under the condition", 404)
        upload = form.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise ActionFailed("choose the file to upload", 400)
        with ctx.sessions() as db:
            app = readmodel.application(db, link.scope_id)
        uploader = _applicant(link, app.applicant_email if app else "").email
        async with staged_upload(
            ctx.settings.data_dir, upload, ctx.settings.max_upload_bytes
        ) as staged:
            record_file(
                ctx.sessions,
                scope="application",
                scope_id=link.scope_id,
                condition_number=str(form.get("item") or "")[:20] or None,
                filename=staged.filename,
                content_type=staged.content_type,
                size=staged.size,
                sha256=staged.sha256,
                uploaded_by=uploader,
                link_id=link.link_id,
            )
            staged.keep()
            filename = staged.filename
        told = await _tell_planner(
            ctx,
            link.scope_id,
            ApplicantUploadInput(
                filename=filename,
                sha256=staged.sha256,
                size=staged.size,
                uploaded_by=uploader,
                uploaded_at=datetime.now(UTC).isoformat(),
                item=str(form.get("item") or "")[:20],
            ),
        )
    except ActionFailed as err:
        return _portal_page(request, token, err.status, ("error", f"Not received: {err.message}"))
    return redirect_with_flash(
        request,
        f"/a/{token}",
        "ok",
        f"Received: {filename}. "
        + ("The planner has been told." if told else "The planner will see it in their list."),
    )


async def _tell_planner(ctx: Any, application_id: str, upload: ApplicantUploadInput) -> bool:
    """E-mail the planner through the clock's workflow (once per file). The upload is
    already stored and listed in the planner's inbox, so a failure here loses nothing."""
    try:
        await ctx.actions.shot_clocks.announce_applicant_upload(application_id, upload)
    except ActionFailed as err:
        log.warning("applicant upload for %s not announced: %s", application_id, err.message)
        return False
    return True
