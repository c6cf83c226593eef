"""A project's conditions: read one with its history (the read model), and act on it:
submit evidence, review, resolve, trigger, correct, reassign. Each write calls `actions.conditions`
(actions/conditions.py), whose method sends the ProjectWorkflow update."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from actions.condition_requests import (
    CorrectCondition,
    ReassignCondition,
    ResolveCondition,
    ReviewCondition,
    SubmitEvidence,
    TriggerCondition,
)
from web.api.deps import ERRORS, User, require_read
from web.api.shapes import condition_json, result_json
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries import readmodel

router = APIRouter()


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


class OwnerBody(BaseModel):
    email: str
    reason: str = ""


class CorrectBody(BaseModel):
    reason: str
    gates: list[str] | None = None
    kind: str | None = None
    department_key: str | None = None


@router.get("/projects/{project_id}/conditions/{number}", responses=ERRORS)
def get_condition(
    request: Request, project_id: str, number: str, user: CurrentUser = User
) -> dict[str, Any]:
    require_read(user)
    with ctx_of(request).sessions() as db:
        row = readmodel.condition(db, project_id, number)
        if row is None:
            raise HTTPException(404, f"no condition #{number} in {project_id!r}")
        history = readmodel.condition_history(db, project_id, number)
    return {
        **condition_json(row),
        "history": [
            {"at": h.at, "actor": h.actor, "role": h.role, "action": h.action, "reason": h.reason}
            for h in history
        ],
    }


@router.post("/projects/{project_id}/conditions/{number}/evidence", responses=ERRORS)
async def submit_evidence(
    request: Request, project_id: str, number: str, body: EvidenceBody, user: CurrentUser = User
):
    return await _act(request, user, project_id, number, SubmitEvidence.permission, body)


@router.post("/projects/{project_id}/conditions/{number}/review", responses=ERRORS)
async def review(
    request: Request, project_id: str, number: str, body: ReviewBody, user: CurrentUser = User
):
    return await _act(request, user, project_id, number, ReviewCondition.permission, body)


@router.post("/projects/{project_id}/conditions/{number}/resolve", responses=ERRORS)
async def resolve(
    request: Request, project_id: str, number: str, body: ResolveBody, user: CurrentUser = User
):
    return await _act(request, user, project_id, number, ResolveCondition.permission, body)


@router.post("/projects/{project_id}/conditions/{number}/trigger", responses=ERRORS)
async def trigger(
    request: Request, project_id: str, number: str, body: ReasonBody, user: CurrentUser = User
):
    return await _act(request, user, project_id, number, TriggerCondition.permission, body)


@router.post("/projects/{project_id}/conditions/{number}/correct", responses=ERRORS)
async def correct(
    request: Request, project_id: str, number: str, body: CorrectBody, user: CurrentUser = User
):
    return await _act(request, user, project_id, number, CorrectCondition.permission, body)


@router.post("/projects/{project_id}/conditions/{number}/owner", responses=ERRORS)
async def reassign(
    request: Request, project_id: str, number: str, body: OwnerBody, user: CurrentUser = User
):
    """Hand the condition to another owner who can log in and review it (condition.reassign)."""
    return await _act(request, user, project_id, number, ReassignCondition.permission, body)


async def _act(
    request: Request,
    user: CurrentUser,
    project_id: str,
    number: str,
    action: str,
    body: BaseModel,
) -> dict[str, Any]:
    """The condition.* `action` from the body: actions.conditions checks the role, reads
    the request and sends the project workflow's update it names."""
    conditions = ctx_of(request).actions.conditions
    result = await conditions.from_fields(
        user.principal, project_id, number, action, body.model_dump()
    )
    return result_json(result)
