"""One pass over a permit clock's events under one reading of the rules.

A pass is a small state machine driven by the rule record: start and restart events
open a phase (anchor + amount in the rule's counting), pauses stretch it, extensions
re-anchor it, a companion permit's expiry can only lengthen it, and met, lapse,
terminating and withdrawal events close it. Events the rule cannot act on are kept
as `issues` with severity "refuse": they have no effect here, and the workflow's
update validator refuses them before they are stored (checks.py).

This module holds the pass's state, its dispatch of events and its results; the steps
live by purpose: periods.py (a phase's period and counting), starts.py (start, restart,
incomplete-notice items), pauses.py, extensions.py (and a companion's expiry) and
outcomes.py (met, answered, lapsed, terminated).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from rules.kernel.counting import Pause, business_days_between, iso
from rules.permit_clocks import statutory
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.cure import meet_cure, start_cure
from rules.permit_clocks.extensions import companion, extension
from rules.permit_clocks.outcomes import check_lapse, meet, terminate
from rules.permit_clocks.pack_records import STATUTORY_EVENT, Rule
from rules.permit_clocks.pauses import finish_pause, pause, resume
from rules.permit_clocks.readings import Reading
from rules.permit_clocks.request import PermitEvent
from rules.permit_clocks.starts import check_items, restart, start


@dataclass(frozen=True)
class Issue:
    index: int
    severity: str  # "refuse" (no effect, refused when recorded) or "warn"
    message: str


@dataclass(slots=True)
class Pass:
    rule: Rule
    facts: Mapping[str, Any]
    calendar: PermitCalendar
    reading: Reading
    as_of: date | None
    chained: bool = False
    chained_start: date | None = None
    keep_ledger: bool = True
    # The days this pass asked its calendar about, as one span [probe_low, probe_high]:
    # a closure outside it cannot have changed anything the pass did (compute.py).
    probe_low: date | None = None
    probe_high: date | None = None
    final: date | None = None  # the deadline once every event is applied (see finish)
    final_status: str = "awaiting_start"
    done: bool = False  # finish() ran: `final` is the effective deadline from then on
    _ccp12: Any = None
    _business: Any = None
    ledger: list[dict[str, Any]] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    provisional_notes: list[str] = field(default_factory=list)
    state: str = "awaiting_start"
    start_date: date | None = None
    anchor: date | None = None
    amount: int = 0
    counting: str = ""
    pauses: list[Pause] = field(default_factory=list)
    open_pause: date | None = None
    paused_total: int = 0
    first_pause: date | None = None
    due: date | None = None
    nominal: date | None = None
    original_due: date | None = None
    companion_until: date | None = None
    pending_request: date | None = None
    denied_on: date | None = None
    ext_used: int = 0
    ext_months: int = 0
    ext_grants: list[tuple[date, int]] = field(default_factory=list)  # (granted on, months)
    hard_stop: date | None = None
    met_date: date | None = None
    completion: date | None = None
    terminated: tuple[str, str] | None = None  # (consequence, citation)
    seen: set[str] = field(default_factory=set)
    first_items: frozenset[str] | None = None
    original_nominal: date | None = None  # the first expiry before any roll
    ended_on: date | None = None  # the last day of a life a late grant cannot revive
    statutory_seen: set[str] = field(default_factory=set)
    statutory_months: int = 0
    curing: bool = False  # in a cure period reopened after the clock was met

    # ----------------------------------------------------------------- helpers

    def line(self, when: date, event: str, effect: str, days: int | None, rule: str) -> None:
        if not self.keep_ledger:
            return  # an alternative reading: only its dates and status are reported
        self.ledger.append(
            {
                "date": iso(when),
                "event": event,
                "effect": effect,
                "days": days,
                "rule": rule,
                "reading": self.reading_label,
            }
        )

    @property
    def reading_label(self) -> str:
        return self.reading.label

    def refuse(self, event: PermitEvent, message: str) -> None:
        self.issues.append(Issue(event.index, "refuse", message))
        self.line(event.date, event.type, f"no effect: {message}", None, self.rule.citation)

    def warn(self, event: PermitEvent | None, message: str) -> None:
        self.issues.append(Issue(-1 if event is None else event.index, "warn", message))

    def closed(self, convention: str) -> Any:
        if convention == "ccp12":
            if self._ccp12 is None:
                self._ccp12 = self.calendar.closed(convention, self._calendar_reading)
            return self._ccp12
        if self._business is None:
            self._business = self.calendar.closed(convention, self._calendar_reading)
        return self._business

    @property
    def _calendar_reading(self) -> Any:
        return "conservative" if self.reading.roll == "conservative" else "literal"

    def probe(self, low: date, high: date) -> None:
        """Note that the calendar was asked about the days in [low, high]."""
        if self.probe_low is None or low < self.probe_low:
            self.probe_low = low
        if self.probe_high is None or high > self.probe_high:
            self.probe_high = high

    def effective_due(self) -> date | None:
        """The deadline after a companion permit's expiry and a pending extension."""
        own = self.due
        if own is None or self.open_pause is not None:
            return None  # while paused the deadline is not known yet
        if (
            self.companion_until is None
            and self.pending_request is None
            and self.denied_on is None
            and self.hard_stop is None
            and self.ended_on is None
        ):
            return own
        due = own
        if self.companion_until is not None and self.companion_until > own:
            due = self.companion_until
        ext = self.rule.extensions
        if self.pending_request is not None and ext and ext.pending_keeps_alive_days:
            due = max(due, own + timedelta(days=ext.pending_keeps_alive_days))
        if self.denied_on is not None and self.denied_on > due:
            due = self.denied_on
        if self.ended_on is not None:
            due = self.ended_on
        if self.hard_stop is not None and due > self.hard_stop:
            due = self.hard_stop
        return due

    # ------------------------------------------------------------------ events

    def apply(self, event: PermitEvent) -> None:
        rule = self.rule
        kind = event.type
        if kind not in rule.own_events:
            return  # an event for a chained clock
        start_at = self.chained_start
        if self.state == "awaiting_start" and start_at is not None and event.date >= start_at:
            # A chained clock runs from its parent's day: its own later events (an HAA
            # inconsistency notice, a tribe's acceptance) act on it from then on.
            start(self, start_at, None, "chained")
        if rule.statutory:
            statutory.apply_due(self, event.date)
        check_lapse(self, event.date)
        if self.state == "withdrawn":
            self.refuse(event, f"the application was withdrawn; nothing more applies to {rule.id}")
            return
        if kind == "withdrawn" or kind in rule.stopped_by:
            self.state = "withdrawn"
            why = rule.stopped_by.get(kind, "withdrawn")
            self.line(event.date, kind, f"the clock stops: {why}", None, rule.citation)
            return
        is_start = kind in rule.start.events
        if self.state == "awaiting_start":
            self._before_start(event, is_start)
            return
        if is_start and kind not in rule.start.restart:
            self._second_start(event)
            return
        if rule.items is not None and kind == rule.items.event:
            check_items(self, event)
        self._handle(event)

    def _before_start(self, event: PermitEvent, is_start: bool) -> None:
        """An event while the clock awaits its start."""
        if self.chained and is_start:
            return  # a chained clock starts from its parent, not from its own event
        if is_start:
            start(self, event.date, event, event.type)
            return
        self.refuse(
            event, f"{event.type} before the clock started ({' or '.join(self.rule.start.events)})"
        )

    def _second_start(self, event: PermitEvent) -> None:
        """A start event once the clock runs (one that does not restart it)."""
        if self.chained:
            return
        restarts = self.rule.start.restart
        self.refuse(
            event,
            f"the clock already started on {iso(self.start_date)}"
            + (f"; record {restarts[0]} for a new submission" if restarts else ""),
        )

    def _handle(self, event: PermitEvent) -> None:
        """A running clock's event, by what the rule makes of its type."""
        rule = self.rule
        kind = event.type
        cure = rule.cure
        if cure is not None and kind == cure.event:
            start_cure(self, event)
        elif cure is not None and kind == cure.met_by:
            meet_cure(self, event)
        elif kind == STATUTORY_EVENT:
            statutory.record(self, event)
        elif kind in rule.start.restart:
            restart(self, event)
        elif kind in rule.met_by:
            meet(self, event)
        elif rule.pauses is not None and kind == rule.pauses.pause:
            pause(self, event)
        elif rule.pauses is not None and kind == rule.pauses.resume:
            resume(self, event)
        elif rule.extensions is not None and kind in (
            rule.extensions.grant,
            rule.extensions.request,
            rule.extensions.deny,
        ):
            extension(self, event)
        elif kind == rule.companion:
            companion(self, event)
        elif any(t.event == kind for t in rule.terminators):
            terminate(self, event)
        else:
            self.seen.add(kind)
            self.line(event.date, kind, "recorded", None, rule.citation)

    # ------------------------------------------------------------------ finish

    def finish(self) -> None:
        if self.chained and self.state == "awaiting_start" and self.chained_start is not None:
            start(self, self.chained_start, None, "chained")
        finish_pause(self)
        if self.rule.statutory:
            statutory.apply_due(self, self.as_of)
        if self.as_of is not None:
            check_lapse(self, self.as_of)
        self.final = self.effective_due()
        self.final_status = self.status
        self.done = True

    def _due_now(self) -> date | None:
        # After finish() nothing changes the pass: its final deadline is the effective one.
        return self.final if self.done else self.effective_due()

    @property
    def status(self) -> str:
        if self.state == "answered":
            return "met"
        if self.state == "running" and self.open_pause is not None:
            return "paused"
        return self.state

    def days_remaining(self) -> int | None:
        due = self._due_now()
        if self.as_of is None or due is None or self.open_pause is not None:
            if self.open_pause is not None and self.due is not None and self.as_of is not None:
                return self.remaining_at_pause()
            return None
        if self.counting == "business_days":
            self.probe(min(self.as_of, due), max(self.as_of, due))
            return business_days_between(self.as_of, due, self.closed("business_days"))
        return (due - self.as_of).days

    def remaining_at_pause(self) -> int:
        assert self.open_pause is not None and self.due is not None
        if self.counting == "business_days":
            self.probe(min(self.open_pause, self.due), max(self.open_pause, self.due))
            return business_days_between(self.open_pause, self.due, self.closed("business_days"))
        return (self.due - self.open_pause).days

    def consequence(self) -> tuple[str | None, str]:
        """The consequence of a lapse under this pass, and its citation."""
        rule = self.rule
        if self.terminated is not None:
            return self.terminated
        spec = rule.consequence
        if spec.requires_fact is not None and not self.facts.get(spec.requires_fact, True):
            return None, f"{rule.citation} (requires: {rule.facts[spec.requires_fact].label})"
        due = self._due_now()
        for version in spec.versions:
            if due is not None and version.applies(due):
                if version.requires_event and version.requires_event not in self.seen:
                    return version.otherwise, version.citation
                return version.consequence, version.citation
        return spec.default, rule.citation
