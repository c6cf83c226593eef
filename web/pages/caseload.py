"""Importing the existing caseload (docs/onboarding.md): the administrator uploads a CSV
or XLSX file, sees what it will create and each clock's dates (or every error, by row and
column, with a downloadable report), imports it, and follows its progress. Templates of
each file kind are downloadable here. The same through /api/v1/caseload."""

from __future__ import annotations

import asyncio
from datetime import date

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import UploadFile

from actions.caseload_files import KINDS, MAX_CASELOAD_BYTES, CaseloadFileError, template
from actions.errors import ActionFailed
from rules.access import require
from web.auth.accounts import SessionInfo
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, staff_session

router = APIRouter()
PERMISSION = "admin.import"


def _upload_page(
    request: Request,
    session: SessionInfo,
    status: int = 200,
    flash: tuple[str, str] | None = None,
) -> HTMLResponse:
    return render(
        request,
        "caseload_upload.html.j2",
        status=status,
        session=session,
        flash=flash,
        kinds=KINDS,
        max_mb=MAX_CASELOAD_BYTES // (1024 * 1024),
    )


@router.get("/admin/import", response_class=HTMLResponse)
def upload_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    return _upload_page(request, session)


@router.post("/admin/import", response_class=HTMLResponse)
async def preview(request: Request) -> Response:
    session = staff_session(request)
    form = await checked_form(request, session)
    who = session.user.principal
    require(who, PERMISSION)
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        return _upload_page(
            request, session, 400, ("error", "file: choose a CSV or XLSX caseload file")
        )
    data = await upload.read(MAX_CASELOAD_BYTES + 1)
    try:
        # Seconds of CPU for a large file: off the event loop.
        result = await asyncio.to_thread(
            ctx_of(request).actions.caseload.preview, who, upload.filename, data
        )
    except ActionFailed as err:
        return _upload_page(request, session, err.status, ("error", f"file: {err.message}"))
    return render(
        request,
        "caseload_preview.html.j2",
        status=200 if result.plan.ok else 422,
        session=session,
        preview=result.as_dict(),
    )


@router.post("/admin/import/{run_id}/start")
async def start(request: Request, run_id: str) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    who = session.user.principal
    require(who, PERMISSION)
    try:
        ctx_of(request).actions.caseload.start(who, run_id)
    except ActionFailed as err:
        return redirect_with_flash(request, f"/admin/import/{run_id}", "error", err.message)
    return redirect_with_flash(request, f"/admin/import/{run_id}", "ok", "Import started.")


@router.get("/admin/import/{run_id}", response_class=HTMLResponse)
def progress(request: Request, run_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    try:
        status = ctx_of(request).actions.caseload.status(session.user.principal, run_id)
    except ActionFailed as err:
        raise HTTPException(err.status, err.message) from None
    return render(request, "caseload_progress.html.j2", session=session, run=status)


@router.get("/admin/import/{run_id}/errors.csv")
def errors_csv(request: Request, run_id: str) -> Response:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    try:
        name, body = ctx_of(request).actions.caseload.errors_csv(session.user.principal, run_id)
    except ActionFailed as err:
        raise HTTPException(err.status, err.message) from None
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{_safe(name)}"'},
    )


@router.get("/admin/import/templates/{name}")
def template_file(request: Request, name: str) -> Response:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    kind, _, fmt = name.partition(".")
    city = ctx_of(request).actions.city("").key
    try:
        body, media, filename = template(kind, fmt, date.today(), city)
    except CaseloadFileError as err:
        raise HTTPException(404, str(err)) from None
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:120] or "errors.csv"
