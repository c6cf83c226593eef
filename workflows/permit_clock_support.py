"""Everything PermitClockWorkflow needs that is not Temporal orchestration: the clock's
state, the request to the pure rules core, the alert plan, the notices and the search
attributes.

Passed through the workflow sandbox by the worker (imported once per process). No I/O,
no wall clock: the time always comes in as an argument (`workflow.now()`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from temporalio.common import SearchAttributeKey, SearchAttributeUpdate

from models.permit_clock import (
    PermitClockInfo,
    PermitClockInput,
    PermitClockRecord,
    PermitClockSummary,
    PermitEvent,
    PermitEventInput,
    PermitEventRecord,
    PermitNoticeRequest,
    PermitRebaseInput,
    all_clocks,
)
from rules.kernel.alerts import SEND_AT, local_instant, local_today
from rules.kernel.calendars import CalendarLayers
from rules.permit_clocks import (
    PermitClockError,
    check_new_event,
    compute_permit_clock,
    reminder_plan,
)
from rules.permit_clocks.jurisdictions import base_layers
from rules.permit_clocks.packs import PERMIT_RULES
from workflows import clock_common as common

# Shared with the shot clock (clock_common: status, conservative date, jurisdiction).
# Permit clocks add their rule, literal due date and consequence.
PERMIT_RULE = SearchAttributeKey.for_keyword("PermitRule")
PERMIT_DUE_DATE = SearchAttributeKey.for_datetime("PermitDueDate")
PERMIT_CONSEQUENCE = SearchAttributeKey.for_keyword("PermitConsequence")


# Deadlines the applicant must act on (the permit lapses, vesting is lost): reminders go
# to the applicant with how to ask for more time. Every other consequence falls on the
# city (deemed complete, deemed approved, ...): reminders go to staff.
APPLICANT_CONSEQUENCES = frozenset({"expired", "vesting_lost"})
# Statuses after which nothing can change a clock any more.
DONE_STATUSES = frozenset({"met", "met_late", "withdrawn"})
COMPANION_EVENT = "companion_expiry"


def search_attribute_updates(
    clock: dict[str, Any], jurisdiction: str
) -> list[SearchAttributeUpdate[Any]]:
    """The operator's view of a permit clock in the Temporal UI."""
    updates: list[SearchAttributeUpdate[Any]] = [
        common.CLOCK_STATUS.value_set(clock.get("conservative_status") or clock["status"]),
        common.JURISDICTION.value_set(jurisdiction),
        PERMIT_RULE.value_set(clock["rule"]),
        PERMIT_CONSEQUENCE.value_set(clock.get("consequence") or ""),
    ]
    return updates + common.date_attributes(
        clock, ((PERMIT_DUE_DATE, "due_date"), (common.CONSERVATIVE_DATE, "conservative_date"))
    )


def clock_paths(clock: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """(path, clock) for the clock and its chained clocks; a path is "parent>child", the
    same as the core's reminder plan, so alert keys are unique per chained clock."""
    here = f"{path}>{clock['rule']}" if path else clock["rule"]
    out = [(here, clock)]
    for chained in clock.get("next") or []:
        out.extend(clock_paths(chained, here))
    return out


def _find(clock: dict[str, Any], path: str) -> dict[str, Any]:
    return next((one for here, one in clock_paths(clock) if here == path), clock)


def is_applicant_deadline(clock: dict[str, Any]) -> bool:
    """The applicant must act (an expiry, an applicant's deadline): remind the applicant.
    The rule's family says so; a result without one falls back to its consequence."""
    family = clock.get("family")
    if family is not None:
        return family in ("expiry", "applicant_deadline")
    return clock.get("consequence") in APPLICANT_CONSEQUENCES


def is_finished(clock: dict[str, Any]) -> bool:
    """Nothing more can happen: met or withdrawn, or an expired permit (an extension
    after expiry is refused), for this clock and every clock it chains."""
    for one in all_clocks(clock):
        status = one["status"]
        if status in DONE_STATUSES:
            continue
        if status == "lapsed" and one.get("consequence") == "expired":
            continue
        return False
    return True


@dataclass(frozen=True)
class PermitAlert:
    key: str
    kind: str
    fire_at: datetime  # UTC
    rule: str
    details: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


# Frozen calendar layers by fingerprint, shared by every clock this worker holds: each
# clock's input carries its own copy (its history must), but thousands of clocks of one
# city hold one dict instead of thousands (about 17 KB of JSON each). Same fingerprint,
# same content, so sharing cannot change a result.
_SHARED_LAYERS: dict[str, dict[str, Any]] = {}


def shared_layers(layers: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    if not layers or not fingerprint:
        return layers
    return _SHARED_LAYERS.setdefault(fingerprint, layers)


class PermitClockState(common.Timeline[PermitEvent]):
    """One permit's clocks (carried across continue-as-new) and the rules applied to
    them. The workflow owns timers, activities and the lock; this owns the timeline,
    the keys of the alerts sent or skipped (common.Timeline) and what every notice says."""

    def __init__(self, input: PermitClockInput) -> None:
        super().__init__(input)
        self.info: PermitClockInfo = input.info
        cal = self.info.calendar
        cal.layers = shared_layers(cal.layers, cal.fingerprint)
        self.followers: list[str] = list(input.followers)
        self.announced_expiry = input.announced_expiry
        self.planned_at = input.planned_at
        self.closures: list[dict[str, Any]] = list(input.closures)
        self.rebases: list[dict[str, Any]] = list(input.rebases)

    def carry_over(self) -> PermitClockInput:
        return PermitClockInput(
            info=self.info,
            events=self.events,
            sent_alert_keys=sorted(self.sent),
            skipped_alert_keys=sorted(self.skipped),
            event_sequence=self.seq,
            followers=list(self.followers),
            announced_expiry=self.announced_expiry,
            planned_at=self.planned_at,
            closures=list(self.closures),
            rebases=list(self.rebases),
        )

    # -- the rules --------------------------------------------------------------------

    def request(self, events: list[PermitEvent], as_of: date) -> dict[str, Any]:
        cal = self.info.calendar
        return {
            "rule": self.info.rule,
            "jurisdiction": cal.jurisdiction,
            **({"jurisdiction_facts": cal.place} if cal.place else {}),
            **({"calendar_snapshot": cal.layers} if cal.layers else {}),
            "facts": dict(self.info.facts),
            "events": [e.to_contract() for e in events],
            "as_of": as_of.isoformat(),
            # Pinned at open: a later pack version shows as a warning on this clock.
            **({"rule_version": cal.rule_version} if cal.rule_version else {}),
        }

    def today(self, now: datetime) -> date:
        return local_today(now, self.info.calendar.time_zone)

    def clock(self, now: datetime, as_of: str | None = None) -> dict[str, Any]:
        day = self.today(now) if as_of is None else date.fromisoformat(as_of)
        clock = compute_permit_clock(self.request(self.events, day))
        # The closure days added since opening, each on the day it was added (as_of is a
        # point of view: the clock as it stood then).
        lines = [_closure_line(r) for r in self.closures if r["date"] <= day.isoformat()]
        lines += [_rebase_line(r) for r in self.rebases if r["date"] <= day.isoformat()]
        if lines:
            clock["ledger"] = sorted([*clock["ledger"], *lines], key=lambda e: e["date"])
        return clock

    # -- rebase onto the current rules -------------------------------------------------

    def check_rebase(self, input: PermitRebaseInput) -> None:
        """Refuse (ValueError, the update's rejection) a rebase without a reason or an
        administrator, or onto anything but the rule's current version."""
        if not input.reason.strip():
            raise ValueError("reason: a rebase must say why (it goes into the ledger)")
        if not input.requested_by.strip():
            raise ValueError("requested_by: a rebase must name the administrator")
        current = PERMIT_RULES[self.info.rule].rule_version
        if input.rule_version != current:
            raise ValueError(
                f"rule_version: {input.rule_version!r} is not the current version of "
                f"{self.info.rule} ({current})"
            )
        if self.info.calendar.rule_version == current:
            raise ValueError(f"the clock already counts on {current}: nothing to rebase")

    def rebase(self, input: PermitRebaseInput, now: datetime) -> dict[str, Any]:
        """Apply the current rule version; the ledger says what it moved and who did it."""
        before = self.clock(now)
        cal = self.info.calendar
        old = cal.rule_version or "the version it was opened under"
        cal.rule_version = input.rule_version
        after = self.clock(now)
        moved = [
            f"{path} {name} {old_clock.get(name)} -> {new_clock.get(name)}"
            for (path, old_clock), (_, new_clock) in zip(
                clock_paths(before), clock_paths(after), strict=False
            )
            for name in ("due_date", "conservative_date", "status")
            if old_clock.get(name) != new_clock.get(name)
        ]
        record = {
            "date": self.today(now).isoformat(),
            "from": old,
            "to": input.rule_version,
            "by": input.requested_by,
            "reason": input.reason.strip(),
            "effect": (
                f"rebased on {input.rule_version} by {input.requested_by}: "
                f"{input.reason.strip()}. " + ("; ".join(moved) if moved else "no date moved")
            ),
        }
        self.rebases.append(record)
        return record

    # -- closure days added after opening (shot-clocks.md 8.10) -------------------------

    def layers(self) -> CalendarLayers:
        """The frozen calendar; a clock opened without one counts on the city's files."""
        cal = self.info.calendar
        if cal.layers:
            return CalendarLayers.from_dict(cal.layers, "calendar")
        return base_layers(cal.jurisdiction, None)

    def check_local_closure(self, day: str) -> None:
        """Refuse (ValueError, the update's rejection) a day that is not a date or that
        the calendar already closes: the same day twice changes nothing."""
        closed = self.layers().closure_dates
        common.check_closure_day(day, lambda d: date.fromisoformat(d) in closed)

    def add_local_closure(
        self, day: str, added_by: str, now: datetime, reason: str = ""
    ) -> dict[str, Any]:
        """Add the day to the frozen calendar's closure layer and record what it moved."""
        before = self.clock(now)
        layers = self.layers().with_closures([(date.fromisoformat(day), reason)])
        cal = self.info.calendar
        cal.layers = shared_layers(layers.to_dict(), layers.fingerprint)
        cal.fingerprint = layers.fingerprint
        after = self.clock(now)
        moved = [
            f"{path} {name} {old.get(name)} -> {new.get(name)}"
            for (path, old), (_, new) in zip(clock_paths(before), clock_paths(after), strict=False)
            for name in ("due_date", "conservative_date")
            if old.get(name) != new.get(name)
        ]
        shift = common.days_moved(before, after)
        record = {
            "date": self.today(now).isoformat(),
            "closed": day,
            "added_by": added_by,
            "reason": reason,
            "moved": shift,
            "effect": (
                f"closure day {day}{f' ({reason})' if reason else ''} added by "
                f"{added_by or 'an administrator'}: "
                + ("; ".join(moved) if moved else "no date moved")
            ),
        }
        self.closures.append(record)
        return record

    def check(self, event: PermitEvent, now: datetime) -> None:
        """Refuse (ValueError: the update's rejection) an event the rules core refuses or
        a date in the future: nothing is recorded then."""
        today = self.today(now)
        refuse_event(self.request(self.events, today), event, today)

    def companion_event(self, until: str, now: datetime) -> PermitEvent | None:
        """The `companion_expiry` event for a companion's new expiry, unless it is
        already the last one recorded or the rule refuses it."""
        last = next((e for e in reversed(self.events) if e.type == COMPANION_EVENT), None)
        if last is not None and last.fields.get("until") == until:
            return None
        # Recorded on the day the companion's expiry moved, never before the last event.
        day = max([self.today(now).isoformat(), *(e.date for e in self.events)])
        event = PermitEvent(
            COMPANION_EVENT,
            day,
            {"until": until},
            note="the companion building permit's expiry moved",
            recorded_by="companion permit",
        )
        try:
            compute_permit_clock(self.request([*self.events, event], date.fromisoformat(day)))
        except Exception:  # noqa: BLE001 - the rule cannot take it: ignore the signal
            return None
        return event

    # -- alerts -----------------------------------------------------------------------

    def alerts(self, clock: dict[str, Any], now: datetime) -> list[PermitAlert]:
        """Every alert of the clock and its chained clocks as computed now, in order: the
        core's reminder plan (in business days for business-day clocks) and, for a clock
        already lapsed on the conservative reading, its escalation."""
        tz = self.info.calendar.time_zone
        offsets = [o for o in self.info.reminder_offsets if o > 0]
        plan = reminder_plan(self.request(self.events, self.today(now)), offsets, clock)
        out: list[PermitAlert] = []
        for reminder in plan:
            due = reminder.due_date.isoformat()
            about = _find(clock, reminder.path)
            if reminder.kind == "lapse":
                out.append(self._lapse(reminder.path, due, tz))
                continue
            kind = (
                "permit_expiry_reminder"
                if is_applicant_deadline(about)
                else "permit_deadline_alert"
            )
            out.append(
                PermitAlert(
                    key=f"{reminder.path}:reminder:{due}:{reminder.offset}",
                    kind=kind,
                    fire_at=local_instant(reminder.date, SEND_AT, tz),
                    rule=reminder.path,
                    details={
                        "offset": reminder.offset,
                        "unit": "business days" if reminder.unit == "business_days" else "days",
                        "date": due,
                    },
                )
            )
        planned = {a.key for a in out}
        for path, one in clock_paths(clock):
            lapsed_on = one.get("conservative_date")
            if lapsed_on and one.get("conservative_status") == "lapsed":
                lapse = self._lapse(path, lapsed_on, tz)
                if lapse.key not in planned:
                    out.append(lapse)
        out.sort(key=lambda a: (a.fire_at, a.key))
        return out

    def _lapse(self, path: str, due: str, tz: str) -> PermitAlert:
        # The clock runs out at the end of the conservative date.
        day = date.fromisoformat(due) + timedelta(days=1)
        return PermitAlert(
            key=f"{path}:lapse:{due}",
            kind="permit_lapse_escalation",
            fire_at=local_instant(day, time(0, 0), tz),
            rule=path,
            details={"lapsed_on": due},
        )

    # -- what the activities are given --------------------------------------------------

    def record(self, clock: dict[str, Any], workflow_id: str) -> PermitClockRecord:
        escalated = any(":lapse:" in key for key in self.sent)
        return PermitClockRecord(self.info.for_activity(), clock, workflow_id, escalated)

    def event_record(self, event: PermitEvent) -> PermitEventRecord:
        return PermitEventRecord(self.info.clock_id, event)

    def search_attributes(self, clock: dict[str, Any]) -> list[SearchAttributeUpdate[Any]]:
        return search_attribute_updates(clock, self.info.calendar.jurisdiction)

    def alert_notice(self, alert: PermitAlert, clock: dict[str, Any]) -> PermitNoticeRequest:
        contacts = self.info.contacts
        about = _find(clock, alert.rule)
        details = {**alert.details, "rule_clock": about}
        if alert.kind == "permit_lapse_escalation":
            to = [contacts.supervisor_email, contacts.attorney_email]
            cc = [contacts.staff_email, contacts.project_manager_email]
        elif alert.kind == "permit_expiry_reminder":
            # The core says by when and how to ask (the last day before expiry, or the
            # earlier day a rule requires); no later than the conservative date.
            ext = about.get("extensions") or {}
            ask_by = [d for d in (ext.get("request_by"), about.get("conservative_date")) if d]
            details["last_day_to_ask"] = min(ask_by) if ask_by else None
            details["extension_help"] = ext.get("how") or ""
            details["extensions_left"] = ext.get("left")
            details["can_extend"] = bool(ext.get("how")) and ext.get("left") != 0
            to = [contacts.applicant_email or contacts.staff_email]
            cc = [contacts.staff_email, contacts.project_manager_email]
        else:
            to = [contacts.staff_email]
            cc = [contacts.project_manager_email]
        return PermitNoticeRequest(
            notice_key=f"permit:{self.info.clock_id}:{alert.key}",
            kind=alert.kind,
            info=self.info.for_activity(),
            to=[a for a in to if a],
            cc=[a for a in cc if a],
            clock=clock,
            details=details,
        )

    def summary(self, now: datetime) -> PermitClockSummary:
        clock = self.clock(now)
        return PermitClockSummary(
            info=self.info,
            events=list(self.events),
            clock=clock,
            upcoming_alerts=self.upcoming(self.alerts(clock, now), now),
            sent_alerts=sorted(self.sent),
            followers=list(self.followers),
        )


def _rebase_line(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "date": record["date"],
        "event": "rebase",
        "effect": record["effect"],
        "days": None,
        "rule": f"rules {record['from']} -> {record['to']} (an administrator's audited rebase)",
        "reading": "literal",
    }


def _closure_line(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "date": record["date"],
        "event": "local_closure",
        "effect": record["effect"],
        "days": record.get("moved"),
        "rule": "Code Civ. Proc. 12b (a full day the city office is closed), added after opening",
        "reading": "literal",
    }


def event_from_input(input: PermitEventInput) -> PermitEvent:
    return PermitEvent(
        type=input.type,
        date=input.date,
        fields=dict(input.fields),
        note=input.note,
        recorded_by=input.recorded_by,
    )


class EventRefused(ValueError):
    """The rules refuse a new event; the message is for the planner."""


def refuse_event(request: dict[str, Any], event: PermitEvent, today: date) -> list[str]:
    """Raise EventRefused unless `event` may be added to the timeline in `request`;
    returns its warnings. The rules core decides (an event the rule does not take,
    negative days, a second 65957 extension, an extension after expiry, ...), with its
    own words; a date after today is refused here first, in plain words."""
    try:
        day = date.fromisoformat(event.date)
    except (TypeError, ValueError):
        raise EventRefused(f"date: '{event.date}' is not a date (YYYY-MM-DD)") from None
    if day > today:
        raise EventRefused(
            f"date: {event.date} is in the future (today is {today.isoformat()}); "
            "record an event once it has happened"
        )
    try:
        return check_new_event(request, event.to_contract())
    except PermitClockError as err:
        # Every surface says "refused" in its own way (the CLI's "refused: ", the page's
        # "Not recorded: "): the sentence itself starts with what was refused.
        message = str(err).removeprefix("refused: ")
        if "nothing was recorded" not in message:
            message += "; nothing was recorded"
        raise EventRefused(message) from None
