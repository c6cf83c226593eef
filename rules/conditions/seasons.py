"""Seasons (inclusive month-day ranges recurring every year, wrapping the new year when
they start after they end) and calendar-month arithmetic, for the windows of conditions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import MINYEAR, date, timedelta

_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class MonthDay:
    month: int
    day: int

    def _is_leap_day_in_common_year(self, year: int) -> bool:
        return (self.month, self.day) == (2, 29) and not _is_leap(year)

    def as_start(self, year: int) -> date:
        """This month-day as the first day of a range in ``year`` (Feb 29 -> Mar 1)."""
        if self._is_leap_day_in_common_year(year):
            return date(year, 3, 1)
        return date(year, self.month, self.day)

    def as_end(self, year: int) -> date:
        """This month-day as the last day of a range in ``year`` (Feb 29 -> Feb 28)."""
        if self._is_leap_day_in_common_year(year):
            return date(year, 2, 28)
        return date(year, self.month, self.day)

    def label(self) -> str:
        return f"{self.month:02d}-{self.day:02d}"


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@dataclass(frozen=True, slots=True)
class Season:
    """An inclusive month-day range recurring every year; wraps when start > end."""

    start: MonthDay
    end: MonthDay

    @property
    def wraps(self) -> bool:
        return (self.start.month, self.start.day) > (self.end.month, self.end.day)

    def starting_in(self, year: int) -> tuple[date, date]:
        """The occurrence that starts in ``year`` (ending in ``year + 1`` if it wraps)."""
        return self.start.as_start(year), self.end.as_end(year + 1 if self.wraps else year)

    def overlapping(self, first: date, last: date) -> list[tuple[date, date]]:
        """Occurrences intersecting ``[first, last]``, earliest first."""
        found = []
        # A wrapping occurrence that starts the year before can reach into first.year.
        for year in range(max(first.year - 1, MINYEAR), last.year + 1):
            start, end = self.starting_in(year)
            if start <= last and end >= first and start <= end:
                found.append((start, end))
        return found

    def contains(self, day: date) -> bool:
        return bool(self.overlapping(day, day))


def in_any(day: date, seasons: Sequence[Season]) -> bool:
    return any(season.contains(day) for season in seasons)


def overlaps(first: date, last: date, seasons: Sequence[Season]) -> list[tuple[date, date]]:
    found = [occ for season in seasons for occ in season.overlapping(first, last)]
    return sorted(found)


def next_start_after(day: date, seasons: Sequence[Season]) -> date:
    """The first season start strictly after ``day``."""
    starts = [
        season.starting_in(year)[0]
        for season in seasons
        for year in (day.year, day.year + 1)
        if season.starting_in(year)[0] > day
    ]
    return min(starts)


def minus_months(day: date, months: int) -> date:
    """``day`` moved back ``months`` calendar months, clamped to the month's last day."""
    index = day.year * 12 + (day.month - 1) - months
    year, month0 = divmod(index, 12)
    month = month0 + 1
    return date(year, month, min(day.day, _days_in_month(year, month)))


def _days_in_month(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (date(year, month + 1, 1) - date(year, month, 1)).days


def days(first: date, last: date) -> Iterable[date]:
    day = first
    while day <= last:
        yield day
        day += _ONE_DAY
