"""Everything ShotClockWorkflow needs that is not Temporal orchestration: the clock's state
and the pure logic over it, the search attributes, the activity options.

The worker passes this module through the workflow sandbox (`worker.WORKFLOW_RUNNER`), so
it is imported once per process instead of once per workflow run: a cached clock then
costs only its thin workflow class and its state. Nothing here may do I/O or read the
clock or randomness; the time always comes in as an argument (`workflow.now()`).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Any

from temporalio.common import RetryPolicy, SearchAttributeKey, SearchAttributeUpdate

from models.shot_clock import (
    ApplicantNoticeInput,
    ApplicantUploadInput,
    ApplicationRecord,
    ClockEvent,
    ClockSummary,
    DecisionInput,
    EventRecord,
    IncompleteNoticeInput,
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

APPLICANT_NOTICE_KINDS = (
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
)
NON_TOLLING_KINDS = ("moratorium", "hearing_notice", "appeal")


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


def is_closed(clock: dict[str, Any]) -> bool:
    return clock["status"] in TERMINAL_STATUSES


# -- the event each planner action records (validators build the same event) ------------


def incomplete_notice_event(input: IncompleteNoticeInput) -> ClockEvent:
    return ClockEvent(
        type="incomplete_notice",
        date=input.date,
        items=list(input.items),
        note=input.note,
        recorded_by=input.recorded_by,
    )


def resubmission_event(input: ResubmissionInput) -> ClockEvent:
    return ClockEvent("resubmitted", input.date, note=input.note, recorded_by=input.recorded_by)


def tolling_agreement_event(input: TollingAgreementInput) -> ClockEvent:
    return ClockEvent(
        "tolling_agreement",
        input.date,
        days=input.days,
        new_date=input.new_date,
        note=input.note,
        recorded_by=input.recorded_by,
    )


def decision_event(input: DecisionInput) -> ClockEvent:
    return ClockEvent(
        "decision",
        input.date,
        outcome=input.outcome,
        note=input.note,
        recorded_by=input.recorded_by,
    )


def withdrawal_event(input: WithdrawalInput) -> ClockEvent:
    return ClockEvent("withdrawn", input.date, note=input.note, recorded_by=input.recorded_by)


def applicant_notice_event(input: ApplicantNoticeInput) -> ClockEvent:
    return ClockEvent(input.kind, input.date, note=input.note, recorded_by=input.recorded_by)


def check_applicant_notice_kind(kind: str) -> None:
    if kind not in APPLICANT_NOTICE_KINDS:
        raise ValueError(
            f"'{kind}' is not an applicant notice ({', '.join(APPLICANT_NOTICE_KINDS)})"
        )


def non_tolling_event(input: NonTollingEventInput) -> ClockEvent:
    return ClockEvent(input.kind, input.date, note=input.note, recorded_by=input.recorded_by)


def check_non_tolling_kind(kind: str) -> None:
    if kind not in NON_TOLLING_KINDS:
        raise ValueError(f"'{kind}' is not one of {', '.join(NON_TOLLING_KINDS)}")


class ClockState:
    """One clock's state (carried across continue-as-new) and the rules applied to it.

    The workflow owns the orchestration (activities, timers, the lock); this owns the
    timeline, the keys of the alerts sent or skipped, and what every notice says.
    """

    def __init__(self, input: ShotClockInput) -> None:
        self.app = input.application
        self.events: list[ClockEvent] = list(input.events)
        self.sent: set[str] = set(input.sent_alert_keys)
        self.skipped: set[str] = set(input.skipped_alert_keys)
        self.risk = input.risk_flagged
        self.seq = input.event_sequence
        # A continued run already recorded its events; a first run numbers and records them.
        self.first_run = input.event_sequence == 0
        if self.first_run:
            for event in self.events:
                self.seq += 1
                event.event_id = event.event_id or f"{self.seq:04d}-{event.type}"

    def carry_over(self) -> ShotClockInput:
        return ShotClockInput(
            application=self.app,
            events=self.events,
            sent_alert_keys=sorted(self.sent),
            skipped_alert_keys=sorted(self.skipped),
            risk_flagged=self.risk,
            event_sequence=self.seq,
        )

    # -- the timeline and the rules ------------------------------------------------------

    def base_timeline(self) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "state": self.app.calendar.state,
            "local_holidays": list(self.app.calendar.local_holidays),
            "rule_pack": self.app.calendar.rule_pack,
            "events": [e.to_contract() for e in self.events],
        }
        if self.app.batch:
            raw["batch"] = list(self.app.batch)
        else:
            raw["category"] = self.app.category
        return raw

    def today(self, now: datetime) -> date:
        return local_today(now, self.app.calendar.time_zone)

    def clock(self, now: datetime, as_of: str | None = None) -> dict[str, Any]:
        """The compute contract's output, as of `now`'s local day unless `as_of` is given."""
        raw = self.base_timeline()
        day = None if as_of is None else date.fromisoformat(as_of)
        raw["as_of"] = (day or self.today(now)).isoformat()
        return compute(parse_timeline(raw))

    def alerts(self, clock: dict[str, Any]) -> list[Alert]:
        return plan_alerts(
            clock,
            time_zone=self.app.calendar.time_zone,
            reminder_offsets=self.app.reminder_offsets,
            window_alert_offsets=self.app.window_alert_offsets,
            judicial_review_offsets=self.app.judicial_review_offsets,
        )

    def pending(self, alerts: list[Alert]) -> list[Alert]:
        """The alerts neither sent nor skipped yet, in firing order."""
        return [a for a in alerts if a.key not in self.sent | self.skipped]

    def check(self, event: ClockEvent, now: datetime) -> None:
        """Refuse (ValueError, the update's rejection) an event the rules forbid."""
        try:
            check_new_event(self.base_timeline(), event.to_contract(), self.today(now))
        except (ActionRefused, TimelineError) as refused:
            raise ValueError(str(refused)) from None

    def append(self, event: ClockEvent) -> None:
        self.seq += 1
        event.event_id = f"{self.seq:04d}-{event.type}"
        self.events.append(event)

    def check_local_closure(self, day: str) -> None:
        try:
            parse_date(day, "date")
        except TimelineError as err:
            raise ValueError(str(err)) from None
        if day in self.app.calendar.local_holidays:
            raise ValueError(f"{day} is already a local closure day")

    def add_local_closure(self, day: str) -> None:
        self.app.calendar.local_holidays = sorted({*self.app.calendar.local_holidays, day})

    # -- what the activities are given -------------------------------------------------

    def application_record(self, clock: dict[str, Any], workflow_id: str) -> ApplicationRecord:
        return ApplicationRecord(
            application=self.app, clock=clock, workflow_id=workflow_id, risk_flagged=self.risk
        )

    def event_record(self, event: ClockEvent) -> EventRecord:
        return EventRecord(application_id=self.app.application_id, event=event)

    def search_attributes(self, clock: dict[str, Any]) -> list[SearchAttributeUpdate[Any]]:
        return search_attribute_updates(clock, self.app.calendar.jurisdiction, self.risk)

    def notice(
        self,
        key: str,
        kind: str,
        to: list[str],
        cc: list[str],
        clock: dict[str, Any],
        details: dict[str, Any],
    ) -> NoticeRequest:
        return NoticeRequest(
            notice_key=f"{self.app.application_id}:{key}",
            kind=kind,
            application=self.app,
            to=[a for a in to if a],
            cc=[a for a in cc if a],
            clock=clock,
            details=details,
        )

    def alert_notice(self, alert: Alert, clock: dict[str, Any]) -> NoticeRequest:
        """The notice for a due alert; the expiry escalation also raises the risk flag."""
        contacts = self.app.contacts
        details = dict(alert.details)
        if alert.kind == "expiry_escalation":
            self.risk = True
            category = governing_category(
                parse_timeline(self.base_timeline()), rule_pack(self.app.calendar.rule_pack)
            )
            details["remedy"] = expiry_remedy(category, self.app.calendar.state)
            to = [contacts.supervisor_email, contacts.attorney_email]
            cc = [contacts.planner_email]
        elif alert.kind == "judicial_review_reminder":
            to = [contacts.attorney_email, contacts.supervisor_email]
            cc = [contacts.planner_email]
        else:
            to, cc = [contacts.planner_email], []
        return self.notice(alert.key, alert.kind, to, cc, clock, details)

    def status_notice(self, clock: dict[str, Any]) -> tuple[str, NoticeRequest] | None:
        """The attorney's one notice when the applicant's notices close the clock."""
        status = clock["status"]
        key = f"status:{status}"
        if status not in ("deemed_granted", "deemed_approved") or key in self.sent:
            return None
        contacts = self.app.contacts
        return key, self.notice(
            key,
            "deemed_status",
            [contacts.attorney_email, contacts.supervisor_email],
            [contacts.planner_email],
            clock,
            {"status": status},
        )

    def event_notice(self, event: ClockEvent, clock: dict[str, Any]) -> NoticeRequest | None:
        """The letter a recorded event sends: incompleteness notice or decision."""
        contacts = self.app.contacts
        if event.type == "incomplete_notice":
            effect = next(
                (
                    entry
                    for entry in clock["ledger"]
                    if entry["event"] == "incomplete_notice" and entry["date"] == event.date
                ),
                None,
            )
            first = next(e for e in self.events if e.type == "incomplete_notice")
            return self.notice(
                f"incompleteness:{event.event_id}",
                "incompleteness_notice",
                [contacts.applicant_email],
                [contacts.planner_email],
                clock,
                {"event": event.to_contract(), "effect": effect, "is_first_notice": first is event},
            )
        if event.type == "decision":
            return self.notice(
                f"decision:{event.event_id}",
                "decision_confirmation",
                [contacts.applicant_email],
                [contacts.planner_email],
                clock,
                {"event": event.to_contract()},
            )
        return None

    def resubmission_notice(self, event: ClockEvent, clock: dict[str, Any]) -> NoticeRequest:
        """The letter confirming a resubmission with the new dates (the incompleteness
        letter promises it). Its key is the event's: sent once, however often replayed."""
        contacts = self.app.contacts
        notices = [e for e in self.events if e.type == "incomplete_notice" and e.date <= event.date]
        effect = next(
            (
                entry
                for entry in clock["ledger"]
                if entry["event"] == "resubmitted" and entry["date"] == event.date
            ),
            None,
        )
        window = next(
            (
                w
                for w in clock.get("notice_windows") or []
                if w.get("kind") == "later_notice" and w.get("state") == "open"
            ),
            None,
        )
        return self.notice(
            f"resubmission:{event.event_id}",
            "resubmission_confirmation",
            [contacts.applicant_email],
            [contacts.planner_email],
            clock,
            {
                "event": event.to_contract(),
                "effect": effect,
                "notice_date": notices[-1].date if notices else None,
                "window": window,
            },
        )

    def upload_notice(self, upload: ApplicantUploadInput, clock: dict[str, Any]) -> NoticeRequest:
        """Tell the planner an applicant uploaded a document (keyed by the file)."""
        contacts = self.app.contacts
        return self.notice(
            f"upload:{upload.sha256[:32]}",
            "applicant_upload",
            [contacts.planner_email],
            [],
            clock,
            {"upload": asdict(upload)},
        )

    def summary(self, now: datetime) -> ClockSummary:
        clock = self.clock(now)
        upcoming = [
            {"key": a.key, "kind": a.kind, "fire_at": a.fire_at.isoformat()}
            for a in self.pending(self.alerts(clock))
            if a.fire_at > now
        ]
        return ClockSummary(
            application=self.app,
            events=list(self.events),
            clock=clock,
            upcoming_alerts=upcoming,
            sent_alerts=sorted(self.sent),
            risk_flagged=self.risk,
        )
