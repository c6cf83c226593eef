"""Tests for rules.conditions.planned_dates: ISO round trips and refused input."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from rules.conditions.planned_dates import MAX_YEAR, PlannedDates
from rules.conditions.window_schedule import schedule
from tests.rules.conditions.window_cases import (
    COND_7,
    d,
)

# ---------------------------------------------------------------- planned dates


def test_planned_dates_iso_round_trip() -> None:
    raw = {
        "groundbreaking": "2027-03-15",
        "grading_start": None,
        "grading_end": "2027-11-30",
        "construction_end": None,
        "milestone_targets": {"grading_permit": "2027-03-01", "building_permit": "2027-04-01"},
    }
    planned = PlannedDates.from_iso(raw)
    assert planned.groundbreaking == d("2027-03-15") and planned.grading_start is None
    assert planned.milestone_targets == {
        "grading_permit": d("2027-03-01"),
        "building_permit": d("2027-04-01"),
    }
    back = planned.to_iso()
    assert back["milestone_targets"] == {
        "building_permit": "2027-04-01",
        "grading_permit": "2027-03-01",
    }
    assert PlannedDates.from_iso(back) == planned
    assert PlannedDates.from_iso({}) == PlannedDates()
    assert PlannedDates.from_iso({"groundbreaking": ""}).groundbreaking is None


@pytest.mark.parametrize(
    "raw",
    [
        {"groundbreak": "2027-03-15"},
        {"groundbreaking": "15/03/2027"},
        {"groundbreaking": 20270315},
        {"milestone_targets": ["grading_permit"]},
        {"milestone_targets": {"grading_permit": "soon"}},
    ],
)
def test_planned_dates_from_iso_rejects_bad_input(raw: dict) -> None:
    with pytest.raises(ValueError):
        PlannedDates.from_iso(raw)


def test_planned_dates_rejects_datetimes_and_extreme_years() -> None:
    with pytest.raises(TypeError):
        PlannedDates(groundbreaking=datetime(2027, 3, 15))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PlannedDates(groundbreaking=date(1, 12, 31))
    with pytest.raises(ValueError):
        PlannedDates(milestone_targets={"grading_permit": date(MAX_YEAR + 1, 1, 1)})
    with pytest.raises(TypeError):
        schedule(
            [COND_7],
            PlannedDates(milestone_targets={"grading_permit": d("2027-05-31")}),
            {"7": datetime(2027, 3, 1)},
        )  # type: ignore[dict-item]
