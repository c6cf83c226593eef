"""Importing a resolution: upload (text or PDF), progress while a long PDF is read, the
review table with every warning and the corrections, then the import into a new or an
existing project. Pages under /projects/import, the same under /api/v1/resolutions."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from actions.project_requests import ImportProject
from models.conditions import KINDS, ParsedResolution
from rules.access import require
from rules.conditions.lifecycle import DEPARTMENTS, department_key
from rules.conditions.onboarding import milestone_keys
from rules.conditions.review import review_order
from rules.conditions.time_limits import COMPACT_FORM, compact, describe
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session
from web.queries.jurisdictions import jurisdiction_options
from web.uploads.resolution_import import ImportJob, changed_corrections, read_upload

router = APIRouter()
_ROW = re.compile(r"^c-(\d+)-(number|gates|kind|department|time_limits)$")


def _rows(parsed: ParsedResolution) -> list[dict[str, Any]]:
    """The review table: each condition with its warnings and correctable values."""
    warned: dict[str, list[str]] = {}
    for w in parsed.warnings:
        m = re.match(r"^Conditions? ([^\s:]+(?: \(\d+\))?)(?::| and)", w)
        if m:
            warned.setdefault(m.group(1), []).append(w)
        m2 = re.match(r"^Conditions \S+ and (\S+) look like", w)
        if m2:
            warned.setdefault(m2.group(1), []).append(w)
    rows = []
    position = {id(c): i for i, c in enumerate(parsed.conditions)}
    # Low-confidence and warned conditions first: where a reviewer's attention pays.
    for c in review_order(parsed.conditions):
        i = position[id(c)]
        rows.append(
            {
                "i": i,
                "c": c,
                "department_key": "environmental" if c.code else department_key(c.department),
                "time_limits": "; ".join(compact(t) for t in c.time_limits),
                "time_limit_lines": [describe(t) for t in c.time_limits],
                "warnings": list(
                    dict.fromkeys([*c.warnings, *warned.get(c.number, [])])
                    if c.warnings
                    else warned.get(c.number, [])
                ),
            }
        )
    return rows


def _general_warnings(parsed: ParsedResolution) -> list[str]:
    return [w for w in parsed.warnings if not w.startswith(("Condition ", "Conditions "))]


def _review_values(
    request: Request, job: ImportJob, form: dict[str, Any] | None = None
) -> dict[str, Any]:
    parsed = job.parsed
    assert parsed is not None
    return {
        "job": job,
        "parsed": parsed,
        "rows": _rows(parsed),
        "general_warnings": _general_warnings(parsed),
        "milestones": milestone_keys(),
        "kinds": KINDS,
        "departments": DEPARTMENTS,
        "jurisdiction_options": jurisdiction_options(ctx_of(request).actions, cities_only=True),
        "default_jurisdiction": ctx_of(request).actions.city("").key,
        "compact_form": COMPACT_FORM,
        "form": form or {},
        "unspecified": sum(1 for c in parsed.conditions if c.gates == ["unspecified"]),
        "flagged": sum(1 for c in parsed.conditions if c.confidence != "high" or c.warnings),
    }


def corrections_from_form(form: dict[str, Any]) -> dict[str, dict[str, str]]:
    """{number: {field: value}} from the review table's c-<row>-<field> inputs."""
    rows: dict[str, dict[str, str]] = {}
    for key, value in form.items():
        m = _ROW.match(key)
        if m:
            rows.setdefault(m.group(1), {})[m.group(2)] = str(value)
    out: dict[str, dict[str, str]] = {}
    for fields in rows.values():
        number = fields.pop("number", "")
        if number:
            out[number] = fields
    return out


def _request(parsed: ParsedResolution, form: dict[str, Any]) -> ImportProject:
    """The action layer's import request from the review form (bad fields raise 400)."""
    text = lambda k: str(form.get(k) or "").strip()  # noqa: E731
    existing = text("target") == "existing"
    return ImportProject(
        project_id=text("existing_project_id") if existing else text("project_id"),
        resolution=parsed,
        existing=existing,
        name=text("name"),
        project_manager_email=text("project_manager_email"),
        applicant_email=text("applicant_email"),
        applicant_name=text("applicant_name"),
        jurisdiction=text("jurisdiction"),
        prefix=text("prefix"),
        approved_on=text("approved_on") or None,
        corrections=changed_corrections(parsed, corrections_from_form(form)),
    )


# -- pages --------------------------------------------------------------------------------------


@router.get("/projects/import", response_class=HTMLResponse)
def upload_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "project.import")
    return render(request, "resolution_upload.html.j2", session=session, values={})


@router.post("/projects/import")
async def upload(request: Request) -> Response:
    session = staff_session(request)
    form = await checked_form(request, session)
    require(session.user.principal, "project.import")
    ctx = ctx_of(request)
    pasted = str(form.get("text") or "")
    try:
        upload_file = form.get("file")
        if isinstance(upload_file, UploadFile) and upload_file.filename:
            data, filename = await read_upload(upload_file), upload_file.filename
        elif pasted.strip():
            data, filename = pasted.encode("utf-8"), "pasted resolution.txt"
        else:
            raise ActionFailed("choose a resolution file (text or PDF) or paste its text", 400)
        job = ctx.imports.start(session.user.email, filename, data)
    except ActionFailed as err:
        return render(
            request,
            "resolution_upload.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Not read: {err.message}"),
            values={"text": pasted},
        )
    return redirect_with_flash(
        request, f"/projects/import/{job.job_id}", "ok", f"Reading {job.filename}."
    )


@router.get("/projects/import/{job_id}", response_class=HTMLResponse)
def review_page(request: Request, job_id: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "project.import")
    ctx = ctx_of(request)
    job = ctx.imports.get(job_id, session.user.email)
    if job.state == "reading":
        return render(request, "resolution_progress.html.j2", session=session, job=job)
    if job.state == "failed":
        ctx.imports.finish(job_id)
        return render(
            request,
            "resolution_upload.html.j2",
            status=422,
            session=session,
            flash=("error", f"Not read: {job.filename}: {job.error}. Nothing was stored."),
            values={},
        )
    return render(
        request, "resolution_review.html.j2", session=session, **_review_values(request, job)
    )


@router.post("/projects/import/{job_id}")
async def confirm(request: Request, job_id: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    ctx = ctx_of(request)
    job = ctx.imports.get(job_id, session.user.email)
    if job.parsed is None:
        raise ActionFailed("the resolution is still being read: wait for the review table", 409)
    require(session.user.principal, ImportProject.permission)
    try:
        outcome = await ctx.actions.projects.import_project(
            session.user.principal, _request(job.parsed, form)
        )
    except ActionFailed as err:
        return render(
            request,
            "resolution_review.html.j2",
            status=err.status,
            session=session,
            flash=("error", f"Not imported: {_plain(err.message)}"),
            **_review_values(request, job, form),
        )
    ctx.imports.finish(job_id)
    corrected = f", {len(outcome['corrections'])} corrected" if outcome["corrections"] else ""
    return redirect_with_flash(
        request,
        f"/projects/{outcome['project_id']}",
        "ok",
        f"Imported {outcome['conditions']} conditions into {outcome['project_id']}{corrected}.",
    )


def _plain(message: str) -> str:
    """The corrections' messages name the CLI's --set; on a page they are corrections."""
    return message.replace("--set ", "correction ").replace("--set", "correction")
