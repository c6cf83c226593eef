"""Projects: list and read them (the read model), import a resolution's parse contract as
a project, read its workflow's clearance, blockers and what the applicant owes, plan its
dates, sign off a milestone, send the digest. Each write calls `actions.projects`
(actions/projects.py), whose method sends the ProjectWorkflow update."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, Field

from rules.access import require
from web.api.deps import ERRORS, User, require_read
from web.api.shapes import condition_json, page_json, project_json, result_json
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries import readmodel

router = APIRouter()


class ImportBody(BaseModel):
    project_id: str
    name: str = Field("", description="required for a new project")
    project_manager_email: str = Field("", description="required for a new project")
    applicant_email: str = Field("", description="required for a new project")
    applicant_name: str = ""
    jurisdiction: str = ""
    resolution: dict[str, Any] = Field(
        ..., description="the parse contract (docs/resolutions.md, What a condition becomes)"
    )
    corrections: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description='{"12": {"gates": "building_permit", "time_limits": "none"}}; time limits '
        "as 'expiry 24 months after approval +1x12 months', 'due 30 days after invoice', "
        "'term 60 months', 'until 2027-12-31'",
    )
    existing: bool = Field(False, description="add the conditions to an existing project")
    prefix: str = Field("", description="numbers them apart: 'A-' gives 'A-1'")
    approved_on: str | None = Field(None, description="adoption date, if the parse has none")


class PlanBody(BaseModel):
    groundbreaking: str | None = None
    grading_start: str | None = None
    grading_end: str | None = None
    construction_end: str | None = None
    milestone_targets: dict[str, str] = Field(default_factory=dict)


class DigestBody(BaseModel):
    milestone: str | None = None


class DigestPauseBody(BaseModel):
    paused: bool
    reason: str = ""


@router.get("/projects", responses=ERRORS)
def list_projects(
    request: Request, page: int = Query(1, ge=1), q: str = "", user: CurrentUser = User
) -> dict[str, Any]:
    require_read(user)
    with ctx_of(request).sessions() as db:
        result = readmodel.projects(db, page, q)
    return page_json(result, [project_json(p) for p in result.items])


@router.get("/projects/{project_id}", responses=ERRORS)
def get_project(
    request: Request,
    project_id: str,
    milestone: str = "",
    department: str = "",
    status: str = "",
    q: str = "",
    user: CurrentUser = User,
) -> dict[str, Any]:
    require_read(user)
    with ctx_of(request).sessions() as db:
        project = readmodel.project(db, project_id)
        if project is None:
            raise HTTPException(404, f"no project {project_id!r}")
        rows = readmodel.conditions(db, project_id)
    view = readmodel.project_view(project, rows, milestone, department, status, q)
    shown = {c.number: c for _, groups in view.groups for _, cs in groups for c in cs}
    return {
        **project_json(project),
        "blocking": view.blocking,
        "conditions": [condition_json(c) for c in rows if c.number in shown],
    }


@router.post("/projects", responses=ERRORS, status_code=201)
async def import_project(request: Request, body: ImportBody, user: CurrentUser = User):
    """Import a parsed, reviewed resolution into a new project (its workflow starts)."""
    from actions.project_requests import ImportProject, resolution_from_contract

    require(user.principal, ImportProject.permission)
    fields = body.model_dump()
    fields["resolution"] = resolution_from_contract(body.resolution)
    return await ctx_of(request).actions.projects.import_project(
        user.principal, ImportProject(**fields)
    )


@router.get("/projects/{project_id}/status", responses=ERRORS)
async def project_status(request: Request, project_id: str, user: CurrentUser = User):
    """The project's clearance by milestone, as its workflow holds it now."""
    projects = ctx_of(request).actions.projects
    return {
        **await projects.query(user.principal, project_id, "status_by_milestone"),
        "conditions": await projects.query(user.principal, project_id, "conditions"),
    }


@router.get("/projects/{project_id}/milestones/{milestone}/blockers", responses=ERRORS)
async def project_blockers(
    request: Request, project_id: str, milestone: str, user: CurrentUser = User
) -> list[dict[str, Any]]:
    """What still blocks a milestone, and who must clear it."""
    return await ctx_of(request).actions.projects.query(
        user.principal, project_id, "blockers", milestone
    )


@router.get("/projects/{project_id}/owes", responses=ERRORS)
async def project_owes(request: Request, project_id: str, user: CurrentUser = User):
    """What the applicant still owes."""
    return await ctx_of(request).actions.projects.query(
        user.principal, project_id, "applicant_owes"
    )


@router.post("/projects/{project_id}/milestones/{milestone}/sign-off", responses=ERRORS)
async def sign_off(request: Request, project_id: str, milestone: str, user: CurrentUser = User):
    """Sign off a milestone; refused (409) with the blockers while any is open."""
    result = await ctx_of(request).actions.projects.sign_off(user.principal, project_id, milestone)
    return result_json(result)


@router.post("/projects/{project_id}/plan", responses=ERRORS)
async def plan(request: Request, project_id: str, body: PlanBody, user: CurrentUser = User):
    result = await ctx_of(request).actions.projects.plan(
        user.principal, project_id, body.model_dump()
    )
    return result_json(result)


@router.post("/projects/{project_id}/digest", responses=ERRORS)
async def digest(request: Request, project_id: str, body: DigestBody, user: CurrentUser = User):
    result = await ctx_of(request).actions.projects.digest(
        user.principal, project_id, body.model_dump()
    )
    return result_json(result)


@router.post("/projects/{project_id}/digest-pause", responses=ERRORS)
async def digest_pause(
    request: Request, project_id: str, body: DigestPauseBody, user: CurrentUser = User
):
    """Pause (with a reason) or resume the applicant's weekly and target-date digests.
    Legal notices, due-date reminders and returns with comments are never paused."""
    result = await ctx_of(request).actions.projects.from_fields(
        user.principal, project_id, "project.digest_pause", body.model_dump()
    )
    return result_json(result)
