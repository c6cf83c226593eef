"""Properties of the window schedule over generated planned dates."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.conditions.planned_dates import MAX_YEAR, MIN_YEAR, PlannedDates
from rules.conditions.window_schedule import schedule
from tests.rules.conditions.window_cases import (
    ALL,
    COND_63,
    COND_107,
    keyed,
    run,
)

# ----------------------------------------------------------------------- properties

DATES = st.dates(min_value=date(MIN_YEAR, 1, 1), max_value=date(MAX_YEAR, 12, 31))
NEAR = st.dates(min_value=date(2020, 1, 1), max_value=date(2035, 12, 31))


def _in_nesting_season(day: date) -> bool:
    return (2, 1) <= (day.month, day.day) <= (8, 31)


@settings(max_examples=300, deadline=None)
@given(
    groundbreaking=DATES,
    grading_offset=st.none() | st.integers(-10, 400),
    grading_days=st.none() | st.integers(0, 800),
    construction_days=st.none() | st.integers(0, 900),
    target_offset=st.none() | st.integers(-400, 400),
    evidence_offset=st.none() | st.integers(-200, 10),
)
def test_property_reminders_before_due_and_nesting_iff_in_season(
    groundbreaking: date,
    grading_offset: int | None,
    grading_days: int | None,
    construction_days: int | None,
    target_offset: int | None,
    evidence_offset: int | None,
) -> None:
    def shift(base: date | None, days: int | None) -> date | None:
        if base is None or days is None:
            return None
        moved = base + timedelta(days=days)
        return moved if MIN_YEAR <= moved.year <= MAX_YEAR else None

    grading_start = shift(groundbreaking, grading_offset)
    target = shift(groundbreaking, target_offset)
    planned = PlannedDates(
        groundbreaking=groundbreaking,
        grading_start=grading_start,
        grading_end=shift(grading_start, grading_days),
        construction_end=shift(groundbreaking, construction_days),
        milestone_targets={} if target is None else {"grading_permit": target},
    )
    evidence = shift(target, evidence_offset)
    items, conflicts = schedule(ALL, planned, {} if evidence is None else {"7": evidence})
    for item in items:
        assert all(r <= item.due for r in item.remind_on)
        assert list(item.remind_on) == sorted(set(item.remind_on))
        assert item.window_start is None or item.window_start <= item.due
        assert item.description and item.citation.startswith("Condition ")
    assert [i.due for i in items] == sorted(i.due for i in items)
    nesting = keyed(items, "nesting_bird_survey")
    assert bool(nesting) is _in_nesting_season(groundbreaking)
    for item in nesting:
        assert item.due - item.window_start == timedelta(days=7)
    assert not any(c.message.startswith("set the planned groundbreaking") for c in conflicts)


def _touches(first: date, last: date, in_season) -> bool:  # type: ignore[no-untyped-def]
    day = first
    while day <= last:
        if in_season(day):
            return True
        day += timedelta(days=1)
    return False


@settings(max_examples=200, deadline=None)
@given(start=NEAR, length=st.integers(0, 500))
def test_property_wrapping_seasons_match_day_by_day_check(start: date, length: int) -> None:
    end = start + timedelta(days=length)
    # Burrowing owl: any work day in Sep 1 - Jan 31 (wraps the new year).
    items, _ = run([COND_107], groundbreaking=start, construction_end=end)
    owl = keyed(items, "burrowing_owl_survey")
    assert bool(owl) is _touches(start, end, lambda x: x.month >= 9 or x.month == 1)
    # Erosion control: one item per Oct 15 - Apr 15 season that grading touches, each due
    # before the grading it protects or on the Sep 30 before that season.
    items, _ = run([COND_63], grading_start=start, grading_end=end)
    in_storm = lambda x: (x.month, x.day) >= (10, 15) or (x.month, x.day) <= (4, 15)  # noqa: E731
    assert bool(items) is _touches(start, end, in_storm)
    for item in items:
        assert item.due < end
        assert (item.due.month, item.due.day) == (9, 30) or item.due == start - timedelta(days=1)
    # Bat survey days never fall in hibernation (Nov 1 - end of February).
    items, _ = run([COND_107], groundbreaking=start)
    for item in keyed(items, "bat_exclusion"):
        assert item.window_start is not None
        for offset in range((item.due - item.window_start).days + 1):
            assert 3 <= (item.window_start + timedelta(days=offset)).month <= 10
        assert start - timedelta(days=7) <= item.window_start <= item.due < start
