"""The shot clock engine: a timeline in, every date and the reason for it out.

Pure and deterministic: no I/O, no clock. The same function serves the CLI's
`clock compute`, the workflow (which recomputes after every event) and the tests.

One pass over the timeline applies one *reading* of the rules. The literal reading
gives `shot_clock_date`; where the rules are ambiguous the engine runs each other
reading it knows and lists it under `alternatives`; `conservative_date` is the
earliest of them all, so alerts never trust a date a court might not.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from rules.kernel.calendars import CONSERVATIVE, LITERAL, BusinessCalendar, CalendarLayers
from rules.kernel.jurisdictions import FEDERAL_PACK
from rules.shot_clock.packs import CategoryRule, RulePack, rule_pack
from rules.shot_clock.timeline import Event, Timeline, parse_timeline, timeline_layers

# 47 CFR 1.6003(d)(2): the "all other applications" tolling window, used for the
# alternative reading of a small-wireless notice sent on days 11-30.
GENERAL_TOLL_WINDOW_DAYS = 30
GENERAL_TOLL_RULE = "47 CFR 1.6003(d)(2)"
DEEMED_GRANTED_RULE = "47 CFR 1.6100(c)(4)"
CA_DEEMED_APPROVED_RULE = "Cal. Gov. Code 65964.1"
JUDICIAL_REVIEW_DAYS = 30
SECTION_332_REMEDY_RULE = "47 U.S.C. 332(c)(7)(B)(v)"

WEEKEND = frozenset({"Saturday", "Sunday"})
TERMINAL_STATUSES = frozenset(
    {"decided_on_time", "decided_late", "withdrawn", "deemed_granted", "deemed_approved"}
)
OUTCOME_LABELS = {
    "approved": "approved",
    "approved_with_conditions": "approved with conditions",
    "denied": "denied",
}

# Same-day events are applied in this order so the result never depends on the order
# of the input; a notice and a resubmission on one day are ordered by whether a notice
# is outstanding (see _Pass._next_of_day).
_DAY_RANK = {
    "pre_application": 0,
    "submitted": 1,
    "incomplete_notice": 3,
    "resubmitted": 3,
    "tolling_agreement": 4,
    "moratorium": 5,
    "hearing_notice": 5,
    "appeal": 5,
    "applicant_public_notice": 6,
    "deemed_granted_notice": 7,
    "deemed_approved_notice": 7,
    "decision": 8,
    "withdrawn": 8,
}


@dataclass(frozen=True)
class Reading:
    """One interpretation of the rules; the default is the literal reading."""

    swf_late_notice_tolls: bool = False
    efr_roll_forward: bool = False
    reset_at_first_resubmission: bool = False
    # 47 CFR 1.6003(d): a notice citing no rule for an item is defective; the literal
    # reading gives it no effect, this reading lets it toll or reset as if it were valid.
    defective_notice_counts: bool = False
    pack: str | None = None
    # Which calendar layers the date rolls over (rules.calendars readings).
    calendar: frozenset[str] = LITERAL


def _iso(d: date | None) -> str | None:
    return None if d is None else d.isoformat()


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def _canonical(e: Event) -> tuple[Any, ...]:
    if e.type == "tolling_agreement":
        # Two agreements of one day: the one recorded later in the input wins (8.5).
        return (e.type, e.seq)
    return (
        e.type,
        tuple((i.id, i.text, i.rule) for i in e.items),
        -1 if e.days is None else e.days,
        _iso(e.new_date) or "",
        e.outcome or "",
    )


def governing_category(timeline: Timeline, pack: RulePack) -> CategoryRule:
    """The category whose rules govern: the single category, or a batch's longest period."""
    if timeline.category is not None:
        return pack.categories[timeline.category]
    return max((pack.categories[c] for c in timeline.batch), key=lambda c: (c.days, c.key))


def expiry_remedy(category: CategoryRule, state: str | None) -> str:
    """What the applicant can do once the clock has run out, in one sentence."""
    if category.eligible_facilities_request:
        return (
            "The request is deemed granted once the applicant notifies the city in "
            f"writing ({DEEMED_GRANTED_RULE})."
        )
    if state == "CA":
        return (
            "The application is deemed approved once the applicant has given the "
            "required public notice and notified the city; the city then has "
            f"{JUDICIAL_REVIEW_DAYS} days to seek judicial review ({CA_DEEMED_APPROVED_RULE})."
        )
    return (
        "Delay past the shot clock date is presumptively unreasonable and the "
        f"applicant may sue within 30 days ({SECTION_332_REMEDY_RULE})."
    )


def event_days(timeline: Timeline) -> list[list[Event]]:
    """The timeline's events grouped by day, in date order, each day in the fixed order
    of _DAY_RANK (computed once per timeline and shared by every reading's pass)."""
    by_day: dict[date, list[Event]] = defaultdict(list)
    for e in timeline.events:
        by_day[e.date].append(e)
    return [
        sorted(by_day[day], key=lambda e: (_DAY_RANK[e.type], _canonical(e)))
        if len(by_day[day]) > 1
        else by_day[day]
        for day in sorted(by_day)
    ]


class _Pass:
    """One pass over the timeline under one reading."""

    def __init__(
        self,
        timeline: Timeline,
        reading: Reading,
        layers: CalendarLayers,
        days: list[list[Event]] | None = None,
    ) -> None:
        self.t = timeline
        self.reading = reading
        if reading.pack is not None:
            self.pack = rule_pack(reading.pack)
        else:
            self.pack = timeline.pack or rule_pack(timeline.rule_pack)
        self.cat = governing_category(timeline, self.pack)
        self.layers = layers
        self.cal: BusinessCalendar = layers.calendar(reading.calendar)
        self.period = self.cat.days
        self.submitted = next((e for e in timeline.events if e.type == "submitted"), None)
        pre = next((e for e in timeline.events if e.type == "pre_application"), None)
        self.start: date | None = None
        if self.submitted is not None:
            self.start = pre.date if pre is not None else self.submitted.date
        self.base = self.start
        self.notice_tolled = 0
        self.agreement_days = 0
        self.agreed_date: date | None = None
        self.agreed_on: date | None = None
        self.agreement_entries: dict[date, dict[str, Any]] = {}
        self.tolled_after_agreement = 0
        self.reset_on: date | None = None
        self.pre_reset: tuple[date | None, int, date | None] | None = None
        self.reset_entry: dict[str, Any] | None = None
        # pending: (kind "toll" | "reset", notice date, rule)
        self.pending: tuple[str, date, str] | None = None
        self.pending_entry: dict[str, Any] | None = None
        self.first_notice: Event | None = None
        self.first_effect: str | None = None  # "reset" | "toll" | "none"
        self.last_resubmission: date | None = None
        self.first_resubmission_after_reset: date | None = None
        self.public_notice: date | None = None
        self.deemed_notice: date | None = None
        self.terminal: str | None = None
        self.terminal_on: date | None = None
        self.terminal_date: date | None = None
        self.judicial_review_deadline: date | None = None
        self.deemed_effective = False
        self.ambiguities: set[str] = set()
        self.windows: list[dict[str, Any]] = []
        self.ledger: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        # Whether a roll-forward skipped a day the conservative calendar does not skip:
        # if never, the conservative calendar reading would change nothing.
        self.contested_roll = False
        self._conservative_cal = layers.calendar(CONSERVATIVE)
        self._final: tuple[date | None] | None = None
        for day in days if days is not None else event_days(timeline):
            self._run_day(day)

    # -- bookkeeping --------------------------------------------------------------

    def _log(self, d: date, event: str, effect: str, days: int | None, rule: str) -> None:
        self.ledger.append(
            {"date": d.isoformat(), "event": event, "effect": effect, "days": days, "rule": rule}
        )

    def _roll(self) -> bool:
        return self.cat.roll_forward or (
            self.cat.eligible_facilities_request and self.reading.efr_roll_forward
        )

    def _raw_date(self) -> date | None:
        if self.pending is not None or self.base is None:
            return None
        if self.agreed_date is not None:
            return self.agreed_date + timedelta(days=self.tolled_after_agreement)
        return self.base + timedelta(days=self.period + self.notice_tolled + self.agreement_days)

    def current_date(self) -> date | None:
        """The shot clock date as the events so far make it (None while paused)."""
        raw = self._raw_date()
        if raw is None or self.agreed_date is not None or not self._roll():
            return raw
        rolled, skipped = self.cal.roll_forward(raw)
        if skipped and not self.contested_roll:
            self.contested_roll = any(self._conservative_cal.is_business_day(d) for d, _ in skipped)
        return rolled

    # -- the pass ---------------------------------------------------------------------

    def _run_day(self, ordered: list[Event]) -> None:
        """Apply one day's events in a fixed order. Notices and resubmissions of one day
        alternate by whether a notice is outstanding (a resubmission answers it, a notice
        needs none outstanding), so the order of the input never matters. Linear: a day
        with thousands of events costs no more per event than a day with one."""
        if len(ordered) == 1:
            self._apply(ordered[0])
            return
        notices: deque[Event] = deque(e for e in ordered if e.type == "incomplete_notice")
        resubmissions: deque[Event] = deque(e for e in ordered if e.type == "resubmitted")
        rest = [e for e in ordered if e.type not in ("incomplete_notice", "resubmitted")]
        index = 0
        while index < len(rest) and _DAY_RANK[rest[index].type] < 3:
            self._apply(rest[index])
            index += 1
        while notices or resubmissions:
            if self.pending is not None and resubmissions:
                self._apply(resubmissions.popleft())
            elif self.pending is None and notices:
                self._apply(notices.popleft())
            else:
                self._apply((notices or resubmissions).popleft())
        for event in rest[index:]:
            self._apply(event)

    def _apply(self, e: Event) -> None:
        if e.type == "pre_application":
            if self.submitted is None:
                self._log(
                    e.date,
                    e.type,
                    "pre-application period recorded; the clock waits for the submission",
                    None,
                    self.pack.counting_rule,
                )
                return
            lead = (self.submitted.date - e.date).days
            self._log(
                e.date,
                e.type,
                f"the city asserts a pre-application period: the clock counts from this "
                f"date, {_days(lead)} before the submission",
                lead,
                self.pack.counting_rule,
            )
            return
        if e.type == "submitted":
            what = (
                f"batch of {len(self.t.batch)} small wireless sites "
                f"({', '.join(sorted(set(self.t.batch)))}), governed by {self.cat.key}"
                if self.t.batch
                else f"{self.cat.key} ({self.cat.label})"
            )
            rule = self.cat.rule if not self.t.batch else f"{self.cat.rule}; {self.pack.batch.rule}"
            assert self.start is not None
            fn = self.cat.first_notice
            self._open_window(
                "reset_notice" if fn.effect == "reset" else "first_notice",
                self.start + timedelta(days=fn.within_days),
                fn.rule,
            )
            self._log(
                e.date,
                e.type,
                f"starts the {self.period}-day clock for a {what}, counted from the day "
                f"after {self.start}",
                self.period,
                rule,
            )
            return
        if self.submitted is None or e.date < self.submitted.date:
            self._no_effect(e, f"{e.type} on {e.date} is before the application was submitted")
            return
        if self.terminal is not None:
            self._no_effect(
                e,
                f"{e.type} on {e.date} was recorded after the application was closed "
                f"({self.terminal} on {self.terminal_on})",
            )
            return
        getattr(self, f"_on_{e.type}")(e)

    def _no_effect(self, e: Event, why: str, rule: str = "") -> None:
        self.warnings.append(f"{why}: no effect on the clock")
        self._log(e.date, e.type, f"no effect on the clock: {why}", 0, rule)

    # -- notices ------------------------------------------------------------------------

    def _on_incomplete_notice(self, e: Event) -> None:
        assert self.start is not None
        unruled = [i.id for i in e.items if not i.rule]
        if unruled:
            self.ambiguities.add("defective_notice")
            if not self.reading.defective_notice_counts:
                self._no_effect(
                    e,
                    f"the notice of {e.date} is defective: it cites no rule for item(s) "
                    f"{', '.join(unruled)}, and 47 CFR 1.6003(d) requires the specific rule "
                    "for each missing item (the reading in which it still tolls or resets "
                    "is listed under alternatives)",
                    "47 CFR 1.6003(d)",
                )
                return
        if self.first_notice is None:
            self._first_notice(e)
        else:
            self._later_notice(e)

    def _first_notice(self, e: Event) -> None:
        assert self.start is not None
        self.first_notice = e
        day = (e.date - self.start).days
        fn = self.cat.first_notice
        if day <= fn.within_days:
            self.first_effect = fn.effect
            if fn.effect == "reset":
                self._log(
                    e.date,
                    e.type,
                    f"resets the clock: first notice on day {day} (within {fn.within_days} "
                    "days); the clock restarts at zero when the applicant submits "
                    "everything identified",
                    None,
                    fn.rule,
                )
            else:
                self._log(
                    e.date,
                    e.type,
                    f"tolls the clock: first notice on day {day} (within {fn.within_days} "
                    "days); paused from the day after the notice until the applicant resubmits",
                    None,
                    fn.rule,
                )
            self._pend(fn.effect, e, fn.rule)
            return
        if fn.effect == "reset" and day <= GENERAL_TOLL_WINDOW_DAYS:
            self.ambiguities.add("swf_late_notice")
            if self.reading.swf_late_notice_tolls:
                self.first_effect = "toll"
                self._log(
                    e.date,
                    e.type,
                    f"tolls the clock: first notice on day {day}, read under (d)(2)",
                    None,
                    GENERAL_TOLL_RULE,
                )
                self._pend("toll", e, GENERAL_TOLL_RULE)
                return
            self.first_effect = "none"
            self.warnings.append(
                f"the first notice of {e.date} came on day {day}, after the "
                f"{fn.within_days}-day reset window for small wireless facilities: it does "
                "not reset the clock (the (d)(2) tolling reading is listed under alternatives)"
            )
            self._log(
                e.date,
                e.type,
                f"no effect on the clock: first notice on day {day}, after the "
                f"{fn.within_days}-day reset window; (d)(2) covers only other applications",
                0,
                self.pack.late_first_notice_rule,
            )
            return
        self.first_effect = "none"
        self.warnings.append(
            f"the first notice of {e.date} came on day {day}, after the {fn.within_days}-day "
            f"window: it was late and does not {'reset' if fn.effect == 'reset' else 'toll'} "
            "the clock"
        )
        self._log(
            e.date,
            e.type,
            f"no effect on the clock: late first notice (day {day}, window {fn.within_days} days)",
            0,
            self.pack.late_first_notice_rule,
        )

    def _later_notice(self, e: Event) -> None:
        assert self.first_notice is not None
        rule = self.cat.later_notice_rule
        if self.pending is not None:
            self._no_effect(
                e,
                f"the notice of {e.date} came while the notice of {self.pending[1]} was "
                "still outstanding (no resubmission in between)",
                rule,
            )
            return
        if self.first_effect == "none" or self.last_resubmission is None:
            self._no_effect(
                e,
                f"the notice of {e.date} follows a first notice that did not affect the clock",
                rule,
            )
            return
        first_ids = [i.id for i in self.first_notice.items]
        new = [i.id for i in e.items if i.id not in first_ids]
        if new:
            self._no_effect(
                e,
                f"the notice of {e.date} cites item(s) not in the first notice of "
                f"{self.first_notice.date} ({', '.join(new)}); a later notice may cite only "
                "items from the first notice",
                rule,
            )
            return
        since = (e.date - self.last_resubmission).days
        within = self.cat.later_notice_within_days
        if since > within:
            self._no_effect(
                e,
                f"the notice of {e.date} came {_days(since)} after the resubmission of "
                f"{self.last_resubmission}, later than {_days(within)}",
                rule,
            )
            return
        if self.first_effect == "reset":
            self.ambiguities.add("reset_incomplete_resubmission")
            if not self.reading.reset_at_first_resubmission and self.pre_reset is not None:
                # Literal reading: the resubmission was not complete, so it did not
                # restart the clock; the reset waits for the complete one.
                self.base, self.notice_tolled, self.reset_on = self.pre_reset
                self.pre_reset = None
                if self.reset_entry is not None:
                    self.reset_entry["effect"] += (
                        f"; undone by the notice of {e.date}, which showed the resubmission "
                        "was incomplete (literal reading)"
                    )
                self._log(
                    e.date,
                    e.type,
                    f"resets the clock: later notice {_days(since)} after the resubmission "
                    f"of {self.last_resubmission}, which was therefore incomplete; the clock "
                    "restarts only when the applicant submits everything identified "
                    "(literal reading)",
                    None,
                    f"{rule}; {self.first_notice_rule()}",
                )
                self._pend("reset", e, rule)
                return
        self._log(
            e.date,
            e.type,
            f"tolls the clock: later notice {_days(since)} after the resubmission of "
            f"{self.last_resubmission}, citing only items from the first notice; paused "
            "from the day after the notice until the next resubmission",
            None,
            rule,
        )
        self._pend("toll", e, rule)

    def _pend(self, kind: str, e: Event, rule: str) -> None:
        """Hold the clock for the notice just logged; its ledger line gets the days later."""
        self.pending = (kind, e.date, rule)
        self.pending_entry = self.ledger[-1]
        if self.windows and self.windows[-1]["closes"] >= e.date.isoformat():
            self.windows[-1]["state"] = "used"

    def _open_window(self, kind: str, closes: date, rule: str) -> None:
        self.windows.append(
            {"kind": kind, "closes": closes.isoformat(), "rule": rule, "state": None}
        )

    def first_notice_rule(self) -> str:
        return self.cat.first_notice.rule

    def _on_resubmitted(self, e: Event) -> None:
        if self.pending is None:
            self._no_effect(
                e, f"the resubmission of {e.date} answers no outstanding notice of incompleteness"
            )
            return
        kind, notice_date, rule = self.pending
        if kind == "toll":
            absorbed = 0
            days = (e.date - notice_date).days
            self.notice_tolled += days
            if self.agreed_date is not None and self.agreed_on is not None:
                # 8.5: the agreed date absorbs the days tolled before the agreement;
                # only the tolling after it extends the agreed date.
                after = (e.date - max(notice_date, self.agreed_on)).days
                self.tolled_after_agreement += after
                absorbed = days - after
            # The notice is what moved the date: its ledger line carries the days.
            assert self.pending_entry is not None
            self.pending_entry["days"] = days
            self.pending_entry["effect"] += f"; {_days(days)} tolled through {e.date}"
            if self.agreed_date is not None and absorbed:
                tail = (
                    f"; {_days(absorbed)} before the agreement of {self.agreed_on} are absorbed "
                    f"by the agreed date, {_days(days - absorbed)} after it extend it"
                )
            else:
                tail = ""
            self._log(
                e.date,
                e.type,
                f"the clock runs again: ends the tolling that began with the notice of "
                f"{notice_date} ({_days(days)}, from the day after the notice through "
                f"this resubmission){tail}",
                None,
                rule,
            )
        else:
            self.pre_reset = (self.base, self.notice_tolled, self.reset_on)
            self.base = e.date
            self.notice_tolled = 0
            self.reset_on = e.date
            self._log(
                e.date,
                e.type,
                f"the applicant supplied what the notice of {notice_date} identified: the "
                f"clock restarts at zero and runs {_days(self.period)} from {e.date}",
                self.period,
                rule,
            )
            self.reset_entry = self.ledger[-1]
        self.pending = None
        self.pending_entry = None
        self.last_resubmission = e.date
        self._open_window(
            "later_notice",
            e.date + timedelta(days=self.cat.later_notice_within_days),
            self.cat.later_notice_rule,
        )

    # -- agreements, decisions, applicant notices -----------------------------------

    def _on_tolling_agreement(self, e: Event) -> None:
        rule = self.cat.agreement_rule
        earlier = self.agreement_entries.get(e.date)
        if earlier is not None:
            # 8.5: two agreements of one date: the one recorded later in the input wins.
            (
                self.agreement_days,
                self.agreed_date,
                self.agreed_on,
                self.tolled_after_agreement,
            ) = earlier["before"]
            earlier["entry"]["effect"] += (
                "; superseded by the agreement of the same date recorded after it"
            )
            earlier["entry"]["days"] = 0
            self.warnings.append(
                f"two tolling agreements are dated {e.date}: the one recorded later in the "
                "input wins"
            )
        before = (
            self.agreement_days,
            self.agreed_date,
            self.agreed_on,
            self.tolled_after_agreement,
        )
        current = self.current_date()
        if current is not None and e.date > current:
            self.warnings.append(
                f"the tolling agreement of {e.date} was signed after the shot clock date "
                f"{current}; the applicant's remedies may already have attached"
            )
        if e.days is not None:
            self.agreement_days += e.days
            if self.agreed_date is not None:
                self.tolled_after_agreement += e.days
            self._log(
                e.date,
                e.type,
                f"written tolling agreement extends the clock by {_days(e.days)}",
                e.days,
                rule,
            )
        else:
            assert e.new_date is not None
            self.agreed_date = e.new_date
            self.agreed_on = e.date
            self.tolled_after_agreement = 0
            moved = None if current is None else (e.new_date - current).days
            absorbed = ""
            if self.pending is not None and self.pending[0] == "toll":
                absorbed = (
                    f"; the days tolled by the notice of {self.pending[1]} up to this "
                    "agreement are absorbed by the agreed date, only tolling after it "
                    "extends it"
                )
            self._log(
                e.date,
                e.type,
                f"written tolling agreement sets the shot clock date to {e.new_date}{absorbed}",
                moved,
                rule,
            )
        self.agreement_entries[e.date] = {"before": before, "entry": self.ledger[-1]}

    def _close(self, status: str, on: date) -> None:
        self.terminal_date = self.current_date()
        self.terminal = status
        self.terminal_on = on

    def _on_decision(self, e: Event) -> None:
        current = self.current_date()
        on_time = current is None or e.date <= current
        label = OUTCOME_LABELS[e.outcome or ""]
        if current is None:
            timing = "on time (the clock was paused)"
        elif on_time:
            timing = f"on time (on or before the shot clock date {current})"
        else:
            late = (e.date - current).days
            timing = f"late ({_days(late)} after the shot clock date {current})"
            self.warnings.append(
                f"the decision of {e.date} came {_days(late)} after the shot clock date {current}"
            )
        self._close("decided_on_time" if on_time else "decided_late", e.date)
        self._log(e.date, e.type, f"{label}, {timing}", None, self.cat.rule)

    def _on_withdrawn(self, e: Event) -> None:
        self._close("withdrawn", e.date)
        self._log(
            e.date, e.type, "the applicant withdrew the application: the clock stops", None, ""
        )

    def _on_deemed_granted_notice(self, e: Event) -> None:
        if not self.cat.eligible_facilities_request:
            self._no_effect(
                e,
                "a deemed-granted notice applies only to eligible facilities requests",
                DEEMED_GRANTED_RULE,
            )
            return
        current = self.current_date()
        if current is None or e.date <= current:
            self._no_effect(
                e,
                f"the applicant's deemed-granted notice of {e.date} came before the clock "
                f"expired ({current or 'the clock is paused'})",
                DEEMED_GRANTED_RULE,
            )
            return
        self._close("deemed_granted", e.date)
        self._log(
            e.date,
            e.type,
            f"deemed granted: the clock expired after {current} and the applicant notified "
            "the city in writing",
            None,
            DEEMED_GRANTED_RULE,
        )

    def _deemed_approved_applies(self) -> bool:
        return self.t.state == "CA" and not self.cat.eligible_facilities_request

    def _on_applicant_public_notice(self, e: Event) -> None:
        if not self._deemed_approved_applies():
            self._no_effect(
                e,
                "the applicant's public notice matters only for the California "
                "deemed-approved remedy of non-EFR applications",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self.public_notice = e.date
        self._log(
            e.date,
            e.type,
            "the applicant's public notice is recorded (a condition of deemed approval)",
            None,
            f"{CA_DEEMED_APPROVED_RULE}(a)",
        )
        if self.deemed_notice is not None:
            self._deemed_approved(e.date)

    def _on_deemed_approved_notice(self, e: Event) -> None:
        if self.cat.eligible_facilities_request:
            self._no_effect(
                e,
                "for an eligible facilities request the applicant's remedy is a "
                "deemed-granted notice",
                DEEMED_GRANTED_RULE,
            )
            return
        if self.t.state != "CA":
            self._no_effect(
                e,
                "there is no deemed-approved remedy outside California; expiry is "
                f"presumptively unreasonable delay ({SECTION_332_REMEDY_RULE})",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        current = self.current_date()
        if current is None or e.date <= current:
            self._no_effect(
                e,
                f"the applicant's deemed-approved notice of {e.date} came before the clock "
                f"expired ({current or 'the clock is paused'})",
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self.deemed_notice = e.date
        if self.public_notice is None:
            self.warnings.append(
                f"the applicant's deemed-approved notice of {e.date} is recorded; the "
                "application is deemed approved once the applicant's public notice is recorded"
            )
            self._log(
                e.date,
                e.type,
                "applicant notified the city that the time has lapsed; awaiting the "
                "applicant's public notice",
                None,
                CA_DEEMED_APPROVED_RULE,
            )
            return
        self._log(
            e.date,
            e.type,
            "applicant notified the city that the time has lapsed",
            None,
            CA_DEEMED_APPROVED_RULE,
        )
        self._deemed_approved(e.date)

    def _deemed_approved(self, on: date) -> None:
        assert self.deemed_notice is not None
        self._close("deemed_approved", on)
        self.judicial_review_deadline = self.deemed_notice + timedelta(days=JUDICIAL_REVIEW_DAYS)
        self._log(
            on,
            "deemed_approved",
            f"deemed approved; the city may seek judicial review within {JUDICIAL_REVIEW_DAYS} "
            f"days of the applicant's notice, until {self.judicial_review_deadline} "
            "(calendar days, not extended)",
            JUDICIAL_REVIEW_DAYS,
            CA_DEEMED_APPROVED_RULE,
        )

    def _never_tolls(self, e: Event) -> None:
        self._log(e.date, e.type, "does not toll the clock", 0, self.pack.never_tolls_rule)

    _on_moratorium = _never_tolls
    _on_hearing_notice = _never_tolls
    _on_appeal = _never_tolls

    # -- results --------------------------------------------------------------------------

    def final_date(self) -> date | None:
        if self._final is None:
            final = self.terminal_date if self.terminal is not None else self.current_date()
            self._final = (final,)
        return self._final[0]

    def explain_final_date(self) -> None:
        """Ledger lines for the last step: roll-forward, or why the date does not roll."""
        if self.terminal is not None and self.terminal_date is None:
            return
        raw = self._raw_date()
        if raw is None or self.agreed_date is not None:
            return
        if self._roll():
            rolled, skipped = self.cal.roll_forward(raw)
            if skipped:
                reasons = "; ".join(f"{d} is {why}" for d, why in skipped)
                self._log(
                    rolled,
                    "roll_forward",
                    f"the counted date {raw} is not a business day ({reasons}): the shot "
                    f"clock date rolls forward to {rolled}",
                    (rolled - raw).days,
                    self.pack.counting_rule,
                )
                self._note_days([d for d, why in skipped if why not in WEEKEND])
        elif self.cat.eligible_facilities_request:
            why = self.cal.closure_reason(raw)
            if why is not None:
                self._log(
                    raw,
                    "no_roll_forward",
                    f"{raw} is {why}, but 47 CFR 1.6100 has no roll-forward rule: the date "
                    "stands as counted (the rolled date is listed under alternatives)",
                    0,
                    self.cat.rule,
                )
                self._note_days([raw])

    def _note_days(self, days: list[date]) -> None:
        """8.6: each holiday behind the last ledger line, with every layer that marks it
        and whether the conservative reading counts it."""
        notes = [f"{d}: {note}" for d in days for note in self.layers.notes_for(d, CONSERVATIVE)]
        if notes:
            self.ledger[-1]["notes"] = notes

    def status(self, reference: date | None) -> str:
        if self.terminal is not None:
            return self.terminal
        if self.submitted is None:
            return "awaiting_submission"
        if self.pending is not None:
            return "reset_pending" if self.pending[0] == "reset" else "tolled"
        current = self.current_date()
        if current is not None and reference is not None and reference > current:
            return "expired"
        return "running"

    def tolled_days(self) -> int:
        return self.notice_tolled + self.agreement_days

    def notice_windows(self, reference: date | None) -> list[dict[str, str]]:
        """Every notice window of the timeline: open, used, or lapsed."""
        out = []
        for w in self.windows:
            state = w["state"]
            if state is None:
                closed = reference is not None and reference.isoformat() > w["closes"]
                state = "lapsed" if closed or self.terminal is not None else "open"
            out.append(
                {"kind": w["kind"], "closes": w["closes"], "rule": w["rule"], "state": state}
            )
        return out


def _alternative_readings(
    literal: _Pass, timeline: Timeline, layers: CalendarLayers
) -> list[tuple[str, Reading]]:
    out: list[tuple[str, Reading]] = []
    if "swf_late_notice" in literal.ambiguities:
        assert literal.first_notice is not None
        out.append(
            (
                f"the first notice of {literal.first_notice.date} tolls the clock under "
                f"{GENERAL_TOLL_RULE} although it came after the small-wireless reset window",
                Reading(swf_late_notice_tolls=True),
            )
        )
    if "reset_incomplete_resubmission" in literal.ambiguities:
        out.append(
            (
                "the clock restarted at the first resubmission and the later notice tolled "
                "the gap until the next resubmission (read by many city codes)",
                Reading(reset_at_first_resubmission=True),
            )
        )
    if "defective_notice" in literal.ambiguities:
        out.append(
            (
                "a notice citing no rule for a missing item still tolls or resets the clock "
                "(47 CFR 1.6003(d) requires the rule for each item)",
                Reading(defective_notice_counts=True),
            )
        )
    if literal.cat.eligible_facilities_request:
        out.append(
            (
                "roll-forward applied to the eligible facilities request as to 1.6003 "
                "clocks (1.6100 itself has no roll-forward rule)",
                Reading(efr_roll_forward=True),
            )
        )
    other_pack = literal.pack.key != FEDERAL_PACK
    if other_pack:
        out.append(
            (
                "the federal default rule pack (47 CFR 1.6003, 1.6100) instead of the "
                f"jurisdiction's pack '{literal.pack.key}': a local pack cannot lengthen a "
                "federal period",
                Reading(pack=FEDERAL_PACK),
            )
        )
    if layers.contested:
        out.append(
            (
                f"{CONSERVATIVE_CALENDAR}: not over state legal holidays or one-off "
                "closures, whose standing under 47 CFR 1.6003(e) is contested",
                Reading(calendar=CONSERVATIVE),
            )
        )
        if other_pack:
            out.append(
                (
                    f"the federal default rule pack, counted on {CONSERVATIVE_CALENDAR}",
                    Reading(pack=FEDERAL_PACK, calendar=CONSERVATIVE),
                )
            )
    return out


CONSERVATIVE_CALENDAR = (
    "the calendar rolling only over weekends, federal holidays and the city's adopted holidays"
)


def _applicant_notice_warning(description: str, p: _Pass, literal_date: date | None) -> str:
    status = p.terminal or ""
    if status == "deemed_approved":
        return (
            f"under the earliest reading ({description}) the clock ran out on "
            f"{p.terminal_date} and the applicant's deemed-approved notice of "
            f"{p.deemed_notice} took effect: the application may be deemed approved and the "
            f"city has until {p.judicial_review_deadline} to seek judicial review "
            f"({CA_DEEMED_APPROVED_RULE}); the literal reading ({literal_date or 'paused'}) "
            "gives the notice no effect"
        )
    return (
        f"under the earliest reading ({description}) the clock ran out on {p.terminal_date} "
        f"and the applicant's deemed-granted notice of {p.terminal_on} took effect: the "
        f"request may be deemed granted ({DEEMED_GRANTED_RULE}); the literal reading "
        f"({literal_date or 'paused'}) gives the notice no effect"
    )


def compute(timeline: Timeline) -> dict[str, Any]:
    """Every date of one application's shot clock, in the compute contract's shape.

    Every reading is a full pass (8.1): under each the engine knows the date, the
    status, the days remaining and whether an applicant's notice took effect. The
    earliest reading decides `conservative_date`, `conservative_status` and
    `conservative_days_remaining`; an applicant's notice that takes effect under it
    sets `judicial_review_deadline` even where the literal reading gives it no effect.
    """
    layers = timeline_layers(timeline)
    days = event_days(timeline)
    literal = _Pass(timeline, Reading(), layers, days)
    literal.explain_final_date()
    shot_clock_date = literal.final_date()
    reference = timeline.as_of or max((e.date for e in timeline.events), default=None)
    status = literal.status(reference)

    def remaining(d: date | None) -> int | None:
        assert timeline.as_of is not None
        return None if d is None else (d - timeline.as_of).days

    passes: list[tuple[str, _Pass]] = [("the literal reading", literal)]
    alternatives: list[dict[str, Any]] = []
    for description, reading in _alternative_readings(literal, timeline, layers):
        if reading.calendar != LITERAL and not any(q.contested_roll for _, q in passes):
            continue  # no reading rolled over a contested day: the calendar changes nothing
        p = _Pass(timeline, reading, layers, days)
        alt_date, alt_status = p.final_date(), p.status(reference)
        if reading.calendar != LITERAL:
            # A calendar reading is listed only where it moves something.
            seen = [(q.final_date(), q.status(reference)) for _, q in passes]
            if (alt_date, alt_status) in seen:
                continue
        entry: dict[str, Any] = {
            "reading": description,
            "shot_clock_date": _iso(alt_date),
            "status": alt_status,
        }
        if timeline.as_of is not None:
            entry["days_remaining"] = remaining(alt_date)
        entry["judicial_review_deadline"] = _iso(p.judicial_review_deadline)
        alternatives.append(entry)
        passes.append((description, p))

    # The earliest reading: the earliest date; on a tie the first listed (literal first).
    dated = [(d, i) for i, (_, p) in enumerate(passes) if (d := p.final_date()) is not None]
    chosen = min(dated)[1] if dated else 0
    conservative_reading, earliest = passes[chosen]
    conservative = earliest.final_date()
    conservative_status = earliest.status(reference)

    warnings = list(literal.warnings)
    judicial_review_deadline = literal.judicial_review_deadline
    if literal.terminal not in ("deemed_approved", "deemed_granted"):
        # 8.2: an applicant's notice counts under the earliest reading where it is valid.
        by_date = sorted((p.final_date() or date.max, i) for i, (_, p) in enumerate(passes) if i)
        for _, i in by_date:
            description, p = passes[i]
            if p.terminal in ("deemed_approved", "deemed_granted"):
                judicial_review_deadline = p.judicial_review_deadline
                warnings.append(_applicant_notice_warning(description, p, shot_clock_date))
                assert p.terminal_on is not None
                literal.ledger.append(
                    {
                        "date": p.terminal_on.isoformat(),
                        "event": f"{p.terminal}_earliest_reading",
                        "effect": (
                            f"{p.terminal.replace('_', ' ')} under the earliest reading "
                            f"({description}): the clock ran out on {p.terminal_date}"
                            + (
                                f"; the city may seek judicial review until "
                                f"{p.judicial_review_deadline} (calendar days, not extended)"
                                if p.judicial_review_deadline
                                else ""
                            )
                            + "; the literal reading gives the notice no effect"
                        ),
                        "days": JUDICIAL_REVIEW_DAYS if p.judicial_review_deadline else None,
                        "rule": (
                            CA_DEEMED_APPROVED_RULE
                            if p.terminal == "deemed_approved"
                            else DEEMED_GRANTED_RULE
                        ),
                    }
                )
                break
    if conservative is not None and shot_clock_date is not None and conservative < shot_clock_date:
        warnings.append(
            f"an alternative reading ends the clock on {conservative}, before the literal "
            f"date {shot_clock_date}: alerts follow the earlier date"
        )
    if conservative_status != status and conservative_status in (
        "decided_late",
        "expired",
    ):
        warnings.append(
            f"under the earliest reading ({conservative_reading}) the status is "
            f"{conservative_status}, not {status} (its date is {conservative}): the city must "
            "treat it as such"
        )
    if status == "expired":
        warnings.append(
            f"the shot clock date {shot_clock_date} has passed without a decision. "
            + expiry_remedy(literal.cat, timeline.state)
        )
    elif conservative_status == "expired":
        warnings.append(
            f"the conservative date {conservative} has passed without a decision. "
            + expiry_remedy(literal.cat, timeline.state)
        )
    if literal.start is not None and literal.start < literal.pack.effective_from:
        warnings.append(
            f"the clock started on {literal.start}, before the rule pack '{literal.pack.key}' "
            f"took effect on {literal.pack.effective_from}"
        )

    result: dict[str, Any] = {
        "category": literal.cat.key,
        "period_days": literal.period,
        "start_date": _iso(literal.start),
        "shot_clock_date": _iso(shot_clock_date),
        "conservative_date": _iso(conservative),
        "tolled_days": literal.tolled_days(),
        "reset_on": _iso(literal.reset_on),
        "status": status,
    }
    if timeline.as_of is not None:
        result["days_remaining"] = remaining(shot_clock_date)
    result.update(
        {
            "judicial_review_deadline": _iso(judicial_review_deadline),
            "notice_windows": literal.notice_windows(reference),
            "ledger": sorted(literal.ledger, key=lambda entry: entry["date"]),
            "alternatives": alternatives,
            "warnings": warnings,
            "conservative_status": conservative_status,
        }
    )
    if timeline.as_of is not None:
        result["conservative_days_remaining"] = remaining(conservative)
    result["conservative_reading"] = conservative_reading
    summary = layers.summary
    result["rules"] = {
        "rule_pack": literal.pack.key,
        "rule_pack_version": literal.pack.version,
        "calendar": summary["calendar"],
        "layers": list(summary["layers"]),
        "closures": list(summary["closures"]),
    }
    return result


def compute_json(raw: Any) -> dict[str, Any]:
    """Parse the contract's input (already JSON-decoded) and compute it."""
    return compute(parse_timeline(raw))


def with_as_of(timeline: Timeline, as_of: date | None) -> Timeline:
    return replace(timeline, as_of=as_of)
