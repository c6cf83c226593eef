"""One pass over a timeline under one reading: the events in order, day by day.

`event_days` orders the events once per timeline (same-day events in a fixed order, so
the result never depends on the order of the input); `ClockPass` applies each day's
events with the rules of `notices`, `tolling` and `outcomes`, and then answers for the
reading: the final date and the ledger line that explains it, the status, the days
tolled and the notice windows.
"""

from __future__ import annotations

from collections import defaultdict, deque
from datetime import date, timedelta
from typing import Any

from rules.kernel.calendars import CONSERVATIVE, CalendarLayers
from rules.shot_clock.clock_state import ClockState, days_text, iso_date
from rules.shot_clock.notices import NoticeRules
from rules.shot_clock.outcomes import OutcomeRules
from rules.shot_clock.readings import Reading
from rules.shot_clock.timeline import Event, Timeline
from rules.shot_clock.tolling import TollingRules

WEEKEND = frozenset({"Saturday", "Sunday"})

# Same-day events are applied in this order so the result never depends on the order
# of the input; a notice and a resubmission on one day are ordered by whether a notice
# is outstanding (see ClockPass._run_day).
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


def _canonical(e: Event) -> tuple[Any, ...]:
    if e.type == "tolling_agreement":
        # Two agreements of one day: the one recorded later in the input wins (8.5).
        return (e.type, e.seq)
    return (
        e.type,
        tuple((i.id, i.text, i.rule) for i in e.items),
        -1 if e.days is None else e.days,
        iso_date(e.new_date) or "",
        e.outcome or "",
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


class ClockPass(NoticeRules, TollingRules, OutcomeRules):
    """One pass over the timeline under one reading."""

    def __init__(
        self,
        timeline: Timeline,
        reading: Reading,
        layers: CalendarLayers,
        days: list[list[Event]] | None = None,
    ) -> None:
        ClockState.__init__(self, timeline, reading, layers)
        for day in days if days is not None else event_days(timeline):
            self._run_day(day)

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
            self._on_pre_application(e)
            return
        if e.type == "submitted":
            self._on_submitted(e)
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

    def _on_pre_application(self, e: Event) -> None:
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
            f"date, {days_text(lead)} before the submission",
            lead,
            self.pack.counting_rule,
        )

    def _on_submitted(self, e: Event) -> None:
        batch = self.timeline.batch
        what = (
            f"batch of {len(batch)} small wireless sites "
            f"({', '.join(sorted(set(batch)))}), governed by {self.cat.key}"
            if batch
            else f"{self.cat.key} ({self.cat.label})"
        )
        rule = self.cat.rule if not batch else f"{self.cat.rule}; {self.pack.batch.rule}"
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
            self._explain_roll_forward(raw)
        elif self.cat.eligible_facilities_request:
            self._explain_no_roll_forward(raw)

    def _explain_roll_forward(self, raw: date) -> None:
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

    def _explain_no_roll_forward(self, raw: date) -> None:
        """An eligible facilities request's date stands on a closed day (47 CFR 1.6100)."""
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
