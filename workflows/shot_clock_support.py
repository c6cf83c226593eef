"""Everything ShotClockWorkflow needs that is not Temporal orchestration: the clock's state
and the pure logic over it, the search attributes, the activity options.

The worker passes this module through the workflow sandbox (`worker.WORKFLOW_RUNNER`), so
it is imported once per process instead of once per workflow run: a cached clock then
costs only its thin workflow class and its state. Nothing here may do I/O or read the
clock or randomness; the time always comes in as an argument (`workflow.now()`).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import date, datetime, timedelta
from typing import Any

from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

from models.shot_clock import (
    ApplicantNoticeInput,
    ApplicantUploadInput,
    ApplicationRecord,
    CalendarSnapshot,
    ClockEvent,
    ClockSummary,
    DecisionInput,
    EventRecord,
    IncompleteNoticeInput,
    NonTollingEventInput,
    NoticeRequest,
    RebaseInput,
    ResubmissionInput,
    ShotClockInput,
    TollingAgreementInput,
    WithdrawalInput,
)
from rules.kernel.alerts import Alert, local_today
from rules.kernel.calendars import CalendarLayers
from rules.kernel.holidays import HolidayDataError
from rules.kernel.input import TimelineError, parse_date
from rules.kernel.jurisdictions import Jurisdiction
from rules.shot_clock.alerts import plan_alerts
from rules.shot_clock.checks import ActionRefused, check_new_event
from rules.shot_clock.engine import compute
from rules.shot_clock.outcomes import TERMINAL_STATUSES, expiry_remedy
from rules.shot_clock.packs import RulePack, governing_category, pack_from_data, rule_pack
from rules.shot_clock.timeline import parse_timeline, timeline_layers
from workflows import clock_common as common

SHOT_CLOCK_DATE = SearchAttributeKey.for_datetime("ShotClockDate")
APPLICATION_CATEGORY = SearchAttributeKey.for_keyword("ApplicationCategory")
DEEMED_APPROVAL_RISK = SearchAttributeKey.for_bool("DeemedApprovalRisk")

APPLICANT_NOTICE_KINDS = (
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
)
NON_TOLLING_KINDS = ("moratorium", "hearing_notice", "appeal")


# What the earliest reading can say that puts the city at risk (8.1): the risk flag, the
# dashboard and `clock list --at-risk` follow it.
AT_RISK_STATUSES = frozenset({"expired", "deemed_granted", "deemed_approved", "decided_late"})
DEEMED_STATUSES = ("deemed_granted", "deemed_approved")


def frozen_calendar(
    city: Jurisdiction, closures: list[tuple[str, str]] | None = None
) -> CalendarSnapshot:
    """The calendar and rule pack a clock opened now freezes (8.9): every layer of the
    city as the data files say today, with its configured closure days and the closure
    days stored in the database (`closures`: (ISO date, reason))."""
    return CalendarSnapshot(
        jurisdiction=city.key,
        state=city.state,
        time_zone=city.time_zone,
        rule_pack=city.rule_pack,
        local_holidays=list(city.local_closures),
        layers=current_layers(city, closures).to_dict(),
        pack_data=dict(rule_pack(city.rule_pack).data),
    )


def rebase_input(
    city: Jurisdiction,
    reason: str,
    requested_by: str,
    closures: list[tuple[str, str]] | None = None,
    day: str = "",
) -> RebaseInput:
    """What `clock rebase` sends: the city's current pack and layers with the closure
    days stored in the database, and why."""
    return RebaseInput(
        reason=reason,
        requested_by=requested_by,
        layers=current_layers(city, closures).to_dict(),
        pack_data=dict(rule_pack(city.rule_pack).data),
        date=day,
    )


def current_layers(
    city: Jurisdiction, closures: list[tuple[str, str]] | None = None
) -> CalendarLayers:
    layers = city.calendar_layers()
    extra = [(date.fromisoformat(day), reason) for day, reason in closures or []]
    return layers.with_closures(extra) if extra else layers


def search_attribute_updates(
    clock: dict[str, Any], jurisdiction: str, risk: bool
) -> list[SearchAttributeUpdate[Any]]:
    """The operator's view of a clock in the Temporal UI (also used at start)."""
    updates: list[SearchAttributeUpdate[Any]] = [
        common.CLOCK_STATUS.value_set(clock["status"]),
        common.JURISDICTION.value_set(jurisdiction),
        APPLICATION_CATEGORY.value_set(clock["category"]),
        DEEMED_APPROVAL_RISK.value_set(risk),
    ]
    return updates + common.date_attributes(
        clock,
        ((SHOT_CLOCK_DATE, "shot_clock_date"), (common.CONSERVATIVE_DATE, "conservative_date")),
    )


def is_closed(clock: dict[str, Any]) -> bool:
    return clock["status"] in TERMINAL_STATUSES


def conservative_status(clock: dict[str, Any]) -> str:
    return clock.get("conservative_status") or clock["status"]


def at_risk(clock: dict[str, Any]) -> bool:
    """Whether the earliest reading says the city has lost, or may lose, the clock."""
    return conservative_status(clock) in AT_RISK_STATUSES


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


class ClockState(common.Timeline[ClockEvent]):
    """One clock's state (carried across continue-as-new) and the rules applied to it.

    The workflow owns the orchestration (activities, timers, the lock); this owns the
    timeline, the keys of the alerts sent or skipped (common.Timeline), and what every
    notice says.
    """

    def __init__(self, input: ShotClockInput) -> None:
        super().__init__(input)
        self.app = input.application
        self.risk = input.risk_flagged
        self.rebases: list[dict[str, Any]] = list(input.rebases)
        self._frozen: tuple[Any, ...] | None = None

    def carry_over(self) -> ShotClockInput:
        return ShotClockInput(
            application=self.app,
            events=self.events,
            sent_alert_keys=sorted(self.sent),
            skipped_alert_keys=sorted(self.skipped),
            risk_flagged=self.risk,
            event_sequence=self.seq,
            rebases=list(self.rebases),
        )

    # -- the timeline and the rules ------------------------------------------------------

    def frozen(self) -> tuple[RulePack | None, CalendarLayers | None]:
        """The rule pack and calendar frozen at open (8.9) with the closure days added
        since, parsed once and kept until a closure or a rebase changes them."""
        cal = self.app.calendar
        key = (
            id(cal.layers),
            id(cal.pack_data),
            tuple(cal.local_holidays),
        )
        if self._frozen is None or self._frozen[0] != key:
            pack = None if cal.pack_data is None else pack_from_data(cal.pack_data)
            layers = None
            if cal.layers is not None:
                layers = CalendarLayers.from_dict(cal.layers).with_closures(
                    (date.fromisoformat(d), "") for d in cal.local_holidays
                )
            self._frozen = (key, pack, layers)
        return self._frozen[1], self._frozen[2]

    def parse(self, raw: dict[str, Any]) -> Any:
        pack, layers = self.frozen()
        return parse_timeline(raw, pack=pack, calendar=layers)

    def base_timeline(self) -> dict[str, Any]:
        frozen = self.app.calendar.layers is not None
        raw: dict[str, Any] = {
            "state": self.app.calendar.state,
            # A frozen calendar already holds the closures (see frozen()).
            "local_holidays": [] if frozen else list(self.app.calendar.local_holidays),
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
        point = (day or self.today(now)).isoformat()
        raw["as_of"] = point
        # as_of is a point of view (8.7): the clock as it stood then.
        raw["events"] = [e for e in raw["events"] if e["date"] <= point]
        clock = compute(self.parse(raw))
        if self.rebases:
            lines = [r for r in self.rebases if r["date"] <= point]
            clock["ledger"] = sorted(
                [*clock["ledger"], *(self._rebase_line(r) for r in lines)],
                key=lambda entry: entry["date"],
            )
        return clock

    @staticmethod
    def _rebase_line(record: dict[str, Any]) -> dict[str, Any]:
        return {
            "date": record["date"],
            "event": "rebase",
            "effect": record["effect"],
            "days": record.get("moved"),
            "rule": "Administrator's audited rebase to the current rules",
        }

    def alerts(self, clock: dict[str, Any]) -> list[Alert]:
        return plan_alerts(
            clock,
            time_zone=self.app.calendar.time_zone,
            reminder_offsets=self.app.reminder_offsets,
            window_alert_offsets=self.app.window_alert_offsets,
            judicial_review_offsets=self.app.judicial_review_offsets,
        )

    def check(self, event: ClockEvent, now: datetime) -> None:
        """Refuse (ValueError, the update's rejection) an event the rules forbid."""
        pack, layers = self.frozen()
        try:
            check_new_event(
                self.base_timeline(),
                event.to_contract(),
                self.today(now),
                pack=pack,
                calendar=layers,
            )
        except (ActionRefused, TimelineError) as refused:
            raise ValueError(str(refused)) from None

    # -- rebase (8.9) ------------------------------------------------------------------

    def check_rebase(self, input: RebaseInput, now: datetime) -> None:
        """Refuse a rebase that cannot be applied (ValueError, the update's rejection)."""
        if not input.reason.strip():
            raise ValueError("reason: a rebase must say why (it goes into the ledger)")
        if not input.requested_by.strip():
            raise ValueError("requested_by: a rebase must name the administrator")
        try:
            layers = CalendarLayers.from_dict(input.layers, "layers")
            pack = pack_from_data(input.pack_data)
        except (HolidayDataError, ValueError) as err:
            raise ValueError(str(err)) from None
        if pack.key != self.app.calendar.rule_pack:
            raise ValueError(
                f"pack_data: the rule pack is '{pack.key}', this clock counts under "
                f"'{self.app.calendar.rule_pack}'"
            )
        if input.date:
            try:
                parse_date(input.date, "date")
            except TimelineError as err:
                raise ValueError(str(err)) from None
        clock = self.clock(now)
        if is_closed(clock):
            raise ValueError(f"the application is already closed ({clock['status']})")
        del layers

    def rebase(self, input: RebaseInput, now: datetime) -> dict[str, Any]:
        """Apply the given data to this clock and record what moved, with the reason."""
        before = self.clock(now)
        old_pack, old_layers = self.frozen()
        old_version = (
            old_pack.version if old_pack else rule_pack(self.app.calendar.rule_pack).version
        )
        # A clock opened before freezing counted on the current files: compare with them.
        old_calendar = old_layers or timeline_layers(self.parse(self.base_timeline()))
        self.app.calendar.layers = dict(input.layers)
        self.app.calendar.pack_data = dict(input.pack_data)
        self._frozen = None
        new_pack, new_layers = self.frozen()
        after = self.clock(now)
        day = input.date or self.today(now).isoformat()
        moved: list[str] = []
        if new_pack is not None and new_pack.version != old_version:
            moved.append(
                f"rule pack {self.app.calendar.rule_pack} {old_version} -> {new_pack.version}"
            )
        if new_layers is not None:
            start = date.fromisoformat(after["start_date"] or day)
            end = start + timedelta(days=3 * 365)
            reference = old_calendar if old_calendar is not None else new_layers
            moved.extend(new_layers.changes_from(reference, start, end))
        for field in ("shot_clock_date", "conservative_date", "status", "conservative_status"):
            if before.get(field) != after.get(field):
                moved.append(f"{field} {before.get(field)} -> {after.get(field)}")
        shift = common.days_moved(before, after)
        record = {
            "date": day,
            "requested_by": input.requested_by,
            "reason": input.reason.strip(),
            "moved": shift,
            "effect": (
                f"rebased on the current rules by {input.requested_by}: {input.reason.strip()}. "
                + ("; ".join(moved) if moved else "nothing moved")
            ),
        }
        self.rebases.append(record)
        return record

    def check_local_closure(self, day: str) -> None:
        common.check_closure_day(day, lambda d: d in self.app.calendar.local_holidays)

    def add_local_closure(self, day: str) -> None:
        self.app.calendar.local_holidays = sorted({*self.app.calendar.local_holidays, day})

    # -- what the activities are given -------------------------------------------------

    def application_record(self, clock: dict[str, Any], workflow_id: str) -> ApplicationRecord:
        return ApplicationRecord(
            application=self.app.for_activity(),
            clock=clock,
            workflow_id=workflow_id,
            risk_flagged=self.risk,
        )

    def event_record(self, event: ClockEvent) -> EventRecord:
        return EventRecord(application_id=self.app.application_id, event=event)

    def search_attributes(
        self, clock: dict[str, Any], conservative: bool = False
    ) -> list[SearchAttributeUpdate[Any]]:
        """With `conservative`, ClockStatus and the risk flag follow the earliest reading."""
        if not conservative:
            return search_attribute_updates(clock, self.app.calendar.jurisdiction, self.risk)
        view = dict(clock, status=conservative_status(clock))
        risk = self.risk or at_risk(clock)
        return search_attribute_updates(view, self.app.calendar.jurisdiction, risk)

    def flag_risk(self, clock: dict[str, Any]) -> None:
        """Raise the risk flag when the earliest reading says the city is at risk."""
        if at_risk(clock):
            self.risk = True

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
            application=self.app.for_activity(),
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
            timeline = self.parse(self.base_timeline())
            category = governing_category(
                timeline, timeline.pack or rule_pack(self.app.calendar.rule_pack)
            )
            details["remedy"] = expiry_remedy(category, self.app.calendar.state)
            to = [contacts.supervisor_email, contacts.attorney_email]
            cc = [contacts.planner_email]
        elif alert.kind == "judicial_review_reminder":
            to = [contacts.attorney_email, contacts.supervisor_email]
            cc = [contacts.planner_email]
            details["status"] = conservative_status(clock)
            details["reading"] = clock.get("conservative_reading", "")
        else:
            to, cc = [contacts.planner_email], []
        return self.notice(alert.key, alert.kind, to, cc, clock, details)

    def status_notice(
        self, clock: dict[str, Any], conservative: bool = False
    ) -> tuple[str, NoticeRequest] | None:
        """The attorney's one notice when the applicant's notices close the clock; with
        `conservative`, also when they take effect only under the earliest reading (8.2):
        the attorney and the planner are told at once that the notice may be effective."""
        status = clock["status"]
        contacts = self.app.contacts
        key = f"status:{status}"
        if status in DEEMED_STATUSES:
            # Skipped: a clock imported in this status (its attorney already knows).
            if key in self.sent or key in self.skipped:
                return None
            return key, self.notice(
                key,
                "deemed_status",
                [contacts.attorney_email, contacts.supervisor_email],
                [contacts.planner_email],
                clock,
                {"status": status},
            )
        earliest = conservative_status(clock)
        key = f"status:conservative:{earliest}:{clock.get('judicial_review_deadline')}"
        done = key in self.sent or key in self.skipped
        if not conservative or earliest not in DEEMED_STATUSES or done:
            return None
        return key, self.notice(
            key,
            "deemed_status",
            [contacts.attorney_email, contacts.planner_email],
            [contacts.supervisor_email],
            clock,
            {
                "status": earliest,
                "conservative": True,
                "reading": clock.get("conservative_reading", ""),
                "literal_status": status,
            },
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
        return ClockSummary(
            application=self.app,
            events=list(self.events),
            clock=clock,
            upcoming_alerts=self.upcoming(self.alerts(clock), now),
            sent_alerts=sorted(self.sent),
            risk_flagged=self.risk,
        )
