"""Tests for rules.conditions.seasons: wrapping seasons, leap days and month arithmetic."""

from __future__ import annotations

import pytest

from rules.conditions.seasons import MonthDay, Season, minus_months
from tests.rules.conditions.window_cases import (
    d,
)

# ------------------------------------------------------------ seasons and months


def test_season_wrapping_and_leap_day_endpoints() -> None:
    owl = Season(MonthDay(9, 1), MonthDay(1, 31))
    assert owl.wraps
    assert [
        owl.contains(d(x)) for x in ("2026-08-31", "2026-09-01", "2027-01-31", "2027-02-01")
    ] == [
        False,
        True,
        True,
        False,
    ]
    assert owl.overlapping(d("2027-01-01"), d("2027-12-31")) == [
        (d("2026-09-01"), d("2027-01-31")),
        (d("2027-09-01"), d("2028-01-31")),
    ]
    hibernation = Season(MonthDay(11, 1), MonthDay(2, 29))
    assert hibernation.starting_in(2026) == (d("2026-11-01"), d("2027-02-28"))
    assert hibernation.starting_in(2027) == (d("2027-11-01"), d("2028-02-29"))
    leap_start = Season(MonthDay(2, 29), MonthDay(3, 10))
    assert leap_start.starting_in(2027) == (d("2027-03-01"), d("2027-03-10"))
    assert leap_start.starting_in(2028) == (d("2028-02-29"), d("2028-03-10"))


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        ("2027-05-31", 3, "2027-02-28"),
        ("2028-05-31", 3, "2028-02-29"),
        ("2027-01-15", 3, "2026-10-15"),
        ("2027-03-31", 1, "2027-02-28"),
        ("2027-12-31", 12, "2026-12-31"),
        ("2027-07-15", 0, "2027-07-15"),
    ],
)
def test_minus_months(day: str, months: int, expected: str) -> None:
    assert minus_months(d(day), months) == d(expected)
