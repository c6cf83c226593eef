"""Every action the web app and its API offer, in one place: who may (rules/access.py),
the workflow update it runs (web/actions.py), and waiting for the read model to show it.

Pages and API routes call these with plain values; bad input raises ActionFailed(400)
naming the field, a role that may not act raises NotPermitted, a workflow's refusal
raises ActionFailed(409) with the validator's words.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pendulum
from sqlalchemy import Engine

from activities.rendering import NoticeRenderer
from models.conditions import (
    ActionResult,
    Actor,
    CorrectionInput,
    DigestRequestInput,
    PlannedDatesInput,
    ResolveInput,
    ReviewInput,
    SignOffInput,
    SubmitEvidenceInput,
    TriggerInput,
)
from models.database import session_factory
from models.schema import Application, ConditionRow, Project
from models.shot_clock import (
    ApplicantNoticeInput,
    ClockSummary,
    ClockUpdateResult,
    DecisionInput,
    IncompleteNoticeInput,
    JurisdictionClosureInput,
    JurisdictionClosureResult,
    LocalClosureInput,
    NonTollingEventInput,
    NoticeItem,
    ResubmissionInput,
    ShotClockInput,
    TollingAgreementInput,
    WithdrawalInput,
)
from rules.access import RESOLUTION_ACTIONS, Principal, require
from rules.timeline import TimelineError, parse_date
from web.actions import ActionFailed, Gateway
from web.readmodel import wait_for

CLOCK_UPDATES = {
    "clock.notice": "record_incomplete_notice",
    "clock.resubmission": "record_resubmission",
    "clock.tolling_agreement": "record_tolling_agreement",
    "clock.decision": "record_decision",
    "clock.withdrawal": "record_withdrawal",
    "clock.applicant_notice": "record_applicant_notice",
    "clock.non_tolling_event": "record_non_tolling_event",
    "clock.closure": "add_local_closure",
}
OUTCOMES = ("approved", "approved_with_conditions", "denied")
APPLICANT_NOTICE_KINDS = (
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
)
NON_TOLLING_KINDS = ("moratorium", "hearing_notice", "appeal")
# How long adding a jurisdiction's closure day waits for every clock before answering
# (the workflow carries on either way).
CLOSURE_WAIT_SECONDS = 20.0


@dataclass
class ClosureOutcome:
    targeted: list[str]
    changed: list[str] | None  # None: still being applied when the request answered
    refused: list[str]


def bad(message: str) -> ActionFailed:
    return ActionFailed(message, 400)


def _date(value: Any, field: str, required: bool = False) -> str | None:
    text = str(value or "").strip()
    if not text:
        if required:
            raise bad(f"{field}: give a date (YYYY-MM-DD)")
        return None
    try:
        return parse_date(text, field).isoformat()
    except TimelineError as err:
        raise bad(str(err)) from None


def _today(summary: ClockSummary) -> str:
    return pendulum.now(summary.application.calendar.time_zone).date().isoformat()


def parse_items(raw: Any) -> list[NoticeItem]:
    """Notice items from a list of {id, text, rule}; empty rows are dropped."""
    if not isinstance(raw, list):
        raise bad("items: give a list of {id, text, rule}")
    items = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise bad(f"items[{i}]: give an object with id, text and rule")
        item = NoticeItem(
            id=str(entry.get("id") or "").strip(),
            text=str(entry.get("text") or "").strip(),
            rule=str(entry.get("rule") or "").strip(),
        )
        if not (item.id or item.text or item.rule):
            continue
        if not item.id:
            raise bad(f"item {i + 1}: give it an id (a letter, e.g. A)")
        items.append(item)
    return items


@dataclass
class Operations:
    engine: Engine
    gateway: Gateway

    def __post_init__(self) -> None:
        self._sessions = session_factory(self.engine)

    # -- wireless applications ----------------------------------------------------------------

    def _clock_input(self, action: str, who: Principal, s: ClockSummary, f: dict[str, Any]) -> Any:
        by = who.email
        note = str(f.get("note") or "")
        when = _date(f.get("date"), "date") or _today(s)
        if action == "clock.notice":
            items = parse_items(f.get("items"))
            if not items:
                raise bad("a notice of incompleteness must list each missing item")
            return IncompleteNoticeInput(when, items, by, note)
        if action == "clock.resubmission":
            return ResubmissionInput(when, by, note)
        if action == "clock.tolling_agreement":
            days, new_date = f.get("days"), _date(f.get("new_date"), "new_date")
            if days in (None, ""):
                days = None
            else:
                try:
                    days = int(days)
                except (TypeError, ValueError):
                    raise bad("days: give a whole number of days") from None
                if days <= 0:
                    raise bad("days: must be a positive whole number")
            if (days is None) == (new_date is None):
                raise bad("a tolling agreement gives either days or an agreed new date")
            return TollingAgreementInput(when, days, new_date, by, note)
        if action == "clock.decision":
            outcome = str(f.get("outcome") or "")
            if outcome not in OUTCOMES:
                raise bad(f"outcome: one of {', '.join(OUTCOMES)}")
            return DecisionInput(when, outcome, by, note)
        if action == "clock.withdrawal":
            return WithdrawalInput(when, by, note)
        if action == "clock.applicant_notice":
            kind = str(f.get("kind") or "")
            if kind not in APPLICANT_NOTICE_KINDS:
                raise bad(f"kind: one of {', '.join(APPLICANT_NOTICE_KINDS)}")
            return ApplicantNoticeInput(when, kind, by, note)
        if action == "clock.non_tolling_event":
            kind = str(f.get("kind") or "")
            if kind not in NON_TOLLING_KINDS:
                raise bad(f"kind: one of {', '.join(NON_TOLLING_KINDS)}")
            return NonTollingEventInput(when, kind, by, note)
        if action == "clock.closure":
            return LocalClosureInput(_date(f.get("date"), "date", required=True) or "", by)
        raise bad(f"unknown action {action!r}")

    async def clock_action(
        self, who: Principal, application_id: str, action: str, fields: dict[str, Any]
    ) -> ClockUpdateResult:
        require(who, action)
        if action not in CLOCK_UPDATES:
            raise bad(f"unknown action {action!r}")
        # Bad input is reported before Temporal is asked anything.
        _date(fields.get("date"), "date", required=action == "clock.closure")
        if action == "clock.notice":
            parse_items(fields.get("items"))

        def build(summary: ClockSummary) -> Any:
            return self._clock_input(action, who, summary, fields)

        result = await self.gateway.clock_update(application_id, CLOCK_UPDATES[action], build)
        wanted = result.clock.get("conservative_date"), result.clock.get("status")
        await wait_for(lambda: self._clock_row_is(application_id, wanted))
        return result

    def _clock_row_is(self, application_id: str, wanted: tuple[Any, Any]) -> bool:
        with self._sessions() as session:
            row = session.get(Application, application_id)
            return row is not None and (row.conservative_date, row.status) == wanted

    async def preview_notice(
        self, who: Principal, application_id: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """The letter a notice would send and the clock after it, judged by the same rules
        the workflow's validator applies; a defective notice is refused here."""
        from workflows.shot_clock_support import ClockState, incomplete_notice_event

        require(who, "clock.notice")
        items = parse_items(fields.get("items"))
        if not items:
            raise bad("pick at least one missing item, each with the rule that requires it")
        summary = await self.gateway.clock_summary(application_id)
        notice = self._clock_input("clock.notice", who, summary, fields)
        state = ClockState(
            ShotClockInput(
                application=summary.application,
                events=list(summary.events),
                event_sequence=len(summary.events),
            )
        )
        event = incomplete_notice_event(notice)
        now = datetime.now(UTC)
        try:
            state.check(event, now)
        except ValueError as refused:
            raise ActionFailed(str(refused), 409) from None
        before = summary.clock
        state.append(event)
        clock = state.clock(now)
        request = state.event_notice(event, clock)
        letter = NoticeRenderer().render(request) if request is not None else None
        return {
            "date": notice.date,
            "items": [i.__dict__ for i in items],
            "to": request.to if request else [],
            "cc": request.cc if request else [],
            "subject": letter.subject if letter else "",
            "text": letter.text if letter else "",
            "before": {
                k: before.get(k) for k in ("status", "shot_clock_date", "conservative_date")
            },
            "after": {k: clock.get(k) for k in ("status", "shot_clock_date", "conservative_date")},
            "effect": next(
                (
                    e
                    for e in clock["ledger"]
                    if e["event"] == "incomplete_notice" and e["date"] == notice.date
                ),
                None,
            ),
            "warnings": [w for w in clock["warnings"] if w not in before.get("warnings", [])],
        }

    async def closure_everywhere(
        self, who: Principal, jurisdiction: str, day: str
    ) -> ClosureOutcome:
        """Add a closure day to every open clock of a jurisdiction (the clocks froze their
        calendars when opened, so each needs the update). A JurisdictionClosureWorkflow
        carries it to the clocks, so it finishes even if this request or process does not;
        the request waits for it a little while."""
        from sqlalchemy import select
        from temporalio.exceptions import WorkflowAlreadyStartedError

        from rules.shot_clock import TERMINAL_STATUSES
        from workflows.jurisdiction_closure import JurisdictionClosureWorkflow, workflow_id_for

        require(who, "clock.closure")
        _date(day, "date", required=True)
        with self._sessions() as session:
            ids = sorted(
                session.scalars(
                    select(Application.application_id).where(
                        Application.jurisdiction == jurisdiction,
                        Application.status.not_in(TERMINAL_STATUSES),
                    )
                )
            )
        client = await self.gateway.client()
        workflow_id = workflow_id_for(jurisdiction, day)
        try:
            handle = await client.start_workflow(
                JurisdictionClosureWorkflow.run,
                JurisdictionClosureInput(jurisdiction, day, who.email, ids),
                id=workflow_id,
                task_queue=self.gateway.task_queue,
            )
        except WorkflowAlreadyStartedError:
            handle = client.get_workflow_handle(workflow_id, result_type=JurisdictionClosureResult)
        try:
            result: JurisdictionClosureResult = await asyncio.wait_for(
                handle.result(), CLOSURE_WAIT_SECONDS
            )
        except TimeoutError:
            return ClosureOutcome(targeted=ids, changed=None, refused=[])
        if result.refused and not result.changed:
            raise ActionFailed("; ".join(result.refused), 409)
        return ClosureOutcome(targeted=ids, changed=result.changed, refused=result.refused)

    # -- conditions and projects -----------------------------------------------------------------

    def _actor(self, who: Principal) -> Actor:
        return Actor(who.email, who.role, who.department)

    async def condition_action(
        self, who: Principal, project_id: str, number: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        actor = self._actor(who)
        text = lambda key: str(fields.get(key) or "").strip()  # noqa: E731
        if action == "condition.submit_evidence":
            require(who, action)
            payload: Any = SubmitEvidenceInput(
                number,
                actor,
                text("description"),
                text("filename"),
                _date(fields.get("document_date"), "document_date"),
            )
            name = "submit_evidence"
        elif action == "condition.review":
            require(who, action)
            payload = ReviewInput(number, actor, text("decision"), text("comment"))
            name = "review_condition"
        elif action == "condition.resolve":
            resolution = text("resolution")
            if resolution not in RESOLUTION_ACTIONS:
                raise bad(f"resolution: one of {', '.join(RESOLUTION_ACTIONS)}")
            require(who, RESOLUTION_ACTIONS[resolution])
            payload = ResolveInput(number, actor, resolution, text("reason"))
            name = "resolve_condition"
        elif action == "condition.trigger":
            require(who, action)
            payload = TriggerInput(number, actor, text("reason"))
            name = "trigger_condition"
        elif action == "condition.correct":
            require(who, action)
            gates = fields.get("gates")
            if isinstance(gates, str):
                gates = [g for g in re.split(r"[,\s]+", gates) if g] or None
            payload = CorrectionInput(
                number,
                actor,
                text("reason"),
                gates,
                text("kind") or None,
                text("department_key") or None,
            )
            name = "correct_condition"
        else:
            raise bad(f"unknown action {action!r}")
        result = await self.gateway.project_update(project_id, name, payload)
        status = (result.condition or {}).get("status")
        await wait_for(lambda: self._condition_is(project_id, number, status))
        return result

    def _condition_is(self, project_id: str, number: str, status: Any) -> bool:
        from sqlalchemy import select

        with self._sessions() as session:
            current = session.scalar(
                select(ConditionRow.status).where(
                    ConditionRow.project_id == project_id, ConditionRow.number == number
                )
            )
        return status is None or current == status

    async def project_action(
        self, who: Principal, project_id: str, action: str, fields: dict[str, Any]
    ) -> ActionResult:
        require(who, action)
        actor = self._actor(who)
        if action == "project.sign_off":
            milestone = str(fields.get("milestone") or "").strip()
            if not milestone:
                raise bad("milestone: say which milestone to sign off")
            result = await self.gateway.project_update(
                project_id, "sign_off_milestone", SignOffInput(milestone, actor)
            )
            await wait_for(lambda: self._signed_off(project_id, milestone))
            return result
        if action == "project.plan":
            targets = fields.get("milestone_targets") or {}
            if not isinstance(targets, dict):
                raise bad("milestone_targets: give an object of milestone: date")
            payload = PlannedDatesInput(
                actor,
                *(
                    _date(fields.get(k), k)
                    for k in ("groundbreaking", "grading_start", "grading_end", "construction_end")
                ),
                milestone_targets={
                    str(m): _date(v, f"target for {m}", required=True) or ""
                    for m, v in targets.items()
                    if str(v or "").strip()
                },
            )
            result = await self.gateway.project_update(project_id, "set_planned_dates", payload)
            # The next page ranks milestones by these targets: let the read model have them.
            await wait_for(lambda: self._targets_are(project_id, payload.milestone_targets))
            return result
        if action == "project.digest":
            milestone = str(fields.get("milestone") or "").strip() or None
            return await self.gateway.project_update(
                project_id, "send_digest", DigestRequestInput(actor, milestone)
            )
        raise bad(f"unknown action {action!r}")

    def _targets_are(self, project_id: str, targets: dict[str, str]) -> bool:
        with self._sessions() as session:
            row = session.get(Project, project_id)
            have = ((row.planned if row else None) or {}).get("milestone_targets") or {}
            return all(have.get(m) == d for m, d in targets.items())

    def _signed_off(self, project_id: str, milestone: str) -> bool:
        with self._sessions() as session:
            row = session.get(Project, project_id)
            return row is not None and any(
                isinstance(s, dict) and s.get("milestone") == milestone for s in row.signoffs or []
            )

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
        from web.evidence import record_file

        description = str(fields.get("description") or "").strip()
        result = await self.condition_action(
            who,
            project_id,
            number,
            "condition.submit_evidence",
            {**fields, "description": description, "filename": f"{filename} (sha256 {sha256})"},
        )
        record_file(
            self._sessions,
            scope="project",
            scope_id=project_id,
            condition_number=number,
            filename=filename,
            content_type=content_type,
            size=size,
            sha256=sha256,
            uploaded_by=who.email,
            link_id=link_id,
        )
        return result
