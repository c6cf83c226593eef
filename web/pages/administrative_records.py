"""The administrative record of one clock or project as a PDF (reports/record.py): what a
city attorney files. By session or bearer token, like the other report files."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlalchemy import Engine

from reports import record
from rules.access import require
from web.context import ctx_of
from web.deps import reader

router = APIRouter()


def _pdf(
    request: Request,
    build: Callable[[Engine, str], record.AdministrativeRecord],
    subject_id: str,
) -> Response:
    require(reader(request).principal, "read")
    try:
        found = build(ctx_of(request).engine, subject_id)
    except record.RecordNotFound as err:
        raise HTTPException(404, f"There is {err}.") from None
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", subject_id)
    return Response(
        record.to_pdf(found),
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{safe}-administrative-record.pdf"'},
    )


@router.get("/applications/{application_id}/record.pdf")
def shot_clock_record(request: Request, application_id: str) -> Response:
    return _pdf(request, record.shot_clock_record, application_id)


@router.get("/permits/{clock_id}/record.pdf")
def permit_clock_record(request: Request, clock_id: str) -> Response:
    return _pdf(request, record.permit_clock_record, clock_id)


@router.get("/projects/{project_id}/record.pdf")
def project_record(request: Request, project_id: str) -> Response:
    return _pdf(request, record.project_record, project_id)
