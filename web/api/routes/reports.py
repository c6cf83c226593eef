"""A project's reports as text: milestone clearance, the MMRP table, the audit log."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, HTTPException, Request

from actions.errors import ActionFailed
from web.api.deps import ERRORS, User, require_read
from web.auth.accounts import CurrentUser
from web.context import ctx_of

router = APIRouter()


@router.get("/projects/{project_id}/reports/{kind}", responses=ERRORS)
def project_report(
    request: Request,
    project_id: str,
    kind: Literal["clearance", "mmrp", "audit"],
    format: Literal["html", "csv", "json"] = "html",
    user: CurrentUser = User,
) -> dict[str, str]:
    """A report's text: clearance or mmrp as html or csv, the audit log as json or csv."""
    from reports import audit, clearance, mmrp
    from reports.common import ProjectNotFound

    require_read(user)
    engine = ctx_of(request).engine
    try:
        if kind == "clearance" and format != "json":
            data = clearance.milestone_clearance(engine, project_id)
            body = clearance.render_html(data) if format == "html" else clearance.to_csv(data)
        elif kind == "mmrp" and format != "json":
            table = mmrp.mmrp(engine, project_id)
            body = mmrp.render_html(table) if format == "html" else mmrp.to_csv(table)
        elif kind == "audit" and format != "html":
            export = audit.audit_log(engine, project_id)
            body = audit.to_json(export) if format == "json" else audit.to_csv(export)
        else:
            raise ActionFailed(f"format: {kind} comes as html or csv (audit: json or csv)", 400)
    except (ProjectNotFound, ValueError) as err:
        raise HTTPException(404, str(err) or f"no project {project_id!r}") from None
    return {"kind": kind, "format": format, "body": body}
