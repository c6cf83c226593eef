"""Tolling agreements, and the events that never toll the shot clock.

A written agreement extends the clock by a number of days or sets its date outright
(8.5: an agreed date absorbs the days a notice tolled before it; of two agreements of
one date, the one recorded later in the input wins). Moratoria, hearing notices and
appeals never toll.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from rules.shot_clock.clock_state import ClockState, days_text
from rules.shot_clock.timeline import Event


class TollingRules(ClockState):
    """The pass's rules for `tolling_agreement`, `moratorium`, `hearing_notice`, `appeal`."""

    def _on_tolling_agreement(self, e: Event) -> None:
        earlier = self.agreement_entries.get(e.date)
        if earlier is not None:
            self._supersede_agreement(e, earlier)
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
            self._agreement_extends(e, e.days)
        else:
            self._agreement_sets_date(e, current)
        self.agreement_entries[e.date] = {"before": before, "entry": self.ledger[-1]}

    def _supersede_agreement(self, e: Event, earlier: dict[str, Any]) -> None:
        """8.5: two agreements of one date: the one recorded later in the input wins, so
        the earlier one is undone."""
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
            f"two tolling agreements are dated {e.date}: the one recorded later in the input wins"
        )

    def _agreement_extends(self, e: Event, days: int) -> None:
        self.agreement_days += days
        if self.agreed_date is not None:
            self.tolled_after_agreement += days
        self._log(
            e.date,
            e.type,
            f"written tolling agreement extends the clock by {days_text(days)}",
            days,
            self.cat.agreement_rule,
        )

    def _agreement_sets_date(self, e: Event, current: date | None) -> None:
        """The agreed date replaces the counted one; only tolling after it extends it."""
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
            self.cat.agreement_rule,
        )

    def _never_tolls(self, e: Event) -> None:
        self._log(e.date, e.type, "does not toll the clock", 0, self.pack.never_tolls_rule)

    _on_moratorium = _never_tolls
    _on_hearing_notice = _never_tolls
    _on_appeal = _never_tolls
