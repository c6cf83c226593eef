"""Which days a permit clock skips, per counting convention and reading (§2).

The days come from the calendar layers of rules/kernel/calendars.py (a `CalendarLayers`
snapshot: federal, state, judicial, adopted, closures). Weekends are always closed;
the conventions use the layers so:

| convention      | literal reading                  | conservative reading       |
|-----------------|----------------------------------|----------------------------|
| `ccp12` roll    | judicial + adopted + closures    | judicial + adopted         |
| `business_days` | adopted + closures               | adopted                    |

(CCP 12a/12b roll past court holidays and full-day closures; a one-off closure may
not survive a challenge, so the earliest reading works it.) Pure: each `Closed` keeps,
per year, the sorted working days, built once and shared by every computation on the
same calendar, so counting 60 business days is a few bisections, not 84 lookups.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Literal

from rules.kernel.calendars import BusinessCalendar, CalendarLayers

Reading = Literal["literal", "conservative"]

KINDS: dict[tuple[str, str], frozenset[str]] = {
    ("ccp12", "literal"): frozenset({"judicial", "adopted", "closures"}),
    ("ccp12", "conservative"): frozenset({"judicial", "adopted"}),
    ("business_days", "literal"): frozenset({"adopted", "closures"}),
    ("business_days", "conservative"): frozenset({"adopted"}),
}


@dataclass
class Closed:
    """Weekends plus some layers: `reason(d)` says why `d` is not a working day;
    `add`, `count` and `back` count working days from per-year tables."""

    calendar: BusinessCalendar
    _years: dict[int, list[int]] = field(default_factory=dict, repr=False)

    def reason(self, d: date) -> str | None:
        return self.calendar.closure_reason(d)

    def _year(self, year: int) -> list[int]:
        found = self._years.get(year)
        if found is None:
            first, last = date(year, 1, 1).toordinal(), date(year, 12, 31).toordinal()
            reason = self.calendar.closure_reason
            found = [o for o in range(first, last + 1) if reason(date.fromordinal(o)) is None]
            self._years[year] = found
        return found

    def roll(self, d: date) -> date:
        """The first working day on or after `d`."""
        ordinal, year = d.toordinal(), d.year
        while True:
            days = self._year(year)
            i = bisect_right(days, ordinal - 1)
            if i < len(days):
                return d if days[i] == ordinal else date.fromordinal(days[i])
            year += 1
            ordinal = date(year, 1, 1).toordinal()

    def add(self, start: date, n: int) -> date:
        """The n-th working day after `start` (start itself excluded); `start` for 0."""
        if n <= 0:
            return start
        ordinal, year = start.toordinal(), start.year
        while True:
            days = self._year(year)
            i = bisect_right(days, ordinal)
            if n <= len(days) - i:
                return date.fromordinal(days[i + n - 1])
            n -= len(days) - i
            year += 1
            ordinal = 0

    def count(self, start: date, end: date) -> int:
        """Working days in (start, end]; 0 when end <= start."""
        if end <= start:
            return 0
        a, b = start.toordinal(), end.toordinal()
        total = 0
        for year in range(start.year, end.year + 1):
            days = self._year(year)
            total += bisect_right(days, b) - bisect_right(days, a)
        return total

    def back(self, end: date, n: int) -> date:
        """The working day n working days before `end`."""
        ordinal, year = end.toordinal(), end.year
        while True:
            days = self._year(year)
            i = bisect_right(days, ordinal - 1)  # working days strictly before `ordinal`
            if n <= i:
                return date.fromordinal(days[i - n])
            n -= i
            year -= 1
            ordinal = date(year, 12, 31).toordinal() + 1


@dataclass(frozen=True)
class PermitCalendar:
    """A permit clock's calendar: one layer snapshot, read per convention."""

    layers: CalendarLayers
    _closed: dict[tuple[str, str], Closed] = field(default_factory=dict, repr=False, compare=False)

    def closed(self, convention: str, reading: Reading) -> Closed:
        """The non-working days for `convention` ("ccp12" or "business_days")."""
        key = (convention, reading)
        found = self._closed.get(key)
        if found is None:
            found = self._closed[key] = Closed(self.layers.calendar(KINDS[key]))
        return found

    @cached_property
    def closures(self) -> tuple[date, ...]:
        """The one-off closure days, sorted: all the literal and conservative readings
        differ by."""
        return tuple(sorted(self.layers.closure_dates))

    def closure_between(self, low: date, high: date) -> bool:
        """Whether a one-off closure falls in [low, high]."""
        days = self.closures
        i = bisect_left(days, low)
        return i < len(days) and days[i] <= high
