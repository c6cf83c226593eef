"""A condition's requests: submit evidence, review, resolve, trigger, correct, reassign.
Each is an
update of its project's workflow (a ProjectRequest), validated when made; the actions are
in actions/conditions.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from actions.errors import ActionFailed, bad
from actions.fields import check_date, text_of
from actions.project_requests import ProjectRequest
from models.conditions import (
    Actor,
    CorrectionInput,
    ReassignConditionInput,
    ResolveInput,
    ReviewInput,
    SubmitEvidenceInput,
    TriggerInput,
)
from rules.access import RESOLUTION_ACTIONS

REVIEW_DECISIONS = ("in_review", "cleared", "returned")


@dataclass(frozen=True, kw_only=True)
class SubmitEvidence(ProjectRequest):
    permission: ClassVar[str] = "condition.submit_evidence"
    update: ClassVar[str] = "submit_evidence"
    number: str
    description: str
    filename: str = ""
    document_date: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "description", text_of(self.description))
        object.__setattr__(self, "filename", text_of(self.filename))
        object.__setattr__(self, "document_date", check_date(self.document_date, "document_date"))

    def payload(self, actor: Actor) -> Any:
        return SubmitEvidenceInput(
            self.number, actor, self.description, self.filename, self.document_date
        )


@dataclass(frozen=True, kw_only=True)
class ReviewCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.review"
    update: ClassVar[str] = "review_condition"
    number: str
    decision: str
    comment: str = ""

    def __post_init__(self) -> None:
        if self.decision not in REVIEW_DECISIONS:
            raise bad(f"decision: one of {', '.join(REVIEW_DECISIONS)}")

    def payload(self, actor: Actor) -> Any:
        return ReviewInput(self.number, actor, self.decision, text_of(self.comment))


@dataclass(frozen=True, kw_only=True)
class ResolveCondition(ProjectRequest):
    """Waive, not applicable, or satisfied by an alternative: each has its own roles."""

    permission: ClassVar[str] = "condition.resolve"
    update: ClassVar[str] = "resolve_condition"
    number: str
    resolution: str
    reason: str

    def __post_init__(self) -> None:
        if self.resolution not in RESOLUTION_ACTIONS:
            raise bad(f"resolution: one of {', '.join(RESOLUTION_ACTIONS)}")

    @property
    def required_permission(self) -> str:
        return RESOLUTION_ACTIONS[self.resolution]

    def payload(self, actor: Actor) -> Any:
        return ResolveInput(self.number, actor, self.resolution, text_of(self.reason))


@dataclass(frozen=True, kw_only=True)
class TriggerCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.trigger"
    update: ClassVar[str] = "trigger_condition"
    number: str
    reason: str

    def payload(self, actor: Actor) -> Any:
        return TriggerInput(self.number, actor, text_of(self.reason))


@dataclass(frozen=True, kw_only=True)
class CorrectCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.correct"
    update: ClassVar[str] = "correct_condition"
    number: str
    reason: str
    gates: list[str] | None = None
    kind: str | None = None
    department_key: str | None = None

    def __post_init__(self) -> None:
        gates: Any = self.gates
        if isinstance(gates, str):
            gates = [g for g in re.split(r"[,\s]+", gates) if g] or None
        object.__setattr__(self, "gates", gates or None)
        object.__setattr__(self, "kind", text_of(self.kind) or None)
        object.__setattr__(self, "department_key", text_of(self.department_key) or None)

    def payload(self, actor: Actor) -> Any:
        return CorrectionInput(
            self.number, actor, text_of(self.reason), self.gates, self.kind, self.department_key
        )


@dataclass(frozen=True, kw_only=True)
class ReassignCondition(ProjectRequest):
    """Hand a condition to another owner. actions.conditions.reassign fills in the
    person's account as it stands (`owner_*`), which the workflow's validator judges."""

    permission: ClassVar[str] = "condition.reassign"
    update: ClassVar[str] = "reassign_condition"
    number: str
    email: str
    reason: str = ""
    owner_role: str = ""
    owner_department: str = ""
    owner_active: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "email", text_of(self.email))
        object.__setattr__(self, "reason", text_of(self.reason))
        if not self.email:
            raise bad("email: whom to hand the condition to")

    def payload(self, actor: Actor) -> Any:
        owner = Actor(self.email, self.owner_role, self.owner_department)
        return ReassignConditionInput(self.number, actor, owner, self.owner_active, self.reason)


def condition_request(
    action: str, project_id: str, number: str, fields: dict[str, Any]
) -> ProjectRequest:
    """The request for a condition.* action from a form's or body's fields."""
    text = lambda key: text_of(fields.get(key))  # noqa: E731
    if action == "condition.submit_evidence":
        return SubmitEvidence(
            project_id=project_id,
            number=number,
            description=text("description"),
            filename=text("filename"),
            document_date=fields.get("document_date"),
        )
    if action == "condition.review":
        return ReviewCondition(
            project_id=project_id,
            number=number,
            decision=text("decision"),
            comment=text("comment"),
        )
    if action in ("condition.resolve", *RESOLUTION_ACTIONS.values()):
        return ResolveCondition(
            project_id=project_id,
            number=number,
            resolution=text("resolution"),
            reason=text("reason"),
        )
    if action == "condition.trigger":
        return TriggerCondition(project_id=project_id, number=number, reason=text("reason"))
    if action == "condition.correct":
        return CorrectCondition(
            project_id=project_id,
            number=number,
            reason=text("reason"),
            gates=fields.get("gates"),
            kind=fields.get("kind"),
            department_key=fields.get("department_key"),
        )
    if action == "condition.reassign":
        return ReassignCondition(
            project_id=project_id, number=number, email=text("email"), reason=text("reason")
        )
    raise ActionFailed(f"there is no action {action!r}", 404)
