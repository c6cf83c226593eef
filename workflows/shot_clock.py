"""ShotClockWorkflow: one durable clock per wireless application.

The workflow only orchestrates. It keeps the timeline, asks the rules core for every
date after every event (one source of truth), sleeps until the next alert, and hands
all side effects (database rows, notices) to activities. Every planner action is an
update whose validator refuses what the rules forbid before anything is recorded.

The class is kept thin on purpose: the sandbox re-imports this module for every workflow
run the worker caches, so the state and the pure logic live in `shot_clock_support`,
which the worker passes through the sandbox (imported once per process).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from models.permit_clock import ReassignInput
    from models.shot_clock import (
        ApplicantNoticeInput,
        ApplicantUploadInput,
        ClockEvent,
        ClockSummary,
        ClockUpdateResult,
        DecisionInput,
        IncompleteNoticeInput,
        LocalClosureInput,
        NonTollingEventInput,
        NoticeRequest,
        RebaseInput,
        ResubmissionInput,
        ShotClockInput,
        TollingAgreementInput,
        WithdrawalInput,
    )
    from rules.kernel.alerts import Alert
    from workflows import clock_common as common
    from workflows import shot_clock_support as support
    from workflows.clock_common import CLOCK_STATUS, CONSERVATIVE_DATE, JURISDICTION
    from workflows.shot_clock_support import (
        APPLICATION_CATEGORY,
        DEEMED_APPROVAL_RISK,
        SHOT_CLOCK_DATE,
        search_attribute_updates,
    )

# Patch id: an event recorded by an update before the first sync waits for that sync.
EVENTS_AFTER_APPLICATION = "events-recorded-after-their-application"
# Patch id: a resubmission sends the applicant a letter with the new dates.
RESUBMISSION_LETTER = "resubmission-letter"
# Patch id (shot-clocks.md 8.1, 8.2): the risk flag, ClockStatus and the attorney's
# notices follow the earliest reading. Histories from before it keep the literal path.
CONSERVATIVE_READING = "conservative-reading-decides"

# Re-exported: callers import these from here.
__all__ = [
    "APPLICATION_CATEGORY",
    "CLOCK_STATUS",
    "CONSERVATIVE_DATE",
    "DEEMED_APPROVAL_RISK",
    "JURISDICTION",
    "SHOT_CLOCK_DATE",
    "ShotClockWorkflow",
    "search_attribute_updates",
]


@workflow.defn
class ShotClockWorkflow:
    @workflow.init
    def __init__(self, input: ShotClockInput) -> None:
        self._state = support.ClockState(input)
        self._dirty = True
        self._lock = asyncio.Lock()
        self._conservative_path: bool | None = None

    def _conservative(self) -> bool:
        """Whether this run follows the conservative fields (asked once, then kept)."""
        if self._conservative_path is None:
            self._conservative_path = workflow.patched(CONSERVATIVE_READING)
        return self._conservative_path

    # -- the main loop ------------------------------------------------------------------

    @workflow.run
    async def run(self, input: ShotClockInput) -> dict[str, Any]:
        state = self._state
        # Alerts already due when the clock is (re)planned were due before we could
        # send them (a late-opened application): skip them, except the escalation.
        planned_at = workflow.now()
        while True:
            now = workflow.now()
            clock = state.clock(now)
            if self._dirty:
                self._dirty = False
                if self._conservative():
                    state.flag_risk(clock)
                await self._sync(clock, record_events=state.first_run)
                state.first_run = False
                await self._announce_status(clock)
            alerts = state.pending(state.alerts(clock))
            for alert in alerts:
                if alert.fire_at > now:
                    break
                if alert.fire_at <= planned_at and alert.kind != "expiry_escalation":
                    state.skipped.add(alert.key)
                    continue
                await self._fire(alert, clock)
            planned_at = now
            upcoming = state.pending(alerts)
            if not upcoming and support.is_closed(clock):
                break
            await common.continue_as_new_if_suggested(state.carry_over)
            timeout = common.next_wake(upcoming, now)
            # Sleep without this pass's clock and alerts: a cached clock then holds only its
            # state (about 5 KiB less per cached clock; they are recomputed on waking).
            del clock, alerts, upcoming
            # Wake for the next alert, or earlier when an update changes the timeline.
            await common.sleep_until(timeout, lambda: self._dirty)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return state.clock(workflow.now())

    async def _sync(self, clock: dict[str, Any], record_events: bool = False) -> None:
        """Keep the read model and the search attributes current."""
        async with self._lock:
            await common.record_clock(
                activity.RECORD_APPLICATION,
                self._state.application_record(clock, workflow.info().workflow_id),
                self._state.events,
                self._record_event,
                opening=record_events,
            )
        workflow.upsert_search_attributes(
            self._state.search_attributes(clock, conservative=bool(self._conservative_path))
        )

    async def _record_event(self, event: ClockEvent) -> None:
        await common.record(activity.RECORD_EVENT, self._state.event_record(event))

    async def _send(self, request: NoticeRequest) -> None:
        await common.send(activity.SEND_NOTICE, request)

    async def _fire(self, alert: Alert, clock: dict[str, Any]) -> None:
        await self._send(self._state.alert_notice(alert, clock))
        self._state.sent.add(alert.key)
        if alert.kind == "expiry_escalation":
            await self._sync(clock)

    async def _announce_status(self, clock: dict[str, Any]) -> None:
        """Tell the attorney once when the applicant's notices close the clock."""
        notice = self._state.status_notice(clock, conservative=bool(self._conservative_path))
        if notice is not None:
            key, request = notice
            await self._send(request)
            self._state.sent.add(key)

    # -- updates: every planner action ---------------------------------------------------

    async def _record(self, event: ClockEvent) -> ClockUpdateResult:
        async with self._lock:
            self._state.append(event)
            # An update delivered with the start runs before the first sync has written the
            # application row its event refers to; the first sync records it with the rest.
            if not (self._state.first_run and workflow.patched(EVENTS_AFTER_APPLICATION)):
                await self._record_event(event)
        clock = self._state.clock(workflow.now())
        request = self._state.event_notice(event, clock)
        # The incompleteness letter promises the new dates on resubmission: send them.
        # (Patched: a resubmission recorded before this letter existed sent none.)
        if event.type == "resubmitted" and workflow.patched(RESUBMISSION_LETTER):
            request = self._state.resubmission_notice(event, clock)
        if request is not None:
            await self._send(request)
        self._dirty = True
        return ClockUpdateResult(event_id=event.event_id, clock=clock)

    def _check(self, event: ClockEvent) -> None:
        self._state.check(event, workflow.now())

    @workflow.update
    async def record_incomplete_notice(self, input: IncompleteNoticeInput) -> ClockUpdateResult:
        return await self._record(support.incomplete_notice_event(input))

    @record_incomplete_notice.validator
    def _validate_incomplete_notice(self, input: IncompleteNoticeInput) -> None:
        self._check(support.incomplete_notice_event(input))

    @workflow.update
    async def notify_applicant_upload(self, input: ApplicantUploadInput) -> None:
        """An applicant's document reached the city: the planner hears of it once."""
        await self._send(self._state.upload_notice(input, self._state.clock(workflow.now())))

    @workflow.update
    async def record_resubmission(self, input: ResubmissionInput) -> ClockUpdateResult:
        return await self._record(support.resubmission_event(input))

    @record_resubmission.validator
    def _validate_resubmission(self, input: ResubmissionInput) -> None:
        self._check(support.resubmission_event(input))

    @workflow.update
    async def record_tolling_agreement(self, input: TollingAgreementInput) -> ClockUpdateResult:
        return await self._record(support.tolling_agreement_event(input))

    @record_tolling_agreement.validator
    def _validate_tolling_agreement(self, input: TollingAgreementInput) -> None:
        self._check(support.tolling_agreement_event(input))

    @workflow.update
    async def record_decision(self, input: DecisionInput) -> ClockUpdateResult:
        return await self._record(support.decision_event(input))

    @record_decision.validator
    def _validate_decision(self, input: DecisionInput) -> None:
        self._check(support.decision_event(input))

    @workflow.update
    async def record_withdrawal(self, input: WithdrawalInput) -> ClockUpdateResult:
        return await self._record(support.withdrawal_event(input))

    @record_withdrawal.validator
    def _validate_withdrawal(self, input: WithdrawalInput) -> None:
        self._check(support.withdrawal_event(input))

    @workflow.update
    async def record_applicant_notice(self, input: ApplicantNoticeInput) -> ClockUpdateResult:
        return await self._record(support.applicant_notice_event(input))

    @record_applicant_notice.validator
    def _validate_applicant_notice(self, input: ApplicantNoticeInput) -> None:
        support.check_applicant_notice_kind(input.kind)
        self._check(support.applicant_notice_event(input))

    @workflow.update
    async def record_non_tolling_event(self, input: NonTollingEventInput) -> ClockUpdateResult:
        return await self._record(support.non_tolling_event(input))

    @record_non_tolling_event.validator
    def _validate_non_tolling_event(self, input: NonTollingEventInput) -> None:
        support.check_non_tolling_kind(input.kind)
        self._check(support.non_tolling_event(input))

    @workflow.update
    async def add_local_closure(self, input: LocalClosureInput) -> ClockUpdateResult:
        self._state.add_local_closure(input.date)
        self._dirty = True
        return ClockUpdateResult(event_id="", clock=self._state.clock(workflow.now()))

    @add_local_closure.validator
    def _validate_local_closure(self, input: LocalClosureInput) -> None:
        self._state.check_local_closure(input.date)

    @workflow.update
    async def rebase(self, input: RebaseInput) -> ClockUpdateResult:
        """Apply the current rule pack and calendar (an administrator's audited
        correction): the ledger says what moved and why; alerts are planned anew."""
        async with self._lock:
            self._state.rebase(input, workflow.now())
        self._dirty = True
        return ClockUpdateResult(
            event_id=f"rebase-{len(self._state.rebases)}",
            clock=self._state.clock(workflow.now()),
        )

    @rebase.validator
    def _validate_rebase(self, input: RebaseInput) -> None:
        self._state.check_rebase(input, workflow.now())

    @workflow.update
    async def reassign(self, input: ReassignInput) -> ClockUpdateResult:
        """A new planner: the person who acts on the clock and hears its reminders."""
        async with self._lock:
            app = self._state.app
            app.contacts = dataclasses.replace(app.contacts, planner_email=input.email)
        self._dirty = True
        return ClockUpdateResult(event_id="", clock=self._state.clock(workflow.now()))

    @reassign.validator
    def _validate_reassign(self, input: ReassignInput) -> None:
        if "@" not in input.email or any(c.isspace() for c in input.email):
            raise ValueError(f"email: {input.email!r} is not an e-mail address")
        if input.email == self._state.app.contacts.planner_email:
            raise ValueError(f"the application is already with {input.email}")

    # -- queries --------------------------------------------------------------------------

    @workflow.query
    def clock(self, as_of: str | None = None) -> dict[str, Any]:
        """The compute contract's output for this application, as of today by default."""
        return self._state.clock(workflow.now(), as_of)

    @workflow.query
    def summary(self) -> ClockSummary:
        return self._state.summary(workflow.now())
