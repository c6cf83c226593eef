"""A project's actions (`actions.projects`): import a resolution (a new project, or more
conditions for an existing one), plan dates, sign off a milestone, send the digest, and
read a project's state from its ProjectWorkflow's queries. Each request (actions/
project_requests.py) names the workflow update that records it; `send_update` sends it
(a condition's actions, actions/conditions.py, send theirs the same way)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from actions.cities import Cities
from actions.errors import ActionFailed, bad
from actions.project_requests import (
    ImportProject,
    PauseDigests,
    PlanDates,
    ProjectRequest,
    SendDigest,
    SignOffMilestone,
    project_request,
)
from actions.temporal import Gateway
from actions.waiting import wait_for
from models.conditions import ActionResult, Actor
from models.schema import ConditionRow, Project
from rules.access import Principal, require

if TYPE_CHECKING:
    from actions.condition_clocks import ConditionClockActions


def _workflow_id(project_id: str) -> str:
    from models.workflow_ids import project_workflow_id

    return project_workflow_id(project_id)


def actor_of(who: Principal) -> Actor:
    """The workflow's record of who acted: the authenticated account, never a claim."""
    return Actor(who.email, who.role, who.department)


async def send_update(gateway: Gateway, who: Principal, request: ProjectRequest) -> ActionResult:
    """The ProjectWorkflow update the request names (`request.update`), with its payload;
    the workflow's validator decides (its refusal is an ActionFailed in its words)."""
    result: ActionResult = await gateway.update(
        _workflow_id(request.project_id),
        request.update,
        request.payload(actor_of(who)),
        result_type=ActionResult,
        closed=f"project {request.project_id} is finished (every milestone signed off); "
        "nothing was recorded",
    )
    return result


class ProjectActions:
    """`actions.projects`: every action on a project as a whole."""

    def __init__(
        self,
        gateway: Gateway,
        sessions: sessionmaker[Session],
        cities: Cities,
        condition_clocks: ConditionClockActions,
    ) -> None:
        self.gateway = gateway
        self.sessions = sessions
        self.cities = cities
        self.condition_clocks = condition_clocks

    # -- reading --------------------------------------------------------------------------

    async def query(self, who: Principal, project_id: str, name: str, *args: Any) -> Any:
        """One of the project workflow's queries: status_by_milestone, conditions,
        blockers (with a milestone), applicant_owes."""
        require(who, "read")
        if name not in ("status_by_milestone", "conditions", "blockers", "applicant_owes"):
            raise ActionFailed(f"there is no project query {name!r}", 404)
        return await self.gateway.query(
            _workflow_id(project_id), name, *args, result_type=None, missing="no such project"
        )

    # -- acting ---------------------------------------------------------------------------

    async def from_fields(
        self, who: Principal, project_id: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        """The project.* `action` (sign_off, plan, digest) from a form's or body's fields."""
        require(who, action)
        return await self.act(who, project_request(action, project_id, fields))

    async def sign_off(self, who: Principal, project_id: str, milestone: str) -> ActionResult:
        require(who, SignOffMilestone.permission)
        fields = {"milestone": milestone}
        return await self.from_fields(who, project_id, SignOffMilestone.permission, fields)

    async def plan(self, who: Principal, project_id: str, fields: dict[str, Any]) -> ActionResult:
        require(who, PlanDates.permission)
        return await self.from_fields(who, project_id, PlanDates.permission, fields)

    async def digest(self, who: Principal, project_id: str, fields: dict[str, Any]) -> ActionResult:
        require(who, SendDigest.permission)
        return await self.from_fields(who, project_id, SendDigest.permission, fields)

    async def act(self, who: Principal, request: ProjectRequest) -> ActionResult:
        """The role check, then the project workflow's update (`send_update`), then wait
        for the read model to show it."""
        require(who, request.required_permission)
        result = await send_update(self.gateway, who, request)
        if isinstance(request, SignOffMilestone):
            await wait_for(lambda: self._signed_off(request.project_id, request.milestone))
        elif isinstance(request, PlanDates):
            # The next page ranks milestones by these targets: let the read model have them.
            targets = request.milestone_targets
            await wait_for(lambda: self._targets_are(request.project_id, targets))
        elif isinstance(request, PauseDigests):
            await wait_for(lambda: self._digests_paused_is(request.project_id, request.paused))
        return result

    def _digests_paused_is(self, project_id: str, paused: bool) -> bool:
        with self.sessions() as session:
            row = session.get(Project, project_id)
            return row is not None and bool(row.digests_paused) == paused

    def _targets_are(self, project_id: str, targets: dict[str, str]) -> bool:
        with self.sessions() as session:
            row = session.get(Project, project_id)
            have = ((row.planned if row else None) or {}).get("milestone_targets") or {}
            return all(have.get(m) == d for m, d in targets.items())

    def _signed_off(self, project_id: str, milestone: str) -> bool:
        with self.sessions() as session:
            row = session.get(Project, project_id)
            return row is not None and any(
                isinstance(s, dict) and s.get("milestone") == milestone for s in row.signoffs or []
            )

    # -- importing a resolution -------------------------------------------------------------

    async def import_project(self, who: Principal, request: ImportProject) -> dict[str, Any]:
        """Apply the reviewed corrections (each one an audit event), then start the project
        workflow, or hand the conditions to an existing project's workflow
        (`import_conditions`, which refuses numbers it already has); answer once the read
        model shows them. A refusal stores nothing."""
        import copy

        from rules.conditions.onboarding import CorrectionError, apply_corrections, new_project
        from workflows.project import ProjectWorkflow

        require(who, request.permission)
        resolution = copy.deepcopy(request.resolution)  # the caller's parse stays as read
        try:
            notes, departments = apply_corrections(resolution, request.corrections)
        except CorrectionError as err:
            raise bad(str(err)) from None
        if request.prefix:
            from rules.conditions.onboarding import with_prefix

            departments = {f"{request.prefix}{n}": d for n, d in departments.items()}
            notes = [f"#{request.prefix}{n[1:]}" if n.startswith("#") else n for n in notes]
            with_prefix(resolution, request.prefix)
        approved_on = request.approved_on or resolution.adopted
        numbers = [c.number for c in resolution.conditions]
        if request.existing:
            return await self._import_into(
                who, request, resolution, notes, departments, approved_on, numbers
            )
        if self._project_exists(request.project_id):
            raise ActionFailed(
                f"project {request.project_id} already exists: choose another id, or add the "
                "conditions to it as an existing project",
                409,
            )
        city = self.cities.get(request.jurisdiction)
        start = new_project(
            resolution,
            project_id=request.project_id,
            name=request.name,
            city=city,
            applicant_name=request.applicant_name,
            applicant_email=request.applicant_email,
            project_manager_email=request.project_manager_email,
            department_overrides=departments,
            notes=notes,
            imported_by=who.email,
            approved_on=approved_on,
        )
        await self.gateway.start(
            ProjectWorkflow.run,
            start,
            id=_workflow_id(request.project_id),
            exists=f"project {request.project_id} already exists",
        )
        status = await self.query(who, request.project_id, "status_by_milestone")
        await wait_for(lambda: self._project_exists(request.project_id), timeout=30)
        await wait_for(lambda: self._has_conditions(request.project_id, numbers), timeout=30)
        clocks = await self._time_limit_clocks(who, request.project_id, resolution, approved_on)
        return {
            **clocks,
            "project_id": request.project_id,
            "name": request.name,
            "existing": False,
            "conditions": len(start.conditions),
            "corrections": notes,
            "warnings": list(resolution.warnings),
            "approved_on": approved_on,
            "next_milestone": status.get("next_milestone"),
        }

    async def _import_into(
        self,
        who: Principal,
        request: ImportProject,
        resolution: Any,
        notes: list[str],
        departments: dict[str, str],
        approved_on: str | None,
        numbers: list[str],
    ) -> dict[str, Any]:
        from models.conditions import ImportConditionsInput
        from rules.conditions.onboarding import condition_states

        with self.sessions() as session:
            project = session.get(Project, request.project_id)
            name = project.name if project is not None else ""
        if project is None:
            raise ActionFailed(
                f"there is no project {request.project_id} to add the conditions to", 404
            )
        payload = ImportConditionsInput(
            Actor(who.email, who.role, who.department),
            condition_states(resolution, departments, approved_on),
            resolution.title,
            list(resolution.warnings),
            notes,
            approved_on,
        )
        result = await self.gateway.update(
            _workflow_id(request.project_id),
            "import_conditions",  # ProjectWorkflow's update
            payload,
            result_type=ActionResult,
            closed=f"project {request.project_id} is finished (every milestone signed off); "
            "nothing was recorded",
        )
        await wait_for(lambda: self._has_conditions(request.project_id, numbers), timeout=30)
        clocks = await self._time_limit_clocks(who, request.project_id, resolution, approved_on)
        return {
            **clocks,
            "project_id": request.project_id,
            "name": name,
            "existing": True,
            "conditions": len(numbers),
            "corrections": notes,
            "warnings": list(resolution.warnings),
            "approved_on": approved_on,
            "next_milestone": None,
            "message": result.message,
        }

    async def _time_limit_clocks(
        self, who: Principal, project_id: str, resolution: Any, approved_on: str | None
    ) -> dict[str, Any]:
        """Each imported time limit with a known anchor becomes a clock of the project (the
        permit-clock engine's hook, actions/condition_clocks.py); the import stands either
        way, and the answer says which clocks opened and why the others did not."""
        from actions.condition_clock_requests import OpenConditionClocks
        from rules.access import allowed

        limited = [c for c in resolution.conditions if c.time_limits]
        if not limited:
            return {"clocks": [], "clocks_waiting": []}
        if not allowed(who.role, OpenConditionClocks.permission):
            return {
                "clocks": [],
                "clocks_waiting": [
                    {"condition": c.number, "reason": "a project manager opens its clock"}
                    for c in limited
                ],
            }
        anchors = {"approval": approved_on} if approved_on else {}
        try:
            done = await self.condition_clocks.open(
                who,
                OpenConditionClocks(project_id=project_id, conditions=limited, anchors=anchors),
            )
        except ActionFailed as err:
            return {
                "clocks": [],
                "clocks_waiting": [{"condition": "*", "reason": err.message}],
            }
        return {
            "clocks": [*done.opened, *done.already_open],
            "clocks_waiting": [
                {"condition": s.condition_number, "reason": s.reason} for s in done.skipped
            ],
        }

    def _has_conditions(self, project_id: str, numbers: list[str]) -> bool:
        from sqlalchemy import func

        with self.sessions() as session:
            count = session.scalar(
                select(func.count())
                .select_from(ConditionRow)
                .where(ConditionRow.project_id == project_id, ConditionRow.number.in_(numbers))
            )
        return count == len(numbers)

    def _project_exists(self, project_id: str) -> bool:
        with self.sessions() as session:
            return session.get(Project, project_id) is not None
