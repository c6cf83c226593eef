"""Date arithmetic for permit clocks (permit-clocks.md §2). Pure; no I/O.

Each function takes the non-working days as a `DaySet` (weekends are always closed),
so the same code counts the literal and the conservative reading: only the set differs.
Pauses are half-open intervals (paused, resumed]: the pause day counts, counting
resumes the day after `resumed`.
"""

from __future__ import annotations

import calendar as _calendar
from collections.abc import Sequence
from datetime import date, timedelta
from functools import lru_cache
from typing import Protocol

ONE_DAY = timedelta(days=1)

# date.isoformat formats through printf, and every recomputation writes the same few
# hundred dates again (results, ledgers, messages): their text is cached.
iso = lru_cache(maxsize=4096)(date.isoformat)

Pause = tuple[date, date]  # (paused, resumed): days after `paused` up to `resumed` don't count


class DaySet(Protocol):
    """Working days: why a day is closed, and counting over the working days."""

    def reason(self, d: date) -> str | None: ...

    def roll(self, d: date) -> date: ...

    def add(self, start: date, n: int) -> date: ...

    def count(self, start: date, end: date) -> int: ...

    def back(self, end: date, n: int) -> date: ...


def add_months(start: date, months: int) -> date:
    """Same day-of-month `months` later, clamped to the month's end
    (2024-02-29 + 12 months = 2025-02-28)."""
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    last = _calendar.monthrange(year, month)[1]
    return date(year, month, min(start.day, last))


def add_calendar_days(start: date, days: int, pauses: Sequence[Pause] = ()) -> date:
    """start + days, first day excluded, each pause that begins inside the period
    pushing the end by its length (the unrolled "nominal" last day)."""
    end = start + timedelta(days=days)
    for paused, resumed in sorted(pauses):
        if start <= paused < end:
            end += resumed - paused
    return end


def roll_forward(d: date, closed: DaySet) -> tuple[date, list[tuple[date, str]]]:
    """The first working day on or after `d`, and each skipped day with its reason."""
    skipped: list[tuple[date, str]] = []
    reason = closed.reason(d)
    while reason is not None:
        skipped.append((d, reason))
        d += ONE_DAY
        reason = closed.reason(d)
    return d, skipped


def add_business_days(start: date, days: int, closed: DaySet, pauses: Sequence[Pause] = ()) -> date:
    """The `days`-th working day after `start` (no further roll); working days inside a
    pause (after the pause day, up to and including the resume day) don't count."""
    anchor, remaining = start, days
    for paused, resumed in sorted(pauses):
        if paused >= anchor:
            counted = closed.count(anchor, paused)
            if counted >= remaining:
                break
            remaining -= counted
        anchor = max(anchor, resumed)
    return closed.add(anchor, remaining)


def business_days_between(start: date, end: date, closed: DaySet) -> int:
    """Working days in (start, end]; negative (days in (end, start]) when end < start."""
    if end >= start:
        return closed.count(start, end)
    return -closed.count(end, start)


def subtract_business_days(end: date, days: int, closed: DaySet) -> date:
    """The working day that is `days` working days before `end`."""
    return closed.back(end, days)
