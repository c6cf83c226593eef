"""`Actions`: the action layer's object, holding the Temporal gateway and the database
session factory; plus the adapters pages and API routes use to act from a form's or a
JSON body's fields (the role check always comes first, then the input is read)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from actions.clocks import ClockActions, ClosureOutcome
from actions.condition_clocks import ConditionClockActions
from actions.errors import ActionFailed, bad
from actions.permit_clocks import PermitActions
from actions.projects import ProjectActions
from actions.requests import (
    CLOCK_REQUESTS,
    RecordNotice,
    SubmitEvidence,
    clock_request,
    condition_request,
    open_request,
    parse_items,
    project_request,
)
from actions.temporal import Gateway
from models.conditions import ActionResult
from models.database import session_factory
from models.shot_clock import ClockSummary, ClockUpdateResult
from rules.access import RESOLUTION_ACTIONS, Principal, require
from rules.kernel.jurisdictions import add_jurisdictions
from settings import Settings

__all__ = ["ActionFailed", "Actions", "ClosureOutcome", "Gateway", "bad"]


class Actions(ClockActions, ProjectActions, PermitActions, ConditionClockActions):
    def __init__(self, settings: Settings, engine: Engine, gateway: Gateway) -> None:
        self.settings = settings
        self.engine = engine
        self.gateway = gateway
        self.sessions = session_factory(engine)
        # A city's own jurisdiction files, beside the shipped ones.
        add_jurisdictions(settings.jurisdictions_dir)

    # -- from a form or a JSON body --------------------------------------------------------

    async def open_from_fields(self, who: Principal, fields: dict[str, Any]) -> ClockSummary:
        require(who, "clock.open")
        return await self.open_application(who, open_request(fields))

    async def clock_action(
        self, who: Principal, application_id: str, action: str, fields: dict[str, Any]
    ) -> ClockUpdateResult:
        if action not in CLOCK_REQUESTS:
            raise bad(f"unknown action {action!r}")
        require(who, action)
        return await self.record(who, clock_request(action, application_id, fields))

    async def preview_notice(
        self, who: Principal, application_id: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        require(who, RecordNotice.permission)
        if not parse_items(fields.get("items")):
            raise bad("pick at least one missing item, each with the rule that requires it")
        request = clock_request(RecordNotice.permission, application_id, fields)
        assert isinstance(request, RecordNotice)
        return await self.preview(who, request)

    async def condition_action(
        self, who: Principal, project_id: str, number: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        if action == "condition.resolve":
            resolution = str(fields.get("resolution") or "").strip()
            if resolution not in RESOLUTION_ACTIONS:
                raise bad(f"resolution: one of {', '.join(RESOLUTION_ACTIONS)}")
            require(who, RESOLUTION_ACTIONS[resolution])
        else:
            require(who, action)
        return await self.act(who, condition_request(action, project_id, number, fields))

    async def project_action(
        self, who: Principal, project_id: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        require(who, action)
        return await self.act(who, project_request(action, project_id, fields))

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
        require(who, SubmitEvidence.permission)
        request = condition_request(SubmitEvidence.permission, project_id, number, fields)
        assert isinstance(request, SubmitEvidence)
        return await self.evidence_with_file(
            who,
            request,
            sha256=sha256,
            size=size,
            filename=filename,
            content_type=content_type,
            link_id=link_id,
        )
