"""Importing a resolution through the API: upload it and read it (a long PDF in the
background), poll the reading, import the reviewed parse (`actions.projects.
import_project`). The pages doing the same are web/pages/resolutions.py."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from actions.project_requests import ImportProject
from rules.access import require
from rules.conditions.time_limits import COMPACT_FORM
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.deps import api_user
from web.uploads.resolution_import import ImportJob, read_upload

router = APIRouter()


class ReviewedImport(BaseModel):
    project_id: str = Field(..., examples=["UP-25-012"])
    existing: bool = Field(False, description="add to an existing project")
    name: str = ""
    project_manager_email: str = ""
    applicant_email: str = ""
    applicant_name: str = ""
    jurisdiction: str = ""
    prefix: str = Field("", description="numbers the conditions apart, e.g. A- gives A-1")
    approved_on: str | None = Field(None, description="adoption date if the parse found none")
    corrections: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        examples=[{"12": {"gates": "building_permit", "time_limits": "none"}}],
        description=f"number -> gates|kind|department|time_limits; time limits as {COMPACT_FORM}",
    )


def _job_json(job: ImportJob) -> dict[str, Any]:
    out = job.status()
    if job.parsed is not None:
        out["resolution"] = job.parsed.to_contract()
    return out


def _failed(job: ImportJob) -> JSONResponse:
    return JSONResponse({"error": f"{job.filename}: {job.error}; nothing was stored"}, 422)


@router.post("/resolutions", status_code=201)
async def api_upload(request: Request, wait: bool = Query(True)) -> Response:
    """Upload a resolution (multipart `file`, or JSON {"text": ...}) and read it: 201 with
    the parse (conditions, warnings) to review, 202 while a long PDF is read (`wait=false`),
    422 with one sentence for a file that is unreadable, not a resolution or without
    conditions (nothing is stored)."""
    user = api_user(request)
    require(user.principal, "project.import")
    ctx = ctx_of(request)
    if request.headers.get("content-type", "").startswith("application/json"):
        body = await request.json()
        text = str(body.get("text") or "") if isinstance(body, dict) else ""
        data, filename = text.encode("utf-8"), str((body or {}).get("filename") or "resolution")
    else:
        form = await request.form()
        upload_file = form.get("file")
        if not isinstance(upload_file, UploadFile):
            raise ActionFailed("send the resolution as multipart 'file' or JSON {'text'}", 400)
        data, filename = await read_upload(upload_file), upload_file.filename or "resolution"
    job = ctx.imports.start(user.email, filename, data, wait=wait)
    if job.state == "failed":
        ctx.imports.finish(job.job_id)
        return _failed(job)
    return JSONResponse(_job_json(job), status_code=201 if job.state == "ready" else 202)


@router.get("/resolutions/{job_id}")
def api_job(request: Request, job_id: str) -> Response:
    """How far the reading got, and the parse once it is ready."""
    user = api_user(request)
    require(user.principal, "project.import")
    job = ctx_of(request).imports.get(job_id, user.email)
    if job.state == "failed":
        return _failed(job)
    return JSONResponse(_job_json(job))


@router.post("/resolutions/{job_id}/import", status_code=201)
async def api_import(
    request: Request, job_id: str, body: ReviewedImport, user: CurrentUser = User
) -> dict[str, Any]:
    """Import the uploaded resolution with corrections (each audited) into a new project or,
    with `existing`, into an existing one (POST /projects takes a parse contract instead)."""
    ctx = ctx_of(request)
    require(user.principal, ImportProject.permission)
    job = ctx.imports.get(job_id, user.email)
    if job.parsed is None:
        raise ActionFailed("the resolution is still being read: poll GET /resolutions/{id}", 409)
    outcome = await ctx.actions.projects.import_project(
        user.principal, ImportProject(resolution=job.parsed, **body.model_dump())
    )
    ctx.imports.finish(job_id)
    return outcome
