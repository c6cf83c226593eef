"""Bulk actions on a selection of conditions (`actions.bulk`): assign or reassign their
reviewer, route them to a department, mark them not applicable with one reason, send
their projects' applicant digests.

Each condition goes through the same request and workflow update as the single action
(actions/condition_requests.py, actions/project_requests.py), so each is checked by the
workflow's validator and recorded in its project's audit trail on its own; one refused
condition does not stop the others, and the outcome lists every one, done or refused,
with the reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from actions.condition_requests import CorrectCondition, ReassignCondition, ResolveCondition
from actions.conditions import ConditionActions
from actions.errors import ActionFailed, bad
from actions.project_requests import SendDigest
from actions.projects import ProjectActions
from models.conditions import NOT_APPLICABLE
from models.schema import User
from rules.access import NotPermitted, Principal, require

# The largest selection one request may act on: each condition is a workflow update.
MAX_SELECTION = 200
BULK_ACTIONS = {
    "assign": "Assign or reassign the reviewer",
    "route": "Route to a department",
    "not_applicable": "Mark not applicable",
    "digest": "Send the applicant digest of their projects",
}


@dataclass(frozen=True)
class Selected:
    project_id: str
    number: str

    @property
    def ref(self) -> str:
        return f"{self.project_id} #{self.number}"

    @classmethod
    def parse(cls, value: str) -> Selected:
        """`PROJECT:NUMBER`, as the selection checkboxes post it."""
        project_id, sep, number = str(value).rpartition(":")
        if not sep or not project_id or not number:
            raise bad(f"selection: {value!r} is not PROJECT:NUMBER")
        return cls(project_id, number)


@dataclass
class BulkOutcome:
    action: str
    done: list[tuple[str, str]] = field(default_factory=list)  # (ref, what happened)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (ref, why)

    def summary(self) -> str:
        label = BULK_ACTIONS[self.action]
        text = f"{label}: {len(self.done)} done"
        if self.refused:
            text += f", {len(self.refused)} refused"
        return text


class BulkActions:
    """`actions.bulk`: one action over many conditions, each on its own."""

    def __init__(self, conditions: ConditionActions, projects: ProjectActions) -> None:
        self.conditions = conditions
        self.projects = projects

    async def run(
        self, who: Principal, action: str, selection: Sequence[str], fields: dict[str, Any]
    ) -> BulkOutcome:
        if action not in BULK_ACTIONS:
            raise bad(f"action: one of {', '.join(BULK_ACTIONS)}")
        require(who, "read")  # then each condition's own action checks its permission
        chosen = list(dict.fromkeys(Selected.parse(s) for s in selection))
        if not chosen:
            raise bad("selection: choose at least one condition")
        if len(chosen) > MAX_SELECTION:
            raise bad(f"selection: at most {MAX_SELECTION} conditions at once")
        reason = str(fields.get("reason") or "").strip()
        if action == "digest":
            return await self._digests(who, chosen)
        if not reason:
            raise bad("reason: say why, once for the whole selection (it is recorded for each)")
        reviewer = ""
        if action == "assign":
            reviewer = self._reviewer(str(fields.get("reviewer") or ""))
        outcome = BulkOutcome(action)
        for item in chosen:
            try:
                if action == "assign":
                    # The same action as one condition's owner form: the workflow's
                    # validator judges the person's account for each condition.
                    result = await self.conditions.reassign(
                        who,
                        ReassignCondition(
                            project_id=item.project_id,
                            number=item.number,
                            email=reviewer,
                            reason=reason,
                        ),
                    )
                    if result.ok:
                        outcome.done.append((item.ref, f"handed to {reviewer}"))
                    else:
                        outcome.refused.append((item.ref, result.message))
                    continue
                if action == "route":
                    department = str(fields.get("department") or "").strip()
                    if not department:
                        raise bad("department: choose the department to route them to")
                    request: Any = CorrectCondition(
                        project_id=item.project_id,
                        number=item.number,
                        reason=reason,
                        department_key=department,
                    )
                    done = f"routed to {department}"
                else:
                    request = ResolveCondition(
                        project_id=item.project_id,
                        number=item.number,
                        resolution=NOT_APPLICABLE,
                        reason=reason,
                    )
                    done = "marked not applicable"
                result = await self.conditions.act(who, request)
                if result.ok:
                    outcome.done.append((item.ref, done))
                else:
                    outcome.refused.append((item.ref, result.message))
            except NotPermitted as err:
                outcome.refused.append((item.ref, f"not permitted: {err}"))
            except ActionFailed as err:
                if err.status >= 500:
                    raise  # Temporal unreachable: nothing more can be done, say so once
                outcome.refused.append((item.ref, err.message))
        return outcome

    def _reviewer(self, email: str) -> str:
        """An active department reviewer's (or administrator's) address: the owner the
        selected conditions are handed to."""
        email = email.strip().lower()
        if not email:
            raise bad("reviewer: whom to hand the conditions to")
        with self.conditions.sessions() as session:
            user = session.scalar(select(User).where(User.email == email))
        if user is None or not user.active:
            raise bad(f"reviewer: there is no active user {email!r}")
        if user.role not in ("department_reviewer", "admin"):
            raise bad(f"reviewer: {email} is not a department reviewer")
        return email

    async def _digests(self, who: Principal, chosen: list[Selected]) -> BulkOutcome:
        require(who, SendDigest.permission)
        outcome = BulkOutcome("digest")
        for project_id in dict.fromkeys(item.project_id for item in chosen):
            try:
                result = await self.projects.act(who, SendDigest(project_id=project_id))
                if result.ok:
                    outcome.done.append((project_id, result.message or "digest sent"))
                else:
                    outcome.refused.append((project_id, result.message))
            except ActionFailed as err:
                if err.status >= 500:
                    raise
                outcome.refused.append((project_id, err.message))
        return outcome
