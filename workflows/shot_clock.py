"""ShotClockWorkflow: one durable clock per wireless application.

The workflow only orchestrates. It keeps the timeline, asks the rules core for every
date after every event (one source of truth), sleeps until the next alert, and hands
all side effects (database rows, notices) to activities. Every planner action is an
update whose validator refuses what the rules forbid before anything is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, date, datetime, timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributeKey, SearchAttributeUpdate

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from models.shot_clock import (
        ApplicantNoticeInput,
        ApplicationRecord,
        ClockEvent,
        ClockSummary,
        ClockUpdateResult,
        DecisionInput,
        EventRecord,
        IncompleteNoticeInput,
        LocalClosureInput,
        NonTollingEventInput,
        NoticeRequest,
        ResubmissionInput,
        ShotClockInput,
        TollingAgreementInput,
        WithdrawalInput,
    )
    from rules.actions import ActionRefused, check_new_event
    from rules.alerts import Alert, local_today, plan_alerts
    from rules.packs import rule_pack
    from rules.shot_clock import TERMINAL_STATUSES, compute, expiry_remedy, governing_category
    from rules.timeline import TimelineError, parse_date, parse_timeline

SHOT_CLOCK_DATE = SearchAttributeKey.for_datetime("ShotClockDate")
CONSERVATIVE_DATE = SearchAttributeKey.for_datetime("ConservativeDate")
CLOCK_STATUS = SearchAttributeKey.for_keyword("ClockStatus")
JURISDICTION = SearchAttributeKey.for_keyword("Jurisdiction")
APPLICATION_CATEGORY = SearchAttributeKey.for_keyword("ApplicationCategory")
DEEMED_APPROVAL_RISK = SearchAttributeKey.for_bool("DeemedApprovalRisk")

RECORD_TIMEOUT = timedelta(seconds=30)
NOTICE_TIMEOUT = timedelta(seconds=60)
# Retry for as long as it takes: a deadline notice must not be dropped because the mail
# server or the database was down for a while.
RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=5))


def workflow_id_for(application_id: str) -> str:
    return f"shot-clock-{application_id}"


def _sa_date(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def search_attribute_updates(
    clock: dict[str, Any], jurisdiction: str, risk: bool
) -> list[SearchAttributeUpdate[Any]]:
    """The operator's view of a clock in the Temporal UI (also used at start)."""
    updates: list[SearchAttributeUpdate[Any]] = [
        CLOCK_STATUS.value_set(clock["status"]),
        JURISDICTION.value_set(jurisdiction),
        APPLICATION_CATEGORY.value_set(clock["category"]),
        DEEMED_APPROVAL_RISK.value_set(risk),
    ]
    for key, field in (
        (SHOT_CLOCK_DATE, "shot_clock_date"),
        (CONSERVATIVE_DATE, "conservative_date"),
    ):
        value = _sa_date(clock[field])
        updates.append(key.value_unset() if value is None else key.value_set(value))
    return updates


@workflow.defn
class ShotClockWorkflow:
    @workflow.init
    def __init__(self, input: ShotClockInput) -> None:
        self._app = input.application
        self._events: list[ClockEvent] = list(input.events)
        self._sent: set[str] = set(input.sent_alert_keys)
        self._skipped: set[str] = set(input.skipped_alert_keys)
        self._risk = input.risk_flagged
        self._seq = input.event_sequence
        # A continued run already recorded its events; a first run numbers and records them.
        self._first_run = input.event_sequence == 0
        if self._first_run:
            for event in self._events:
                self._seq += 1
                event.event_id = event.event_id or f"{self._seq:04d}-{event.type}"
        self._dirty = True
        self._lock = asyncio.Lock()
        self._announced_status: str | None = None

    # -- the timeline and the rules ------------------------------------------------------

    def _base_timeline(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "state": self._app.calendar.state,
            "local_holidays": list(self._app.calendar.local_holidays),
            "rule_pack": self._app.calendar.rule_pack,
            "events": [e.to_contract() for e in self._events],
        }
        if self._app.batch:
            raw["batch"] = list(self._app.batch)
        else:
            raw["category"] = self._app.category
        return raw

    def _today(self) -> date:
        return local_today(workflow.now(), self._app.calendar.time_zone)

    def _clock(self, as_of: date | None = None) -> dict[str, Any]:
        raw = self._base_timeline()
        raw["as_of"] = (as_of or self._today()).isoformat()
        return compute(parse_timeline(raw))

    def _alerts(self, clock: dict[str, Any]) -> list[Alert]:
        return plan_alerts(
            clock,
            time_zone=self._app.calendar.time_zone,
            reminder_offsets=self._app.reminder_offsets,
            window_alert_offsets=self._app.window_alert_offsets,
            judicial_review_offsets=self._app.judicial_review_offsets,
        )

    # -- the main loop ------------------------------------------------------------------

    @workflow.run
    async def run(self, input: ShotClockInput) -> dict[str, Any]:
        # Alerts already due when the clock is (re)planned were due before we could
        # send them (a late-opened application): skip them, except the escalation.
        planned_at = workflow.now()
        while True:
            now = workflow.now()
            clock = self._clock()
            if self._dirty:
                self._dirty = False
                await self._sync(clock, record_events=self._first_run)
                self._first_run = False
                await self._announce_status(clock)
            alerts = [a for a in self._alerts(clock) if a.key not in self._sent | self._skipped]
            for alert in alerts:
                if alert.fire_at > now:
                    break
                if alert.fire_at <= planned_at and alert.kind != "expiry_escalation":
                    self._skipped.add(alert.key)
                    continue
                await self._fire(alert, clock)
            planned_at = now
            upcoming = [a for a in alerts if a.key not in self._sent | self._skipped]
            if not upcoming and clock["status"] in TERMINAL_STATUSES:
                break
            if workflow.info().is_continue_as_new_suggested():
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(self._carry_over())
            timeout = (upcoming[0].fire_at - now) if upcoming else None
            # Wake for the next alert, or earlier when an update changes the timeline.
            with contextlib.suppress(TimeoutError):
                await workflow.wait_condition(lambda: self._dirty, timeout=timeout)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return self._clock()

    def _carry_over(self) -> ShotClockInput:
        return ShotClockInput(
            application=self._app,
            events=self._events,
            sent_alert_keys=sorted(self._sent),
            skipped_alert_keys=sorted(self._skipped),
            risk_flagged=self._risk,
            event_sequence=self._seq,
        )

    async def _sync(self, clock: dict[str, Any], record_events: bool = False) -> None:
        """Keep the read model and the search attributes current."""
        async with self._lock:
            await workflow.execute_activity(
                activity.RECORD_APPLICATION,
                ApplicationRecord(
                    application=self._app,
                    clock=clock,
                    workflow_id=workflow.info().workflow_id,
                    risk_flagged=self._risk,
                ),
                start_to_close_timeout=RECORD_TIMEOUT,
                retry_policy=RETRY,
            )
            if record_events:
                for event in self._events:
                    await self._record_event(event)
        workflow.upsert_search_attributes(
            search_attribute_updates(clock, self._app.calendar.jurisdiction, self._risk)
        )

    async def _record_event(self, event: ClockEvent) -> None:
        await workflow.execute_activity(
            activity.RECORD_EVENT,
            EventRecord(application_id=self._app.application_id, event=event),
            start_to_close_timeout=RECORD_TIMEOUT,
            retry_policy=RETRY,
        )

    async def _notify(
        self,
        key: str,
        kind: str,
        to: list[str],
        cc: list[str],
        clock: dict[str, Any],
        details: dict[str, Any],
    ) -> None:
        await workflow.execute_activity(
            activity.SEND_NOTICE,
            NoticeRequest(
                notice_key=f"{self._app.application_id}:{key}",
                kind=kind,
                application=self._app,
                to=[a for a in to if a],
                cc=[a for a in cc if a],
                clock=clock,
                details=details,
            ),
            start_to_close_timeout=NOTICE_TIMEOUT,
            retry_policy=RETRY,
        )

    async def _fire(self, alert: Alert, clock: dict[str, Any]) -> None:
        contacts = self._app.contacts
        details = dict(alert.details)
        if alert.kind == "expiry_escalation":
            self._risk = True
            category = governing_category(
                parse_timeline(self._base_timeline()), rule_pack(self._app.calendar.rule_pack)
            )
            details["remedy"] = expiry_remedy(category, self._app.calendar.state)
            await self._notify(
                alert.key,
                alert.kind,
                [contacts.supervisor_email, contacts.attorney_email],
                [contacts.planner_email],
                clock,
                details,
            )
            self._sent.add(alert.key)
            await self._sync(clock)
            return
        if alert.kind == "judicial_review_reminder":
            to = [contacts.attorney_email, contacts.supervisor_email]
            cc = [contacts.planner_email]
        else:
            to, cc = [contacts.planner_email], []
        await self._notify(alert.key, alert.kind, to, cc, clock, details)
        self._sent.add(alert.key)

    async def _announce_status(self, clock: dict[str, Any]) -> None:
        """Tell the attorney once when the applicant's notices close the clock."""
        status = clock["status"]
        if status in ("deemed_granted", "deemed_approved") and f"status:{status}" not in self._sent:
            contacts = self._app.contacts
            await self._notify(
                f"status:{status}",
                "deemed_status",
                [contacts.attorney_email, contacts.supervisor_email],
                [contacts.planner_email],
                clock,
                {"status": status},
            )
            self._sent.add(f"status:{status}")

    # -- updates: every planner action ---------------------------------------------------

    def _check(self, event: ClockEvent) -> None:
        try:
            check_new_event(self._base_timeline(), event.to_contract(), self._today())
        except (ActionRefused, TimelineError) as refused:
            raise ValueError(str(refused)) from None

    async def _record(self, event: ClockEvent) -> ClockUpdateResult:
        async with self._lock:
            self._seq += 1
            event.event_id = f"{self._seq:04d}-{event.type}"
            self._events.append(event)
            await self._record_event(event)
        clock = self._clock()
        if event.type == "incomplete_notice":
            await self._send_incompleteness_letter(event, clock)
        elif event.type == "decision":
            contacts = self._app.contacts
            await self._notify(
                f"decision:{event.event_id}",
                "decision_confirmation",
                [contacts.applicant_email],
                [contacts.planner_email],
                clock,
                {"event": event.to_contract()},
            )
        self._dirty = True
        return ClockUpdateResult(event_id=event.event_id, clock=clock)

    async def _send_incompleteness_letter(self, event: ClockEvent, clock: dict[str, Any]) -> None:
        effect = next(
            (
                entry
                for entry in clock["ledger"]
                if entry["event"] == "incomplete_notice" and entry["date"] == event.date
            ),
            None,
        )
        first = next(e for e in self._events if e.type == "incomplete_notice")
        contacts = self._app.contacts
        await self._notify(
            f"incompleteness:{event.event_id}",
            "incompleteness_notice",
            [contacts.applicant_email],
            [contacts.planner_email],
            clock,
            {"event": event.to_contract(), "effect": effect, "is_first_notice": first is event},
        )

    @workflow.update
    async def record_incomplete_notice(self, input: IncompleteNoticeInput) -> ClockUpdateResult:
        return await self._record(self._notice_event(input))

    @record_incomplete_notice.validator
    def _validate_incomplete_notice(self, input: IncompleteNoticeInput) -> None:
        self._check(self._notice_event(input))

    def _notice_event(self, input: IncompleteNoticeInput) -> ClockEvent:
        return ClockEvent(
            type="incomplete_notice",
            date=input.date,
            items=list(input.items),
            note=input.note,
            recorded_by=input.recorded_by,
        )

    @workflow.update
    async def record_resubmission(self, input: ResubmissionInput) -> ClockUpdateResult:
        return await self._record(
            ClockEvent("resubmitted", input.date, note=input.note, recorded_by=input.recorded_by)
        )

    @record_resubmission.validator
    def _validate_resubmission(self, input: ResubmissionInput) -> None:
        self._check(ClockEvent("resubmitted", input.date))

    @workflow.update
    async def record_tolling_agreement(self, input: TollingAgreementInput) -> ClockUpdateResult:
        return await self._record(self._agreement_event(input))

    @record_tolling_agreement.validator
    def _validate_tolling_agreement(self, input: TollingAgreementInput) -> None:
        self._check(self._agreement_event(input))

    def _agreement_event(self, input: TollingAgreementInput) -> ClockEvent:
        return ClockEvent(
            "tolling_agreement",
            input.date,
            days=input.days,
            new_date=input.new_date,
            note=input.note,
            recorded_by=input.recorded_by,
        )

    @workflow.update
    async def record_decision(self, input: DecisionInput) -> ClockUpdateResult:
        return await self._record(
            ClockEvent(
                "decision",
                input.date,
                outcome=input.outcome,
                note=input.note,
                recorded_by=input.recorded_by,
            )
        )

    @record_decision.validator
    def _validate_decision(self, input: DecisionInput) -> None:
        self._check(ClockEvent("decision", input.date, outcome=input.outcome))

    @workflow.update
    async def record_withdrawal(self, input: WithdrawalInput) -> ClockUpdateResult:
        return await self._record(
            ClockEvent("withdrawn", input.date, note=input.note, recorded_by=input.recorded_by)
        )

    @record_withdrawal.validator
    def _validate_withdrawal(self, input: WithdrawalInput) -> None:
        self._check(ClockEvent("withdrawn", input.date))

    @workflow.update
    async def record_applicant_notice(self, input: ApplicantNoticeInput) -> ClockUpdateResult:
        return await self._record(
            ClockEvent(input.kind, input.date, note=input.note, recorded_by=input.recorded_by)
        )

    @record_applicant_notice.validator
    def _validate_applicant_notice(self, input: ApplicantNoticeInput) -> None:
        allowed = ("deemed_granted_notice", "applicant_public_notice", "deemed_approved_notice")
        if input.kind not in allowed:
            raise ValueError(f"'{input.kind}' is not an applicant notice ({', '.join(allowed)})")
        self._check(ClockEvent(input.kind, input.date))

    @workflow.update
    async def record_non_tolling_event(self, input: NonTollingEventInput) -> ClockUpdateResult:
        return await self._record(
            ClockEvent(input.kind, input.date, note=input.note, recorded_by=input.recorded_by)
        )

    @record_non_tolling_event.validator
    def _validate_non_tolling_event(self, input: NonTollingEventInput) -> None:
        allowed = ("moratorium", "hearing_notice", "appeal")
        if input.kind not in allowed:
            raise ValueError(f"'{input.kind}' is not one of {', '.join(allowed)}")
        self._check(ClockEvent(input.kind, input.date))

    @workflow.update
    async def add_local_closure(self, input: LocalClosureInput) -> ClockUpdateResult:
        holidays = sorted({*self._app.calendar.local_holidays, input.date})
        self._app.calendar.local_holidays = holidays
        self._dirty = True
        return ClockUpdateResult(event_id="", clock=self._clock())

    @add_local_closure.validator
    def _validate_local_closure(self, input: LocalClosureInput) -> None:
        try:
            parse_date(input.date, "date")
        except TimelineError as err:
            raise ValueError(str(err)) from None
        if input.date in self._app.calendar.local_holidays:
            raise ValueError(f"{input.date} is already a local closure day")

    # -- queries --------------------------------------------------------------------------

    @workflow.query
    def clock(self, as_of: str | None = None) -> dict[str, Any]:
        """The compute contract's output for this application, as of today by default."""
        return self._clock(None if as_of is None else date.fromisoformat(as_of))

    @workflow.query
    def summary(self) -> ClockSummary:
        clock = self._clock()
        upcoming = [
            {"key": a.key, "kind": a.kind, "fire_at": a.fire_at.isoformat()}
            for a in self._alerts(clock)
            if a.key not in self._sent | self._skipped and a.fire_at > workflow.now()
        ]
        return ClockSummary(
            application=self._app,
            events=list(self._events),
            clock=clock,
            upcoming_alerts=upcoming,
            sent_alerts=sorted(self._sent),
            risk_flagged=self._risk,
        )
