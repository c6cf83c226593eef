"""The JSON API, /api/v1/: the same actions and reads as the pages, the same roles.

Authenticate with `Authorization: Bearer <token>` (`clearance users token EMAIL`) or the
session cookie plus an `X-CSRF-Token` header on writes. Errors are {"error": "..."}:
400 bad input, 401 not logged in, 403 not permitted, 404 unknown, 409 refused by the
workflow's rules, 503 Temporal unreachable.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field

from actions.errors import ActionFailed
from rules.access import require
from rules.conditions.lifecycle import DEPARTMENTS
from web import readmodel
from web.accounts import AccountError, CurrentUser, aware, link_state
from web.context import ctx_of, require_public_url
from web.deps import api_user
from web.inbox import inbox_for

router = APIRouter(prefix="/api/v1", tags=["api"])
User = Depends(api_user)


class Error(BaseModel):
    error: str


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error} for code in (400, 401, 403, 404, 409, 503)
}


# -- bodies -------------------------------------------------------------------------------------


class OpenBody(BaseModel):
    application_id: str = Field(..., examples=["WTF-2026-014"])
    planner_email: str = Field(..., examples=["planner@city.example"])
    category: str | None = Field(None, examples=["macro_collocation"])
    batch: list[str] = Field(default_factory=list, description="an SWF batch: each site's")
    jurisdiction: str = Field("", description="default: the deployment's jurisdiction")
    submitted: str | None = Field(None, description="YYYY-MM-DD; default today in the city")
    pre_application: str | None = None
    site_address: str = ""
    description: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    supervisor_email: str = Field("", description="default: the jurisdiction's")
    attorney_email: str = Field("", description="default: the jurisdiction's")
    reminder_offsets: list[int] | None = Field(None, description="default: the jurisdiction's")


class ImportBody(BaseModel):
    project_id: str
    name: str = Field("", description="required for a new project")
    project_manager_email: str = Field("", description="required for a new project")
    applicant_email: str = Field("", description="required for a new project")
    applicant_name: str = ""
    jurisdiction: str = ""
    resolution: dict[str, Any] = Field(..., description="the parse contract (conditions.md §6)")
    corrections: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description='{"12": {"gates": "building_permit", "time_limits": "none"}}; time limits '
        "as 'expiry 24 months after approval +1x12 months', 'due 30 days after invoice', "
        "'term 60 months', 'until 2027-12-31'",
    )
    existing: bool = Field(False, description="add the conditions to an existing project")
    prefix: str = Field("", description="numbers them apart: 'A-' gives 'A-1'")
    approved_on: str | None = Field(None, description="adoption date, if the parse has none")


class Dated(BaseModel):
    date: str | None = Field(None, description="YYYY-MM-DD; default today in the city")
    note: str = ""


class Item(BaseModel):
    id: str = Field(..., examples=["A"])
    text: str = Field(..., examples=["RF emissions compliance report"])
    rule: str = Field(..., examples=["CMC 17.44.070(A)"])


class NoticeBody(Dated):
    items: list[Item]


class TollingBody(Dated):
    days: int | None = None
    new_date: str | None = None


class DecisionBody(Dated):
    outcome: Literal["approved", "approved_with_conditions", "denied"]


class KindBody(Dated):
    kind: str = Field(..., description="applicant notice or non-tolling event kind")


class ClosureBody(BaseModel):
    date: str


class RebaseBody(BaseModel):
    reason: str = Field(..., description="why the clock is rebased (goes into the ledger)")
    date: str | None = Field(None, description="the day recorded (default: today)")


class EvidenceBody(BaseModel):
    description: str
    filename: str = ""
    document_date: str | None = None


class ReviewBody(BaseModel):
    decision: Literal["in_review", "cleared", "returned"]
    comment: str = ""


class ResolveBody(BaseModel):
    resolution: Literal["waived", "not_applicable", "satisfied_by_alternative"]
    reason: str


class ReasonBody(BaseModel):
    reason: str


class CorrectBody(BaseModel):
    reason: str
    gates: list[str] | None = None
    kind: str | None = None
    department_key: str | None = None


class PlanBody(BaseModel):
    groundbreaking: str | None = None
    grading_start: str | None = None
    grading_end: str | None = None
    construction_end: str | None = None
    milestone_targets: dict[str, str] = Field(default_factory=dict)


class DigestBody(BaseModel):
    milestone: str | None = None


class LinkBody(BaseModel):
    scope: Literal["project", "application"]
    scope_id: str
    email: str = ""


# -- reads --------------------------------------------------------------------------------------


def _read(user: CurrentUser) -> None:
    require(user.principal, "read")


@router.get("/me")
def me(user: CurrentUser = User) -> dict[str, Any]:
    return dataclasses.asdict(user)


@router.get("/inbox", responses=ERRORS)
def inbox(request: Request, user: CurrentUser = User) -> dict[str, Any]:
    """What needs this user, earliest date first: each item's next action and why."""
    _read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        result = inbox_for(db, user.role, user.email, user.department, ctx.today(), ctx.time_zone())
    return result.to_json()


@router.get("/applications", responses=ERRORS)
def list_applications(
    request: Request,
    page: int = Query(1, ge=1),
    closed: bool = False,
    full: bool = Query(False, description="also each clock's compute contract"),
    user: CurrentUser = User,
) -> dict[str, Any]:
    _read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        result = readmodel.clocks(db, ctx.today, page, closed=closed)
        items = [c.to_json() for c in result.items]
        if full:
            for item in items:
                row = readmodel.application(db, item["application_id"])
                item["jurisdiction"] = row.jurisdiction if row else ""
                item["risk_flagged"] = bool(row and row.risk_flagged)
                item["clock"] = row.clock if row else {}
    return _page(result, items)


def _page(page: readmodel.Page, items: list[Any]) -> dict[str, Any]:
    return {"items": items, "page": page.page, "pages": page.pages, "total": page.total}


@router.get("/applications/{application_id}", responses=ERRORS)
def get_application(request: Request, application_id: str, user: CurrentUser = User) -> Any:
    _read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        row = readmodel.application(db, application_id)
        if row is None:
            raise HTTPException(404, f"no application {application_id!r}")
        events = readmodel.clock_events(db, application_id)
    return {
        **readmodel.clock_line(row, ctx.today).to_json(),
        "clock": row.clock,
        "events": [
            {
                "event_id": e.event_id,
                "type": e.type,
                "date": e.date,
                "payload": e.payload,
                "recorded_by": e.recorded_by,
                "note": e.note,
            }
            for e in events
        ],
    }


@router.get("/projects", responses=ERRORS)
def list_projects(
    request: Request, page: int = Query(1, ge=1), q: str = "", user: CurrentUser = User
) -> dict[str, Any]:
    _read(user)
    with ctx_of(request).sessions() as db:
        result = readmodel.projects(db, page, q)
    return _page(result, [_project(p) for p in result.items])


def _project(p: Any) -> dict[str, Any]:
    return {
        "project_id": p.project_id,
        "name": p.name,
        "jurisdiction": p.jurisdiction,
        "next_milestone": p.next_milestone,
        "next_milestone_blockers": p.next_milestone_blockers,
        "next_milestone_target": p.urgent_target,
        "milestones": p.milestones,
        "open_conditions": p.open_conditions,
        "planned": p.planned,
        "signoffs": p.signoffs,
    }


def _condition(c: Any) -> dict[str, Any]:
    return {
        "number": c.number,
        "code": c.code,
        "department_key": c.department_key,
        "text": c.text,
        "gates": c.gates,
        "kind": c.kind,
        "status": c.status,
        "triggered": c.triggered,
        "evidence": c.evidence,
        "comments": c.comments,
    }


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
    _read(user)
    with ctx_of(request).sessions() as db:
        project = readmodel.project(db, project_id)
        if project is None:
            raise HTTPException(404, f"no project {project_id!r}")
        rows = readmodel.conditions(db, project_id)
    view = readmodel.project_view(project, rows, milestone, department, status, q)
    shown = {c.number: c for _, groups in view.groups for _, cs in groups for c in cs}
    return {
        **_project(project),
        "blocking": view.blocking,
        "conditions": [_condition(c) for c in rows if c.number in shown],
    }


@router.get("/projects/{project_id}/conditions/{number}", responses=ERRORS)
def get_condition(
    request: Request, project_id: str, number: str, user: CurrentUser = User
) -> dict[str, Any]:
    _read(user)
    with ctx_of(request).sessions() as db:
        row = readmodel.condition(db, project_id, number)
        if row is None:
            raise HTTPException(404, f"no condition #{number} in {project_id!r}")
        history = readmodel.condition_history(db, project_id, number)
    return {
        **_condition(row),
        "history": [
            {"at": h.at, "actor": h.actor, "role": h.role, "action": h.action, "reason": h.reason}
            for h in history
        ],
    }


@router.get("/queues/{department}", responses=ERRORS)
def queue(
    request: Request, department: str, page: int = Query(1, ge=1), user: CurrentUser = User
) -> dict[str, Any]:
    _read(user)
    if department not in DEPARTMENTS:
        raise HTTPException(404, f"no department {department!r}")
    with ctx_of(request).sessions() as db:
        result = readmodel.review_queue(db, department, page)
    return _page(result, result.items)


@router.get("/outbox", responses=ERRORS)
def outbox(
    request: Request, page: int = Query(1, ge=1), state: str = "", user: CurrentUser = User
) -> dict[str, Any]:
    _read(user)
    with ctx_of(request).sessions() as db:
        result = readmodel.outbox(db, page, state)
    items = [
        {**n, "created_at": str(n["created_at"]), "delivered_at": str(n["delivered_at"] or "")}
        for n in result.items
    ]
    return _page(result, items)


# -- application actions ---------------------------------------------------------------------------


@router.post("/applications", responses=ERRORS, status_code=201)
async def open_application(request: Request, body: OpenBody, user: CurrentUser = User):
    """Open a wireless application: its shot clock starts (refused, 400, on bad input)."""
    summary = await ctx_of(request).actions.open_from_fields(user.principal, body.model_dump())
    return {"application_id": summary.application.application_id, "clock": summary.clock}


@router.get("/applications/{application_id}/summary", responses=ERRORS)
async def application_summary(
    request: Request, application_id: str, user: CurrentUser = User
) -> dict[str, Any]:
    """The clock as its workflow holds it now (application, events, clock contract)."""
    summary = await ctx_of(request).actions.clock_summary(user.principal, application_id)
    return dataclasses.asdict(summary)


async def _clock(request: Request, user: CurrentUser, app_id: str, action: str, body: Any) -> Any:
    result = await ctx_of(request).actions.clock_action(
        user.principal, app_id, action, body.model_dump()
    )
    return {"event_id": result.event_id, "clock": result.clock}


@router.post("/applications/{application_id}/notice", responses=ERRORS)
async def notice(request: Request, application_id: str, body: NoticeBody, user: CurrentUser = User):
    """Record a notice of incompleteness (the letter goes to the applicant)."""
    return await _clock(request, user, application_id, "clock.notice", body)


@router.post("/applications/{application_id}/notice/preview", responses=ERRORS)
async def notice_preview(
    request: Request, application_id: str, body: NoticeBody, user: CurrentUser = User
) -> dict[str, Any]:
    """The letter and the new dates, without recording anything; refused like the send."""
    return await ctx_of(request).actions.preview_notice(
        user.principal, application_id, body.model_dump()
    )


@router.post("/applications/{application_id}/resubmission", responses=ERRORS)
async def resubmission(
    request: Request, application_id: str, body: Dated, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.resubmission", body)


@router.post("/applications/{application_id}/tolling-agreement", responses=ERRORS)
async def tolling(
    request: Request, application_id: str, body: TollingBody, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.tolling_agreement", body)


@router.post("/applications/{application_id}/decision", responses=ERRORS)
async def decision(
    request: Request, application_id: str, body: DecisionBody, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.decision", body)


@router.post("/applications/{application_id}/withdrawal", responses=ERRORS)
async def withdrawal(request: Request, application_id: str, body: Dated, user: CurrentUser = User):
    return await _clock(request, user, application_id, "clock.withdrawal", body)


@router.post("/applications/{application_id}/applicant-notice", responses=ERRORS)
async def applicant_notice(
    request: Request, application_id: str, body: KindBody, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.applicant_notice", body)


@router.post("/applications/{application_id}/non-tolling-event", responses=ERRORS)
async def non_tolling(
    request: Request, application_id: str, body: KindBody, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.non_tolling_event", body)


@router.post("/applications/{application_id}/closures", responses=ERRORS)
async def closure(
    request: Request, application_id: str, body: ClosureBody, user: CurrentUser = User
):
    return await _clock(request, user, application_id, "clock.closure", body)


@router.post("/applications/{application_id}/rebase", responses=ERRORS)
async def rebase(request: Request, application_id: str, body: RebaseBody, user: CurrentUser = User):
    """Apply the current rule pack and calendar layers to a running clock (administrator
    only); the ledger records what moved and why (shot-clocks.md 8.9)."""
    return await _clock(request, user, application_id, "clock.rebase", body)


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

    _read(user)
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


# -- project actions -------------------------------------------------------------------------------


@router.post("/projects", responses=ERRORS, status_code=201)
async def import_project(request: Request, body: ImportBody, user: CurrentUser = User):
    """Import a parsed, reviewed resolution into a new project (its workflow starts)."""
    from actions.requests import ImportProject, resolution_from_contract

    require(user.principal, ImportProject.permission)
    fields = body.model_dump()
    fields["resolution"] = resolution_from_contract(body.resolution)
    return await ctx_of(request).actions.import_project(user.principal, ImportProject(**fields))


@router.get("/projects/{project_id}/status", responses=ERRORS)
async def project_status(request: Request, project_id: str, user: CurrentUser = User):
    """The project's clearance by milestone, as its workflow holds it now."""
    actions = ctx_of(request).actions
    return {
        **await actions.project_query(user.principal, project_id, "status_by_milestone"),
        "conditions": await actions.project_query(user.principal, project_id, "conditions"),
    }


@router.get("/projects/{project_id}/milestones/{milestone}/blockers", responses=ERRORS)
async def project_blockers(
    request: Request, project_id: str, milestone: str, user: CurrentUser = User
) -> list[dict[str, Any]]:
    """What still blocks a milestone, and who must clear it."""
    return await ctx_of(request).actions.project_query(
        user.principal, project_id, "blockers", milestone
    )


@router.get("/projects/{project_id}/owes", responses=ERRORS)
async def project_owes(request: Request, project_id: str, user: CurrentUser = User):
    """What the applicant still owes."""
    return await ctx_of(request).actions.project_query(user.principal, project_id, "applicant_owes")


def _result(result: Any) -> dict[str, Any]:
    return {"ok": result.ok, "message": result.message, "condition": result.condition}


async def _cond(request: Request, user: CurrentUser, pid: str, n: str, action: str, body: Any):
    return _result(
        await ctx_of(request).actions.condition_action(
            user.principal, pid, n, action, body.model_dump()
        )
    )


@router.post("/projects/{project_id}/conditions/{number}/evidence", responses=ERRORS)
async def submit_evidence(
    request: Request, project_id: str, number: str, body: EvidenceBody, user: CurrentUser = User
):
    return await _cond(request, user, project_id, number, "condition.submit_evidence", body)


@router.post("/projects/{project_id}/conditions/{number}/review", responses=ERRORS)
async def review(
    request: Request, project_id: str, number: str, body: ReviewBody, user: CurrentUser = User
):
    return await _cond(request, user, project_id, number, "condition.review", body)


@router.post("/projects/{project_id}/conditions/{number}/resolve", responses=ERRORS)
async def resolve(
    request: Request, project_id: str, number: str, body: ResolveBody, user: CurrentUser = User
):
    return await _cond(request, user, project_id, number, "condition.resolve", body)


@router.post("/projects/{project_id}/conditions/{number}/trigger", responses=ERRORS)
async def trigger(
    request: Request, project_id: str, number: str, body: ReasonBody, user: CurrentUser = User
):
    return await _cond(request, user, project_id, number, "condition.trigger", body)


@router.post("/projects/{project_id}/conditions/{number}/correct", responses=ERRORS)
async def correct(
    request: Request, project_id: str, number: str, body: CorrectBody, user: CurrentUser = User
):
    return await _cond(request, user, project_id, number, "condition.correct", body)


@router.post("/projects/{project_id}/milestones/{milestone}/sign-off", responses=ERRORS)
async def sign_off(request: Request, project_id: str, milestone: str, user: CurrentUser = User):
    """Sign off a milestone; refused (409) with the blockers while any is open."""
    result = await ctx_of(request).actions.project_action(
        user.principal, project_id, "project.sign_off", {"milestone": milestone}
    )
    return _result(result)


@router.post("/projects/{project_id}/plan", responses=ERRORS)
async def plan(request: Request, project_id: str, body: PlanBody, user: CurrentUser = User):
    result = await ctx_of(request).actions.project_action(
        user.principal, project_id, "project.plan", body.model_dump()
    )
    return _result(result)


@router.post("/projects/{project_id}/digest", responses=ERRORS)
async def digest(request: Request, project_id: str, body: DigestBody, user: CurrentUser = User):
    result = await ctx_of(request).actions.project_action(
        user.principal, project_id, "project.digest", body.model_dump()
    )
    return _result(result)


# -- applicant links -------------------------------------------------------------------------------


def _link_json(request: Request, link: Any) -> dict[str, Any]:
    ctx = ctx_of(request)
    return {
        "link_id": link.link_id,
        "scope": link.scope,
        "scope_id": link.scope_id,
        "email": link.email,
        "state": link_state(link),
        "expires_at": aware(link.expires_at).isoformat(),
        "url": f"{ctx.settings.public_url.rstrip('/')}/a/{ctx.signer.link_token(link.link_id)}",
    }


@router.post("/links", responses=ERRORS, status_code=201)
def create_link(request: Request, body: LinkBody, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "link.create")
    ctx = ctx_of(request)
    require_public_url(ctx.settings)
    try:
        link = ctx.accounts.create_link(
            body.scope, body.scope_id, user.email, ctx.settings.applicant_link_days, body.email
        )
    except AccountError as err:
        raise ActionFailed(str(err), 400) from None
    return _link_json(request, link)


@router.post("/links/{link_id}/revoke", responses=ERRORS)
def revoke_link(request: Request, link_id: str, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "link.revoke")
    try:
        link = ctx_of(request).accounts.revoke_link(link_id, user.email)
    except AccountError as err:
        raise ActionFailed(str(err), 404) from None
    return _link_json(request, link)
