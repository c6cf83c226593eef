"""The state one pass over a timeline carries, and its bookkeeping.

A pass applies one reading of the rules to the events in date order. `ClockState` holds
what the events so far have done to the shot clock (its start, the days tolled by
notices and agreements, a reset, a notice outstanding, how the clock closed) and the
explanations gathered on the way: the ledger, the notice windows, the warnings and the
ambiguities that make other readings relevant. The rules for each kind of event are
in `notices`, `tolling_agreements` and `outcomes`; `clock_pass` puts them together.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from rules.kernel.calendars import CONSERVATIVE, BusinessCalendar, CalendarLayers
from rules.shot_clock.packs import governing_category, rule_pack
from rules.shot_clock.readings import Reading
from rules.shot_clock.timeline import Event, Timeline


def iso_date(d: date | None) -> str | None:
    return None if d is None else d.isoformat()


def days_text(n: int) -> str:
    """ "1 day", "2 days": how a count of days reads in the ledger and the warnings."""
    return f"{n} day" if n == 1 else f"{n} days"


class ClockState:
    """What the events so far have done to the shot clock under one reading."""

    def __init__(
        self,
        timeline: Timeline,
        reading: Reading,
        layers: CalendarLayers,
    ) -> None:
        self.timeline = timeline
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
        self.public_notice: date | None = None
        self.deemed_notice: date | None = None
        self.terminal: str | None = None
        self.terminal_on: date | None = None
        self.terminal_date: date | None = None
        self.judicial_review_deadline: date | None = None
        self.ambiguities: set[str] = set()
        self.windows: list[dict[str, Any]] = []
        self.ledger: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        # Whether a roll-forward skipped a day the conservative calendar does not skip:
        # if never, the conservative calendar reading would change nothing.
        self.contested_roll = False
        self._conservative_cal = layers.calendar(CONSERVATIVE)
        self._final: tuple[date | None] | None = None

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

    def _no_effect(self, e: Event, why: str, rule: str = "") -> None:
        self.warnings.append(f"{why}: no effect on the clock")
        self._log(e.date, e.type, f"no effect on the clock: {why}", 0, rule)

    def _open_window(self, kind: str, closes: date, rule: str) -> None:
        self.windows.append(
            {"kind": kind, "closes": closes.isoformat(), "rule": rule, "state": None}
        )
