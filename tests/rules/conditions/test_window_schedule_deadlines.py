"""Deadlines: erosion control before the storm season (#63), the title report's freshness
(#7), the dust coordinator and complaint responses (#105 AQ-1 H), and no work on Sundays
or holidays (#117 NOI-2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from rules.conditions.window_schedule import response_deadline
from tests.rules.conditions.window_cases import (
    COND_7,
    COND_63,
    COND_105,
    COND_117,
    TEXT_7,
    d,
    messages,
    only,
    run,
    spec,
)

# --------------------------------------------------------- erosion control (#63)


def test_erosion_control_before_october_1() -> None:
    items, conflicts = run([COND_63], grading_start=d("2027-06-01"), grading_end=d("2027-11-30"))
    assert conflicts == []
    item = only(items, "erosion_control_before_rainy_season")
    # Grading reaches the 2027-10-15 .. 2028-04-15 season; "before October 1st" -> 09-30.
    assert item.due == d("2027-09-30")
    assert item.window_start is None
    # 60, 30, 7 days before 09-30: 08-01, 08-31, 09-23.
    assert item.remind_on == (d("2027-08-01"), d("2027-08-31"), d("2027-09-23"))
    assert item.citation == "Condition 63"
    assert item.description == (
        "Temporary and permanent erosion control measures conforming to the Project erosion "
        "control plans in place by 2027-09-30 (before October 1, 2027), because planned "
        "grading from 2027-06-01 to 2027-11-30 takes place in the October 15 to April 15 "
        "period of 2027-10-15 to 2028-04-15; monitor and maintain them throughout the storm "
        "season"
    )


def test_erosion_control_not_needed_between_april_16_and_october_14() -> None:
    items, conflicts = run([COND_63], grading_start=d("2027-04-16"), grading_end=d("2027-10-14"))
    assert items == [] and conflicts == []


def test_erosion_control_october_15_boundary() -> None:
    items, conflicts = run([COND_63], grading_start=d("2027-05-01"), grading_end=d("2027-10-15"))
    assert [i.due for i in items] == [d("2027-09-30")] and conflicts == []


@pytest.mark.parametrize(
    ("start", "end", "due", "late"),
    [
        # Starts on October 1 itself: the deadline 09-30 is still before grading.
        ("2027-10-01", "2027-12-01", "2027-09-30", False),
        # Starts Oct 2: the literal 09-30 precedes grading -> due the day before, 10-01.
        ("2027-10-02", "2027-12-01", "2027-10-01", True),
        # Starts mid-season in January: season 2026-10-15 .. 2027-04-15, due 01-09.
        ("2027-01-10", "2027-05-01", "2027-01-09", True),
        # Starts on April 15, the last day of the 2026-27 season.
        ("2027-04-15", "2027-06-30", "2027-04-14", True),
        # Leap day start: 2028-02-29 - 1 = 2028-02-28.
        ("2028-02-29", "2028-03-10", "2028-02-28", True),
    ],
)
def test_erosion_control_grading_starting_inside_the_season(
    start: str, end: str, due: str, late: bool
) -> None:
    items, conflicts = run([COND_63], grading_start=d(start), grading_end=d(end))
    assert [i.due for i in items] == [d(due)]
    assert bool(conflicts) is late
    if late:
        assert "the condition's date for the" in conflicts[0].message
        assert f"before grading begins ({due})" in conflicts[0].message
        assert items[0].description.startswith(
            f"Temporary and permanent erosion control measures conforming to the Project "
            f"erosion control plans in place by {due}, before grading begins on {start}"
        )


def test_erosion_control_mid_season_names_the_previous_october() -> None:
    _, conflicts = run([COND_63], grading_start=d("2027-01-10"), grading_end=d("2027-05-01"))
    assert conflicts[0].message == (
        "planned grading start 2027-01-10 is after October 1, 2026, the condition's date for "
        "the 2026-10-15 to 2027-04-15 storm season: erosion control is scheduled before "
        "grading begins (2027-01-09) instead; confirm with the City Engineer"
    )


def test_erosion_control_each_storm_season_grading_touches() -> None:
    # 2027-09-01 .. 2028-11-01 touches 2027-28 and 2028-29: due 2027-09-30 and 2028-09-30.
    items, conflicts = run([COND_63], grading_start=d("2027-09-01"), grading_end=d("2028-11-01"))
    assert [i.due for i in items] == [d("2027-09-30"), d("2028-09-30")]
    assert conflicts == []


def test_erosion_control_missing_or_inconsistent_grading_dates() -> None:
    items, conflicts = run([COND_63], groundbreaking=d("2027-06-01"))
    assert items == []
    assert messages(conflicts, "erosion_control_before_rainy_season") == [
        "set the planned grading start date to compute the erosion control deadline (measures "
        "in place before October 1 when grading takes place between October 15 and April 15)"
    ]
    items, conflicts = run([COND_63], grading_start=d("2027-06-01"))
    assert items == []
    assert conflicts[0].message.startswith("set the planned grading end date")
    # A start inside the season is enough to know the season without an end date.
    items, conflicts = run([COND_63], grading_start=d("2027-11-01"))
    assert [i.due for i in items] == [d("2027-10-31")]
    assert "(end date not set)" not in items[0].description  # late-start wording
    items, conflicts = run([COND_63], grading_start=d("2027-06-01"), grading_end=d("2027-05-01"))
    assert items == [] and "is before grading start" in conflicts[0].message


# ------------------------------------------------------------ title report (#7)


def test_title_report_due_by_gate_with_three_month_window() -> None:
    items, conflicts = run([COND_7], targets={"grading_permit": d("2027-07-15")})
    assert conflicts == []
    item = only(items, "title_report_freshness")
    # 2027-07-15 - 3 months = 2027-04-15.
    assert (item.window_start, item.due) == (d("2027-04-15"), d("2027-07-15"))
    # 30, 14 and 3 days before 07-15: 06-15, 07-01, 07-12.
    assert item.remind_on == (d("2027-06-15"), d("2027-07-01"), d("2027-07-12"))
    assert item.citation == "Condition 7"
    assert item.description == (
        "Submit a current Preliminary Title Report (with the grant deed and title items) dated "
        "on or after 2027-04-15 (within the last 3 months) by 2027-07-15, the grading permit "
        "issuance target"
    )


@pytest.mark.parametrize(
    ("target", "earliest"),
    [
        ("2027-05-31", "2027-02-28"),  # no Feb 31: clamp to the month's end
        ("2028-05-31", "2028-02-29"),  # leap year
        ("2027-01-15", "2026-10-15"),  # back across the year boundary
        ("2027-03-31", "2026-12-31"),
    ],
)
def test_title_report_month_arithmetic(target: str, earliest: str) -> None:
    items, _ = run([COND_7], targets={"grading_permit": d(target)})
    assert only(items, "title_report_freshness").window_start == d(earliest)


def test_title_report_fresh_evidence_needs_nothing() -> None:
    targets = {"grading_permit": d("2027-05-31")}
    # Dated exactly 2027-02-28 (the earliest allowed) or later: nothing to do.
    for dated in ("2027-02-28", "2027-05-01", "2027-06-15"):
        items, conflicts = run([COND_7], targets=targets, evidence={"7": d(dated)})
        assert items == [] and conflicts == []


def test_title_report_stale_evidence_is_re_requested() -> None:
    targets = {"grading_permit": d("2027-05-31")}
    items, conflicts = run([COND_7], targets=targets, evidence={"7": d("2027-02-27")})
    assert conflicts == []
    item = only(items, "title_report_freshness")
    assert (item.window_start, item.due) == (d("2027-02-28"), d("2027-05-31"))
    assert item.description == (
        "Re-request the Preliminary Title Report: the report on file is dated 2027-02-27, more "
        "than 3 months before the grading permit issuance target 2027-05-31; submit an updated "
        "report dated on or after 2027-02-28 by 2027-05-31"
    )
    # Evidence recorded against another condition does not count for #7.
    items, _ = run([COND_7], targets=targets, evidence={"8": d("2027-05-01")})
    assert only(items, "title_report_freshness").description.startswith("Submit a current")


def test_title_report_uses_the_earliest_of_several_gates() -> None:
    both = spec("7", None, TEXT_7, ["grading_permit", "building_permit"], "requirement")
    targets = {"grading_permit": d("2027-06-01"), "building_permit": d("2027-05-01")}
    items, _ = run([both], targets=targets)
    item = only(items, "title_report_freshness")
    # The building permit comes first: 2027-05-01 - 3 months = 2027-02-01.
    assert (item.window_start, item.due) == (d("2027-02-01"), d("2027-05-01"))
    assert "the building permit issuance target" in item.description


def test_title_report_without_gate_target_says_so() -> None:
    items, conflicts = run([COND_7], targets={"building_permit": d("2027-05-01")})
    assert items == []
    assert messages(conflicts, "title_report_freshness") == [
        "set the target date for grading permit issuance to compute when the Preliminary Title "
        "Report must be dated (within the last 3 months)"
    ]
    unassigned = spec("7", None, TEXT_7, ["unspecified"], "requirement")
    _, conflicts = run([unassigned])
    assert "the condition's milestone (not yet assigned)" in conflicts[0].message


# --------------------------------------------------- dust (#105 AQ-1 H) and NOI-2


def test_dust_disturbance_coordinator_by_groundbreaking() -> None:
    items, conflicts = run([COND_105], groundbreaking=d("2027-03-15"))
    assert conflicts == []
    item = only(items, "dust_complaint_response")
    assert item.due == d("2027-03-15") and item.window_start is None
    # 14 and 1 days before 03-15: 03-01, 03-14.
    assert item.remind_on == (d("2027-03-01"), d("2027-03-14"))
    assert "within 48 hours" in item.description
    assert item.citation == "Condition 105 (AQ-1)"
    _, conflicts = run([COND_105])
    assert messages(conflicts, "dust_complaint_response")[0].startswith(
        "set the planned groundbreaking date"
    )


def test_dust_complaint_response_is_48_elapsed_hours() -> None:
    # Friday 16:00 -> Sunday 16:00: calendar hours, no business-day extension.
    assert response_deadline(datetime(2027, 3, 12, 16, 0)) == datetime(2027, 3, 14, 16, 0)
    # 2027-03-13 10:00 PST is 18:00 UTC; + 48 h = 03-15 18:00 UTC = 11:00 PDT (DST began
    # 03-14), not 10:00 on the wall clock.
    la = ZoneInfo("America/Los_Angeles")
    answered_by = response_deadline(datetime(2027, 3, 13, 10, 0, tzinfo=la))
    assert answered_by == datetime(2027, 3, 15, 11, 0, tzinfo=la)
    # (Python subtracts same-zone datetimes on the wall clock, so compare in UTC.)
    received_utc = datetime(2027, 3, 13, 10, 0, tzinfo=la).astimezone(UTC)
    assert answered_by.astimezone(UTC) - received_utc == timedelta(hours=48)
    with pytest.raises(ValueError):
        response_deadline(datetime(2027, 3, 13), "nesting_bird_survey")


def test_noi2_no_construction_on_sundays_or_holidays() -> None:
    assert d("2027-03-14").weekday() == 6  # Sunday
    assert d("2027-03-13").weekday() == 5  # Saturday (allowed 9 am to 5 pm)
    assert d("2027-12-24").weekday() == 4  # Friday: Christmas (Saturday) observed
    items, conflicts = run(
        [COND_117],
        groundbreaking=d("2027-03-14"),
        grading_start=d("2027-03-13"),
        grading_end=d("2027-12-24"),
        construction_end=d("2027-12-25"),
    )
    assert items == []
    assert messages(conflicts, "construction_days") == [
        "planned groundbreaking 2027-03-14 falls on a Sunday: no construction may occur on "
        "Sundays or holidays (weekdays 7:00 am to 7:00 pm, Saturdays 9:00 am to 5:00 pm)",
        "planned grading end 2027-12-24 falls on a holiday (Christmas Day (observed)): no "
        "construction may occur on Sundays or holidays (weekdays 7:00 am to 7:00 pm, "
        "Saturdays 9:00 am to 5:00 pm)",
        "planned construction end 2027-12-25 falls on a holiday (Christmas Day): no "
        "construction may occur on Sundays or holidays (weekdays 7:00 am to 7:00 pm, "
        "Saturdays 9:00 am to 5:00 pm)",
    ]
    # Unknown dates are not this rule's business: no "set the planned ..." noise.
    assert run([COND_117]) == ([], [])
