"""One pass over a permit clock's events under one reading of the rules.

A pass is a small state machine driven by the rule record: start and restart events
open a phase (anchor + amount in the rule's counting), pauses stretch it, extensions
re-anchor it, a companion permit's expiry can only lengthen it, and met, lapse,
terminating and withdrawal events close it. Events the rule cannot act on are kept
as `issues` with severity "refuse": they have no effect here, and the workflow's
update validator refuses them before they are stored (checks.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from rules.kernel.counting import (
    ONE_DAY,
    Pause,
    add_business_days,
    add_calendar_days,
    add_months,
    business_days_between,
    iso,
    roll_forward,
)
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.packs import Cond, Rule
from rules.permit_clocks.request import PermitEvent

CCP12_RULE = "Code Civ. Proc. 12, 12a, 12b"


@dataclass(frozen=True)
class Reading:
    """One interpretation: how the last day rolls, where an extension counts from,
    and (for a chained clock) which day the parent's completion is taken to be."""

    roll: str = "literal"  # "literal", "conservative" or "unrolled"
    ext_base: str = "literal"  # "literal" or "extension_from_<alternative base>"
    start: str = "literal"  # label of a chained start candidate
    switches: int = field(init=False, compare=False)
    label: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        parts = [v for v in (self.roll, self.ext_base, self.start) if v != "literal"]
        object.__setattr__(self, "switches", len(parts))
        object.__setattr__(self, "label", "+".join(parts) or "literal")


@dataclass(frozen=True)
class StartCandidate:
    label: str
    description: str
    date: date | None


@dataclass(frozen=True)
class Issue:
    index: int
    severity: str  # "refuse" (no effect, refused when recorded) or "warn"
    message: str


_UNIT_WORDS = {"days": "day", "business_days": "business day", "months": "month"}


def _plural(n: int, unit: str) -> str:
    word = _UNIT_WORDS[unit]
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cond_holds(cond: Cond, facts: Mapping[str, Any], event: PermitEvent | None) -> bool:
    if cond.source == "fact":
        return cond.holds(facts.get(cond.name))
    return event is not None and cond.holds(getattr(event, cond.name, None))


def _all_hold(conds: tuple[Cond, ...], facts: Mapping[str, Any], event: PermitEvent | None) -> bool:
    # A loop, not all(<genexpr>): this runs for every period case of every pass.
    for cond in conds:  # noqa: SIM110
        if not _cond_holds(cond, facts, event):
            return False
    return True


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
    hard_stop: date | None = None
    met_date: date | None = None
    completion: date | None = None
    terminated: tuple[str, str] | None = None  # (consequence, citation)
    seen: set[str] = field(default_factory=set)
    first_items: frozenset[str] | None = None

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

    def period_amount(self, event: PermitEvent | None) -> tuple[int, str]:
        """The period for this start: the first case whose conditions hold, plus any
        fact the rule adds (e.g. ordinance months); and a note naming why."""
        period = self.rule.period
        amount, note = period.amount, ""
        for case in period.cases:
            if _all_hold(case.when, self.facts, event):
                amount = case.amount
                if not self.keep_ledger:
                    break
                note = ", ".join(
                    f"{event.field(c.name)}" if c.source == "field" and event else c.describe()
                    for c in case.when
                )
                break
        if period.plus_fact is not None:
            extra = int(self.facts.get(period.plus_fact) or 0)
            if extra:
                amount += extra
                label = self.rule.facts[period.plus_fact].label
                note = f"{period.amount} + {extra} ({label})" if period.amount else label
        if (
            not note
            and self.keep_ledger
            and "units" in self.facts
            and any(c.name == "units" for case in period.cases for c in case.when)
        ):
            note = f"{self.facts['units']} units"
        return amount, note

    def probe(self, low: date, high: date) -> None:
        """Note that the calendar was asked about the days in [low, high]."""
        if self.probe_low is None or low < self.probe_low:
            self.probe_low = low
        if self.probe_high is None or high > self.probe_high:
            self.probe_high = high

    def count(self) -> None:
        """Recompute the current deadline from the phase (anchor, amount, pauses)."""
        self._count()

    def _count(self) -> None:
        assert self.anchor is not None
        counting = self.counting
        if counting == "business_days":
            self.nominal = self.due = add_business_days(
                self.anchor, self.amount, self.closed("business_days"), self.pauses
            )
            # Counting may look up to a pause's days beyond the deadline.
            high = self.due
            for paused, resumed in self.pauses:
                high = max(high, paused, resumed)
            self.probe(min(self.anchor, self.due), high)
            return
        if counting == "months":
            end = add_months(self.anchor, self.amount)
            end += timedelta(days=sum((r - p).days for p, r in self.pauses if p < end))
            self.nominal = self.due = end
            return
        self.nominal = add_calendar_days(self.anchor, self.amount, self.pauses)
        if counting == "days" or self.reading.roll == "unrolled":
            self.due = self.nominal
            return
        closed = self.closed("ccp12")
        self.due = closed.roll(self.nominal)
        self.probe(self.nominal, self.due)
        if self.due != self.nominal and self.keep_ledger:
            _, skipped = roll_forward(self.nominal, closed)
            why = "; ".join(f"{iso(d)} {reason}" for d, reason in skipped)
            self.line(
                self.nominal,
                "roll",
                f"the last day falls on a day the city is closed ({why}): "
                f"the deadline moves to {iso(self.due)}",
                len(skipped),
                CCP12_RULE,
            )

    def effective_due(self) -> date | None:
        """The deadline after a companion permit's expiry and a pending extension."""
        due = self.due
        if due is None or self.open_pause is not None:
            return None  # while paused the deadline is not known yet
        if (
            self.companion_until is None
            and self.pending_request is None
            and self.denied_on is None
            and self.hard_stop is None
        ):
            return due
        if self.companion_until is not None and self.companion_until > due:
            due = self.companion_until
        ext = self.rule.extensions
        if self.pending_request is not None and ext and ext.pending_keeps_alive_days:
            due = max(due, self.due + timedelta(days=ext.pending_keeps_alive_days))
        if self.denied_on is not None and self.denied_on > due:
            due = self.denied_on
        if self.hard_stop is not None and due > self.hard_stop:
            due = self.hard_stop
        return due

    def open_phase(self, anchor: date, event: PermitEvent | None, what: str, why: str = "") -> None:
        amount, note = self.period_amount(event)
        self.anchor, self.amount, self.counting = anchor, amount, self.rule.period.counting
        self.pauses, self.open_pause = [], None
        at = len(self.ledger)
        self.count()
        if not self.keep_ledger:
            return
        unit = self.rule.period.unit
        how = " under CCP 12" if self.counting == "ccp12" else ""
        extra = f" ({note})" if note else ""
        self.line(
            anchor,
            what,
            f"{why + ': ' if why else ''}starts {_plural(amount, unit)}{how}{extra}: "
            f"due {iso(self.due)}",  # type: ignore[union-attr]
            amount,
            self.rule.citation,
        )
        self.ledger.insert(at, self.ledger.pop())  # the start line before its roll line

    # ------------------------------------------------------------------ events

    def start(self, when: date, event: PermitEvent | None, what: str) -> None:
        self.start_date = when
        self.state = "running"
        self.open_phase(when, event, what)
        self.original_due = self.due
        rule = self.rule
        if rule.effective_from and when < rule.effective_from:
            self.warn(
                event,
                f"{rule.citation} is in force from {iso(rule.effective_from)}; "
                f"this clock started {iso(when)}",
            )
        if rule.effective_to and when > rule.effective_to:
            self.warn(event, f"{rule.citation} was in force until {iso(rule.effective_to)}")
        stop = rule.hard_stop
        if stop is not None:
            months = stop.months
            if stop.months_fact is not None:
                months = self.facts.get(stop.months_fact)
            if months:
                self.hard_stop = add_months(when, int(months))
        ext = rule.extensions
        if ext is not None and ext.max_total_months and self.due is not None:
            self.hard_stop = add_months(self.due, ext.max_total_months)

    def check_lapse(self, today: date) -> None:
        """Move a running clock to `lapsed` once `today` is past its deadline."""
        if self.state != "running" or self.open_pause is not None:
            return
        due = self.due
        if due is not None and today <= due and self.hard_stop is None:
            return  # the deadline can only be later than `due` (companion, pending request)
        due = self.effective_due()
        if due is not None and today > due:
            self.state = "lapsed"
            self.line(
                due + ONE_DAY,
                "lapse",
                f"the deadline {iso(due)} passed: {self.rule.consequence.default}",
                None,
                self.rule.citation,
            )

    def apply(self, event: PermitEvent) -> None:
        rule = self.rule
        kind = event.type
        if kind not in rule.own_events:
            return  # an event for a chained clock
        self.check_lapse(event.date)
        if self.state == "withdrawn":
            self.refuse(event, f"the application was withdrawn; nothing more applies to {rule.id}")
            return
        if kind == "withdrawn":
            self.state = "withdrawn"
            self.line(event.date, kind, "the clock stops: withdrawn", None, rule.citation)
            return
        is_start = kind in rule.start.events
        if self.state == "awaiting_start":
            if self.chained and is_start:
                return  # a chained clock starts from its parent, not from its own event
            if is_start:
                self.start(event.date, event, kind)
                return
            self.refuse(
                event, f"{kind} before the clock started ({' or '.join(rule.start.events)})"
            )
            return
        if is_start and kind not in rule.start.restart:
            if self.chained:
                return
            self.refuse(
                event,
                f"the clock already started on {iso(self.start_date)}"  # type: ignore[union-attr]
                + (
                    f"; record {rule.start.restart[0]} for a new submission"
                    if rule.start.restart
                    else ""
                ),
            )
            return
        if rule.items is not None and kind == rule.items.event:
            self.check_items(event)
        if kind in rule.start.restart:
            self.restart(event)
        elif kind in rule.met_by:
            self.meet(event)
        elif rule.pauses is not None and kind == rule.pauses.pause:
            self.pause(event)
        elif rule.pauses is not None and kind == rule.pauses.resume:
            self.resume(event)
        elif rule.extensions is not None and kind in (
            rule.extensions.grant,
            rule.extensions.request,
            rule.extensions.deny,
        ):
            self.extension(event)
        elif kind == rule.companion:
            self.companion(event)
        elif any(t.event == kind for t in rule.terminators):
            self.terminate(event)
        else:
            self.seen.add(kind)
            self.line(event.date, kind, "recorded", None, rule.citation)

    def check_items(self, event: PermitEvent) -> None:
        items_rule = self.rule.items
        assert items_rule is not None
        ids = frozenset(item.id for item in event.items)
        if items_rule.needs_rule:
            bare = [item.id for item in event.items if not item.rule]
            if bare:
                self.warn(
                    event,
                    f"incomplete_notice {iso(event.date)}: item(s) {', '.join(bare)} cite "
                    f"no checklist rule ({items_rule.citation} limits the list to the "
                    "submittal checklist)",
                )
        if self.first_items is None:
            self.first_items = ids
        elif items_rule.no_new_items:
            new = sorted(ids - self.first_items)
            if new:
                self.warn(
                    event,
                    f"incomplete_notice {iso(event.date)}: item(s) {', '.join(new)} were "
                    f"not in the first notice; {items_rule.citation} bars new items, so they "
                    "have no effect",
                )

    def restart(self, event: PermitEvent) -> None:
        rule = self.rule
        if self.state in ("met", "met_late"):
            self.refuse(event, f"the clock was already met on {iso(self.met_date)}")  # type: ignore[union-attr]
            return
        if self.state == "lapsed":
            self.refuse(
                event,
                f"the deadline {self.effective_due().isoformat()} already passed "  # type: ignore[union-attr]
                f"({rule.consequence.default}); a {event.type} does not revive the clock",
            )
            return
        if self.open_pause is not None:
            self.refuse(event, f"the clock is paused since {iso(self.open_pause)}")
            return
        failed = [c for c in rule.start.restart_when if not _cond_holds(c, self.facts, event)]
        if failed:
            seen = [f"{c.name}={event.field(c.name)}" for c in failed]
            self.line(
                event.date,
                event.type,
                "no effect on the clock: only "
                + " and ".join(c.describe() for c in rule.start.restart_when)
                + f" counts (this one: {', '.join(seen)})",
                None,
                rule.start.restart_citation or rule.citation,
            )
            return
        before = self.effective_due()
        self.state = "running"
        self.met_date = None
        self.open_phase(event.date, event, event.type, rule.start.restart_effect)
        if rule.start.restart_provisional:
            self.provisional_notes.append(
                f"{event.type} restarts the clock under {rule.start.restart_citation}: "
                "provisional (the text was not confirmed)"
            )
        if rule.start.restart_never_shortens and before is not None and self.due < before:  # type: ignore[operator]
            self.anchor, self.amount, self.counting = before, 0, "days"
            self.pauses = []
            self.count()
            self.line(
                event.date,
                event.type,
                f"the expiry stays {iso(before)} (an inspection never shortens it)",
                None,
                rule.start.restart_citation or rule.citation,
            )
        if self.hard_stop is not None and self.due > self.hard_stop:  # type: ignore[operator]
            self.line(
                event.date,
                event.type,
                f"capped at the hard stop {iso(self.hard_stop)}",
                None,
                rule.hard_stop.citation if rule.hard_stop else rule.citation,
            )

    def meet(self, event: PermitEvent) -> None:
        rule = self.rule
        effect = rule.met_by[event.type]
        if self.state in ("met", "met_late"):
            self.refuse(event, f"the clock was already met on {iso(self.met_date)}")  # type: ignore[union-attr]
            return
        if self.terminated is not None:
            self.refuse(event, f"the clock already ended: {self.terminated[0]}")
            return
        if self.open_pause is not None:
            self.resume_at(event.date, f"{event.type} ends the pause")
        if self.state == "answered":
            self.refuse(
                event,
                f"a notice was already given on {iso(self.met_date)}; "  # type: ignore[union-attr]
                f"waiting for {' or '.join(rule.start.restart) or 'the next event'}",
            )
            return
        due = self.effective_due()
        if self.state == "lapsed":
            if effect == "answers":
                self.warn(
                    event,
                    f"{event.type} {iso(event.date)} came after the deadline "
                    f"{iso(due)}: {rule.consequence.default} already took effect",  # type: ignore[union-attr]
                )
                self.line(
                    event.date,
                    event.type,
                    f"too late: {rule.consequence.default} already took effect",
                    None,
                    rule.citation,
                )
                return
            self.state = "met_late"
            self.met_date = event.date
            self.completion = due
            self.line(
                event.date,
                event.type,
                f"met late ({(event.date - due).days} days after {iso(due)})",  # type: ignore[operator]
                None,
                rule.citation,
            )
            return
        self.met_date = event.date
        if effect == "answers":
            self.state = "answered"
            self.line(
                event.date,
                event.type,
                f"met on time (due {iso(due)}); the clock "  # type: ignore[union-attr]
                f"waits for {' or '.join(rule.start.restart)}",
                None,
                rule.citation,
            )
            return
        self.state = "met"
        self.completion = event.date
        self.line(
            event.date,
            event.type,
            f"met on time (due {iso(due)})",
            None,  # type: ignore[union-attr]
            rule.citation,
        )

    def pause(self, event: PermitEvent) -> None:
        spec = self.rule.pauses
        assert spec is not None
        if event.reason not in spec.reasons:
            self.refuse(
                event,
                f"reason {event.reason!r} does not pause {self.rule.id} "
                f"(it pauses for: {', '.join(spec.reasons)})",
            )
            return
        if self.state != "running":
            self.refuse(event, f"the clock is {self.state.replace('_', ' ')}; it cannot be paused")
            return
        if self.open_pause is not None:
            self.refuse(event, f"the clock is already paused since {iso(self.open_pause)}")
            return
        self.open_pause = event.date
        left = self.remaining_at_pause()
        if self.first_pause is None:
            self.first_pause = event.date
        self.line(
            event.date,
            event.type,
            f"paused ({event.reason}); the pause day counts, "
            f"{_plural(left, 'business_days' if self.counting == 'business_days' else 'days')} "
            "left",
            left,
            spec.citation,
        )

    def resume(self, event: PermitEvent) -> None:
        if self.open_pause is None:
            self.refuse(event, "the clock is not paused")
            return
        self.resume_at(event.date, "resumed")

    def resume_at(self, when: date, what: str) -> None:
        spec = self.rule.pauses
        assert spec is not None and self.open_pause is not None
        paused, resumed = self.open_pause, when
        if spec.max_months is not None and self.first_pause is not None:
            cap = (add_months(self.first_pause, spec.max_months) - self.first_pause).days
            left = max(0, cap - self.paused_total)
            if (resumed - paused).days > left:
                resumed = paused + timedelta(days=left)
                self.warn(
                    None,
                    f"pauses count for at most {spec.max_months} months "
                    f"({spec.citation}); the clock runs again from {iso(resumed)}",
                )
        self.paused_total += (resumed - paused).days
        self.pauses.append((paused, resumed))
        self.open_pause = None
        before = self.due
        self.count()
        if self.hard_stop is not None and before is not None and self.due is not None:
            self.hard_stop += self.due - before if self.counting != "business_days" else timedelta()
        days = (resumed - paused).days
        self.line(
            when,
            "resumed",
            f"{what}: {_plural(days, 'days')} paused do not count; due {iso(self.due)}",
            days,
            spec.citation,
        )  # type: ignore[union-attr]

    def finish_pause(self) -> None:
        """At `as_of`, a pause beyond its cap ends by itself."""
        spec = self.rule.pauses
        if self.open_pause is None or spec is None or spec.max_months is None:
            return
        if self.as_of is None or self.first_pause is None:
            return
        cap = (add_months(self.first_pause, spec.max_months) - self.first_pause).days
        ends = self.open_pause + timedelta(days=max(0, cap - self.paused_total))
        if ends < self.as_of:
            self.resume_at(ends, f"the {spec.max_months}-month limit on pauses ends the pause")

    def extension_limit(self) -> int | None:
        ext = self.rule.extensions
        assert ext is not None
        if ext.max_count_fact is not None and self.facts.get(ext.max_count_fact) is not None:
            return int(self.facts[ext.max_count_fact])
        return ext.max_count

    def extension(self, event: PermitEvent) -> None:
        ext = self.rule.extensions
        assert ext is not None
        if self.state in ("met", "met_late", "answered"):
            self.refuse(event, f"the clock was already met on {iso(self.met_date)}")  # type: ignore[union-attr]
            return
        limit = self.extension_limit()
        due = self.effective_due()
        if event.type == ext.deny:
            if self.pending_request is None:
                self.refuse(event, "no extension request is pending")
                return
            self.pending_request = None
            if due is not None and event.date > self.due:  # type: ignore[operator]
                self.denied_on = event.date
            self.line(
                event.date,
                event.type,
                f"extension denied: the clock runs to {self.effective_due().isoformat()}",
                None,
                ext.citation,
            )  # type: ignore[union-attr]
            return
        if self.state == "lapsed" and event.type == ext.grant and self.pending_request:
            # A timely request: the grant counts from its base even if it comes late.
            self.state = "running"
        if self.state == "lapsed":
            self.refuse(
                event,
                f"an extension after expiry: the deadline {iso(due)} already passed "  # type: ignore[union-attr]
                f"({self.rule.consequence.default})",
            )
            return
        if limit is not None and self.ext_used >= limit:
            allowed = (
                "no extension is"
                if limit == 0
                else "only one extension is"
                if limit == 1
                else f"only {limit} extensions are"
            )
            self.refuse(
                event,
                f"{allowed} allowed ({ext.citation}) and {self.ext_used} already used; "
                f"the deadline stays {iso(due) if due else '-'}",
            )
            return
        if event.type == ext.request:
            if ext.max_total_months is not None and self.ext_months >= ext.max_total_months:
                self.refuse(
                    event,
                    f"no extension left: {ext.citation} allows {ext.max_total_months} months "
                    "in all, already granted",
                )
                return
            if self.pending_request is not None:
                self.refuse(
                    event,
                    f"an extension request is already pending since {iso(self.pending_request)}",
                )
                return
            self.pending_request = event.date
            effect = "extension requested before expiry"
            if ext.pending_keeps_alive_days:
                effect += (
                    f": alive until the decision or {self.effective_due().isoformat()}, "  # type: ignore[union-attr]
                    "whichever comes first"
                )
            self.line(event.date, event.type, effect, ext.pending_keeps_alive_days, ext.citation)
            return
        self.grant(event, due)

    def grant(self, event: PermitEvent, due: date | None) -> None:
        ext = self.rule.extensions
        assert ext is not None and self.due is not None
        due = due or self.due
        if ext.request_required and self.pending_request is None:
            self.refuse(
                event,
                f"no extension request before expiry was recorded "
                f"({ext.request} is required first, {ext.citation})",
            )
            return
        other = "months" if ext.unit == "days" else "days"
        if event.field(other) is not None:
            self.refuse(event, f"{self.rule.id} extends in {ext.unit}, not {other}")
            return
        amount = event.field(ext.unit) or ext.default_amount
        if amount is None:
            self.refuse(event, f"{ext.unit}: missing (how long is the extension?)")
            return
        if ext.max_amount is not None and amount > ext.max_amount:
            self.refuse(
                event,
                f"{ext.unit}: {amount} exceeds the {ext.max_amount} "
                f"{ext.unit} {ext.citation} allows",
            )
            return
        if ext.max_total_months is not None and self.ext_months + amount > ext.max_total_months:
            left = ext.max_total_months - self.ext_months
            self.refuse(
                event,
                f"months: {amount} would bring extensions to "
                f"{self.ext_months + amount} months; {ext.citation} allows "
                f"{ext.max_total_months} in all ({left} left)",
            )
            return
        base_kind = ext.base
        if self.reading.ext_base != "literal" and ext.alternative_base:
            base_kind = ext.alternative_base
        base = {
            "event_date": event.date,
            "prior_expiry": self.due,
            "original_expiry": self.original_due,
        }[base_kind]
        assert base is not None
        before = due
        counting = self.rule.period.counting
        if ext.unit == "months":
            counting = "months"
        elif counting in ("months", "business_days"):
            counting = "days"
        self.anchor, self.amount, self.counting, self.pauses = base, amount, counting, []
        self.count()
        self.ext_used += 1
        if ext.unit == "months":
            self.ext_months += amount
        self.pending_request = None
        where = {
            "event_date": "the agreement's date",
            "prior_expiry": "the prior expiry",
            "original_expiry": "the original expiry",
        }[base_kind]
        effect = (
            f"extends by {_plural(amount, ext.unit)} from {where} {iso(base)}: due {iso(self.due)}"
        )
        if self.due < before:
            self.anchor, self.amount, self.counting = before, 0, "days"
            self.count()
            effect += f"; that is earlier than {iso(before)}, so the deadline stays"
        if self.hard_stop is not None and self.due > self.hard_stop:
            effect += f"; capped at the hard stop {iso(self.hard_stop)}"
        self.line(event.date, event.type, effect, amount, ext.citation)

    def companion(self, event: PermitEvent) -> None:
        assert event.until is not None
        self.companion_until = event.until
        own = self.due
        if own is not None and event.until > own:
            effect = f"follows the companion permit's expiry: due {iso(event.until)}"
        else:
            effect = (
                f"the companion permit expires {iso(event.until)}, not later "
                f"than this permit ({iso(own) if own else '-'}): no change"
            )
        self.line(event.date, event.type, effect, None, self.rule.citation)
        due = self.effective_due()
        if self.state == "lapsed" and self.terminated is None and due and due >= event.date:
            self.state = "running"  # the automatic extension means it never lapsed

    def terminate(self, event: PermitEvent) -> None:
        for term in self.rule.terminators:
            if term.event != event.type:
                continue
            if any(_cond_holds(c, self.facts, event) for c in term.any_of):
                if self.state not in ("running", "answered", "met"):
                    self.refuse(event, f"the clock is already {self.state.replace('_', ' ')}")
                    return
                self.state = "lapsed"
                self.terminated = (term.consequence, term.citation)
                self.line(
                    event.date, event.type, f"ends at once: {term.consequence}", None, term.citation
                )
                return
            self.line(
                event.date,
                event.type,
                "below the threshold ("
                + " or ".join(c.describe() for c in term.any_of)
                + "): no effect",
                None,
                term.citation,
            )
            return

    # ------------------------------------------------------------------ finish

    def finish(self) -> None:
        if self.chained and self.state == "awaiting_start" and self.chained_start is not None:
            self.start(self.chained_start, None, "chained")
        self.finish_pause()
        if self.as_of is not None:
            self.check_lapse(self.as_of)
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
