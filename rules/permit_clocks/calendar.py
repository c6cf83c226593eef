"""Which days a permit clock skips, per counting convention and reading (§2).

The days come from the calendar layers of rules/calendars.py (a `CalendarLayers`
snapshot: federal, state, judicial, adopted, closures). Weekends are always closed;
the conventions use the layers so:

| convention      | literal reading                  | conservative reading       |
|-----------------|----------------------------------|----------------------------|
| `ccp12` roll    | judicial + adopted + closures    | judicial + adopted         |
| `business_days` | adopted + closures               | adopted                    |

(CCP 12a/12b roll past court holidays and full-day closures; a one-off closure may
not survive a challenge, so the earliest reading works it.) Pure: the per-year tables
live in the snapshot's cached `BusinessCalendar`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from rules.calendars import BusinessCalendar, CalendarLayers

Reading = Literal["literal", "conservative"]

KINDS: dict[tuple[str, str], frozenset[str]] = {
    ("ccp12", "literal"): frozenset({"judicial", "adopted", "closures"}),
    ("ccp12", "conservative"): frozenset({"judicial", "adopted"}),
    ("business_days", "literal"): frozenset({"adopted", "closures"}),
    ("business_days", "conservative"): frozenset({"adopted"}),
}


@dataclass(frozen=True)
class Closed:
    """Weekends plus some layers: `reason(d)` says why `d` is not a working day."""

    calendar: BusinessCalendar

    def reason(self, d: date) -> str | None:
        return self.calendar.closure_reason(d)


@dataclass(frozen=True)
class PermitCalendar:
    """A permit clock's calendar: one layer snapshot, read per convention."""

    layers: CalendarLayers

    def closed(self, convention: str, reading: Reading) -> Closed:
        """The non-working days for `convention` ("ccp12" or "business_days")."""
        return Closed(self.layers.calendar(KINDS[(convention, reading)]))
