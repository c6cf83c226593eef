"""Pre-activity surveys: nesting birds (#109 BIO-3 A), burrowing owls (#107 BIO-1 A) and
bats (#107 BIO-1 B), with their seasons, blackouts and follow-up work."""

from __future__ import annotations

import pytest

from tests.rules.conditions.window_cases import (
    COND_107,
    COND_109,
    d,
    keyed,
    messages,
    only,
    run,
)

# -------------------------------------------------------- nesting birds (#109 BIO-3 A)


def test_nesting_bird_survey_in_season_example() -> None:
    items, conflicts = run([COND_109], groundbreaking=d("2027-03-15"))
    assert conflicts == []
    item = only(items, "nesting_bird_survey")
    # Within 7 days of groundbreaking, before it: 2027-03-15 - 7 = 2027-03-08.
    assert item.window_start == d("2027-03-08")
    assert item.due == d("2027-03-15")
    assert item.description == (
        "Nesting bird pre-construction survey by a qualified biologist no earlier than "
        "2027-03-08 and no later than 2027-03-15 (groundbreaking 2027-03-15 falls in the "
        "Feb 1–Aug 31 nesting season); grading must occur within one week of the survey"
    )
    # Reminders 21, 7 and 0 days before the window opens on 03-08:
    # 03-08 - 21 = 02-15 (8 days back to 02-28, 13 more); 03-08 - 7 = 03-01.
    assert item.remind_on == (d("2027-02-15"), d("2027-03-01"), d("2027-03-08"))
    assert item.citation == "Condition 109 (BIO-3)"
    assert (item.condition_number, item.code) == ("109", "BIO-3")


@pytest.mark.parametrize(
    ("groundbreaking", "window_start"),
    [
        ("2027-02-01", "2027-01-25"),  # first day of the season; window reaches into January
        ("2027-08-31", "2027-08-24"),  # last day of the season
        ("2028-02-29", "2028-02-22"),  # leap day is in season: 29 - 7 = 22
        ("2028-03-01", "2028-02-23"),  # leap year: 03-01 - 7 passes 02-29 -> 02-23
        ("2027-03-01", "2027-02-22"),  # common year: 03-01 - 7 -> 02-22
    ],
)
def test_nesting_bird_season_boundaries_inside(groundbreaking: str, window_start: str) -> None:
    items, _ = run([COND_109], groundbreaking=d(groundbreaking))
    item = only(items, "nesting_bird_survey")
    assert (item.window_start, item.due) == (d(window_start), d(groundbreaking))


@pytest.mark.parametrize("groundbreaking", ["2027-01-31", "2027-09-01", "2027-12-31", "2028-01-01"])
def test_nesting_bird_season_boundaries_outside(groundbreaking: str) -> None:
    items, conflicts = run([COND_109], groundbreaking=d(groundbreaking))
    assert items == [] and conflicts == []


def test_nesting_bird_missing_groundbreaking_says_so() -> None:
    items, conflicts = run([COND_109], grading_start=d("2027-03-15"))
    assert items == []
    assert messages(conflicts, "nesting_bird_survey") == [
        "set the planned groundbreaking date to compute the nesting bird survey window "
        "(a survey is required if construction begins between February 1 and August 31)"
    ]


def test_grading_must_follow_the_survey_within_a_week() -> None:
    # Survey no later than groundbreaking 03-15; grading by 03-15 + 7 = 03-22 is fine.
    _, ok = run([COND_109], groundbreaking=d("2027-03-15"), grading_start=d("2027-03-22"))
    assert ok == []
    items, late = run([COND_109], groundbreaking=d("2027-03-15"), grading_start=d("2027-03-23"))
    assert only(items, "nesting_bird_survey").due == d("2027-03-15")
    # A new survey must be no earlier than 03-23 - 7 = 03-16.
    assert messages(late, "nesting_bird_survey") == [
        "planned grading start 2027-03-23 is more than 7 days after the latest survey date "
        "2027-03-15: grading must occur within one week of the survey, so plan a new survey no "
        "earlier than 2027-03-16 or start grading by 2027-03-22"
    ]
    _, early = run([COND_109], groundbreaking=d("2027-03-15"), grading_start=d("2027-03-14"))
    assert messages(early, "nesting_bird_survey")[0].startswith(
        "planned grading start 2027-03-14 is before groundbreaking 2027-03-15"
    )


# ------------------------------------------------------ burrowing owl (#107 BIO-1 A)


def test_burrowing_owl_groundbreaking_in_window_on_sep_1() -> None:
    items, conflicts = run([COND_107], groundbreaking=d("2027-09-01"))
    item = only(items, "burrowing_owl_survey")
    # "within 24 hours prior to ground disturbance": the day before or the same day.
    assert (item.window_start, item.due) == (d("2027-08-31"), d("2027-09-01"))
    # Reminders 30, 7, 0 days before 08-31: 08-01, 08-24, 08-31.
    assert item.remind_on == (d("2027-08-01"), d("2027-08-24"), d("2027-08-31"))
    assert "reaches the Sep 1–Jan 31 burrowing owl window on 2027-09-01" in item.description
    assert item.citation == "Condition 107 (BIO-1)"
    assert keyed(conflicts, "burrowing_owl_survey") == []


@pytest.mark.parametrize(
    ("groundbreaking", "window_start"),
    [
        ("2027-01-31", "2027-01-30"),  # last day of the wrapped window
        ("2026-12-31", "2026-12-30"),
        ("2027-01-01", "2026-12-31"),  # the survey day falls in the previous year
        ("2027-10-15", "2027-10-14"),
    ],
)
def test_burrowing_owl_wrapped_window_without_end_date(
    groundbreaking: str, window_start: str
) -> None:
    # Groundbreaking itself is in Sep 1-Jan 31, so the unknown end date does not matter.
    items, conflicts = run([COND_107], groundbreaking=d(groundbreaking))
    item = only(items, "burrowing_owl_survey")
    assert (item.window_start, item.due) == (d(window_start), d(groundbreaking))
    assert keyed(conflicts, "burrowing_owl_survey") == []


def test_burrowing_owl_feb_1_start_needs_the_end_date() -> None:
    items, conflicts = run([COND_107], groundbreaking=d("2027-02-01"))
    assert keyed(items, "burrowing_owl_survey") == []
    assert messages(conflicts, "burrowing_owl_survey") == [
        "set the planned construction end date to tell whether any work falls between "
        "September 1 and January 31 (burrowing owl surveys; groundbreaking 2027-02-01 is "
        "outside that window)"
    ]


def test_burrowing_owl_work_span_boundaries() -> None:
    # Feb 1 .. Aug 31 is exactly the gap between two windows: no survey owed.
    items, conflicts = run(
        [COND_107], groundbreaking=d("2027-02-01"), construction_end=d("2027-08-31")
    )
    assert keyed(items, "burrowing_owl_survey") == []
    assert keyed(conflicts, "burrowing_owl_survey") == []
    # One more day (Sep 1) and the final survey is owed before ground disturbance.
    items, _ = run([COND_107], groundbreaking=d("2027-02-01"), construction_end=d("2027-09-01"))
    item = only(items, "burrowing_owl_survey")
    assert (item.window_start, item.due) == (d("2027-01-31"), d("2027-02-01"))
    assert "reaches the Sep 1–Jan 31 burrowing owl window on 2027-09-01" in item.description


def test_burrowing_owl_leap_day_survey() -> None:
    # 2024-03-01 - 1 day = 2024-02-29 (leap year); work runs into September.
    items, _ = run([COND_107], groundbreaking=d("2024-03-01"), construction_end=d("2024-12-01"))
    assert only(items, "burrowing_owl_survey").window_start == d("2024-02-29")


def test_burrowing_owl_missing_and_inconsistent_dates() -> None:
    items, conflicts = run([COND_107])
    assert keyed(items, "burrowing_owl_survey") == []
    assert messages(conflicts, "burrowing_owl_survey")[0].startswith(
        "set the planned groundbreaking date to compute the burrowing owl survey dates"
    )
    _, conflicts = run([COND_107], groundbreaking=d("2027-05-01"), construction_end=d("2027-04-30"))
    assert messages(conflicts, "burrowing_owl_survey") == [
        "planned construction end 2027-04-30 is before groundbreaking 2027-05-01: correct the "
        "planned dates to check the burrowing owl window"
    ]


# ------------------------------------------------------------- bats (#107 BIO-1 B)


def test_bat_survey_in_spring_exclusion_window() -> None:
    items, conflicts = run([COND_107], groundbreaking=d("2027-03-15"))
    item = only(items, "bat_exclusion")
    # No more than 7 days prior: 03-15 - 7 = 03-08 .. 03-15 - 1 = 03-14 (dusk survey).
    assert (item.window_start, item.due) == (d("2027-03-08"), d("2027-03-14"))
    # Reminders 21, 7, 0 days before 03-08: 02-15, 03-01, 03-08.
    assert item.remind_on == (d("2027-02-15"), d("2027-03-01"), d("2027-03-08"))
    assert keyed(conflicts, "bat_exclusion") == []


def test_bat_demolition_outside_exclusion_windows() -> None:
    items, conflicts = run([COND_107], groundbreaking=d("2027-06-10"))
    item = only(items, "bat_exclusion")
    assert (item.window_start, item.due) == (d("2027-06-03"), d("2027-06-09"))
    assert messages(conflicts, "bat_exclusion") == [
        "planned demolition and tree removal (planned groundbreaking) 2027-06-10 is outside the "
        "bat exclusion windows (Mar 1–Apr 15, Sep 1–Oct 15): if the roost survey finds bats "
        "they cannot be excluded before 2027-09-01, and demolition and tree removal would have "
        "to wait"
    ]


@pytest.mark.parametrize(
    ("groundbreaking", "next_window"),
    [
        ("2027-03-01", None),
        ("2027-04-15", None),
        ("2027-04-16", "2027-09-01"),
        ("2027-09-01", None),
        ("2027-10-15", None),
        ("2027-10-16", "2028-03-01"),  # next window is in the following year
        ("2027-02-28", "2027-03-01"),
    ],
)
def test_bat_exclusion_window_boundaries(groundbreaking: str, next_window: str | None) -> None:
    _, conflicts = run([COND_107], groundbreaking=d(groundbreaking))
    outside = [m for m in messages(conflicts, "bat_exclusion") if "is outside the" in m]
    if next_window is None:
        assert outside == []
    else:
        assert len(outside) == 1 and f"before {next_window}," in outside[0]


def test_bat_survey_days_in_hibernation_are_cut_off() -> None:
    # 03-03: raw window 02-24 .. 03-02; Nov 1 - Feb 28 is hibernation -> 03-01 .. 03-02.
    items, _ = run([COND_107], groundbreaking=d("2027-03-03"))
    item = only(items, "bat_exclusion")
    assert (item.window_start, item.due) == (d("2027-03-01"), d("2027-03-02"))
    # 11-03: raw window 10-27 .. 11-02 -> 10-27 .. 10-31; Nov 3 is also outside both
    # exclusion windows, so the next one (2028-03-01) is named.
    items, conflicts = run([COND_107], groundbreaking=d("2027-11-03"))
    item = only(items, "bat_exclusion")
    assert (item.window_start, item.due) == (d("2027-10-27"), d("2027-10-31"))
    assert any("before 2028-03-01," in m for m in messages(conflicts, "bat_exclusion"))


@pytest.mark.parametrize(
    ("groundbreaking", "raw_start", "raw_end", "earliest"),
    [
        # Common year: 02-22 .. 02-28 all hibernate; first free day 03-01, + 1 = 03-02.
        ("2027-03-01", "2027-02-22", "2027-02-28", "2027-03-02"),
        # Leap year: "02-29" as the hibernation end is Feb 29 itself.
        ("2028-03-01", "2028-02-23", "2028-02-29", "2028-03-02"),
        # Mid-winter: 01-08 .. 01-14.
        ("2027-01-15", "2027-01-08", "2027-01-14", "2027-03-02"),
    ],
)
def test_bat_survey_impossible_in_hibernation(
    groundbreaking: str, raw_start: str, raw_end: str, earliest: str
) -> None:
    items, conflicts = run([COND_107], groundbreaking=d(groundbreaking))
    assert keyed(items, "bat_exclusion") == []
    blocked = [m for m in messages(conflicts, "bat_exclusion") if m.startswith("no day")]
    assert blocked == [
        f"no day for the bat roost emergence survey: every day from {raw_start} to {raw_end} "
        f"(before demolition and tree removal (planned groundbreaking) {groundbreaking}) is in "
        f"the bat hibernation period (November 1 to March 1); plan demolition and tree removal "
        f"for {earliest} or later"
    ]


def test_bat_leap_year_march_2_has_one_survey_day() -> None:
    items, _ = run([COND_107], groundbreaking=d("2028-03-02"))
    item = only(items, "bat_exclusion")
    assert (item.window_start, item.due) == (d("2028-03-01"), d("2028-03-01"))
