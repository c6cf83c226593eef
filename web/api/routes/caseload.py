"""Importing the existing caseload through the API (docs/onboarding.md): preview a file
(multipart `file`), import a clean preview (in the background, or waiting with
`wait=true`), follow its progress, download its error report or a template. The pages
doing the same are web/pages/caseload.py; `clearance import` calls these."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import UploadFile

from actions.caseload_files import MAX_CASELOAD_BYTES, CaseloadFileError, template
from actions.errors import ActionFailed
from rules.access import require
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.deps import api_user

router = APIRouter()
PERMISSION = "admin.import"


@router.post("/caseload/previews", status_code=201)
async def api_preview(request: Request, kind: str = Query("")) -> Response:
    """Check a caseload file whole: 201 with what it will create and each clock's dates,
    or 422 with every error by row and column (nothing is created either way)."""
    user = api_user(request)
    require(user.principal, PERMISSION)
    form = await request.form()
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise ActionFailed("send the caseload file as multipart 'file'", 400)
    data = await upload.read(MAX_CASELOAD_BYTES + 1)
    preview = await asyncio.to_thread(  # seconds of CPU for a large file: off the loop
        ctx_of(request).actions.caseload.preview,
        user.principal,
        upload.filename or "caseload.csv",
        data,
        kind,
    )
    return JSONResponse(preview.as_dict(), status_code=201 if preview.plan.ok else 422)


@router.post("/caseload/imports/{run_id}", status_code=202)
async def api_import(
    request: Request, run_id: str, wait: bool = Query(False), user: CurrentUser = User
) -> Response:
    """Import a clean preview: 202 at once (poll GET), or 200 when done with `wait`."""
    caseload = ctx_of(request).actions.caseload
    if wait:
        return JSONResponse(await caseload.run(user.principal, run_id))
    caseload.start(user.principal, run_id)
    return JSONResponse(caseload.status(user.principal, run_id), status_code=202)


@router.get("/caseload/imports/{run_id}")
def api_status(run_id: str, request: Request, user: CurrentUser = User) -> dict[str, Any]:
    """An import's progress: state, done of total, created and already there."""
    return ctx_of(request).actions.caseload.status(user.principal, run_id)


@router.get("/caseload/imports/{run_id}/errors.csv")
def api_errors(run_id: str, request: Request, user: CurrentUser = User) -> Response:
    """The error report of a preview or an import, as CSV (row, column, error)."""
    name, body = ctx_of(request).actions.caseload.errors_csv(user.principal, run_id)
    return Response(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get("/caseload/templates/{kind}")
def api_template(
    request: Request, kind: str, user: CurrentUser = User, format: str = Query("csv")
) -> Response:
    """The template of a file kind (wireless, permits, projects) as csv or xlsx."""
    require(user.principal, PERMISSION)
    city = ctx_of(request).actions.city("").key
    try:
        body, media, filename = template(kind, format, date.today(), city)
    except CaseloadFileError as err:
        raise ActionFailed(str(err), 404) from None
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
