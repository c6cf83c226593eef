"""A condition's actions (`actions.conditions`): submit evidence (with or without a
stored file), review, resolve, trigger, correct, reassign. Each request (actions/
condition_requests.py) names the update of the condition's ProjectWorkflow that records
it; `act` sends it (actions.projects.send_update) and waits for the read model."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from actions.cities import Cities
from actions.condition_requests import (
    ReassignCondition,
    ResolveCondition,
    SubmitEvidence,
    condition_request,
)
from actions.errors import bad
from actions.owners import account_in_city
from actions.project_requests import ProjectRequest
from actions.projects import send_update
from actions.temporal import Gateway
from actions.waiting import wait_for
from models.conditions import ActionResult
from models.schema import ConditionRow, EvidenceFile, Project
from rules.access import RESOLUTION_ACTIONS, Principal, require


class ConditionActions:
    """`actions.conditions`: every action on one condition of a project."""

    def __init__(self, gateway: Gateway, sessions: sessionmaker[Session], cities: Cities) -> None:
        self.gateway = gateway
        self.sessions = sessions
        self.cities = cities

    # -- from a form or a JSON body ---------------------------------------------------------

    async def from_fields(
        self, who: Principal, project_id: str, number: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        """The condition.* `action` (the permission of a request class in
        actions/condition_requests.py, which names its workflow update) from a form's or a
        body's fields. Resolving checks the chosen resolution's own permission (waive, not
        applicable, satisfied by an alternative each have their own roles)."""
        if action == ResolveCondition.permission:
            resolution = str(fields.get("resolution") or "").strip()
            if resolution not in RESOLUTION_ACTIONS:
                raise bad(f"resolution: one of {', '.join(RESOLUTION_ACTIONS)}")
            require(who, RESOLUTION_ACTIONS[resolution])
        else:
            require(who, action)
        request = condition_request(action, project_id, number, fields)
        if isinstance(request, ReassignCondition):
            return await self.reassign(who, request)
        return await self.act(who, request)

    async def reassign(self, who: Principal, request: ReassignCondition) -> ActionResult:
        """Hand the condition to another owner: the account as it stands goes with the
        update, whose validator refuses someone who cannot log in or cannot review it;
        answer once the read model (the page, the inboxes) has the new owner."""
        require(who, request.permission)
        with self.sessions() as session:
            project = session.get(Project, request.project_id)
        city = project.jurisdiction if project is not None else self.cities.home_key()
        # Their role in the project's city: a reviewer here may be a manager elsewhere.
        owner = account_in_city(self.sessions, request.email, city, self.cities.home_key())
        if owner is not None:
            request = replace(
                request,
                owner_role=owner.role,
                owner_department=owner.department,
                owner_active=owner.active,
            )
        result = await send_update(self.gateway, who, request)
        await wait_for(
            lambda: self._owner_is(request.project_id, request.number, request.email), timeout=10
        )
        return result

    def _owner_is(self, project_id: str, number: str, email: str) -> bool:
        with self.sessions() as session:
            owner = session.scalar(
                select(ConditionRow.owner_email).where(
                    ConditionRow.project_id == project_id, ConditionRow.number == number
                )
            )
        return owner == email

    # -- acting -----------------------------------------------------------------------------

    async def act(self, who: Principal, request: ProjectRequest) -> ActionResult:
        """The role check, then the project workflow's update (`request.update`), whose
        validator decides; then wait for the read model to show the condition's status."""
        require(who, request.required_permission)
        result = await send_update(self.gateway, who, request)
        status = (result.condition or {}).get("status")
        number = getattr(request, "number", None)
        if number is not None:
            await wait_for(lambda: self._condition_is(request.project_id, number, status))
        return result

    def _condition_is(self, project_id: str, number: str, status: Any) -> bool:
        with self.sessions() as session:
            current = session.scalar(
                select(ConditionRow.status).where(
                    ConditionRow.project_id == project_id, ConditionRow.number == number
                )
            )
        return status is None or current == status

    async def submit_evidence_file(
        self,
        who: Principal,
        project_id: str,
        number: str,
        fields: dict[str, Any],
        *,
        sha256: str,
        size: int,
        filename: str,
        content_type: str,
        link_id: str | None = None,
    ) -> ActionResult:
        """Submit evidence with a stored file: the workflow records it (naming the file and
        its sha256), and only an accepted submission gets its evidence_files row."""
        require(who, SubmitEvidence.permission)
        request = condition_request(SubmitEvidence.permission, project_id, number, fields)
        assert isinstance(request, SubmitEvidence)
        result = await self.act(who, replace(request, filename=f"{filename} (sha256 {sha256})"))
        with self.sessions.begin() as session:
            session.add(
                EvidenceFile(
                    scope="project",
                    scope_id=request.project_id,
                    condition_number=request.number,
                    filename=filename,
                    content_type=content_type[:100],
                    size=size,
                    sha256=sha256,
                    uploaded_by=who.email,
                    link_id=link_id,
                    uploaded_at=datetime.now(UTC),
                )
            )
        return result
