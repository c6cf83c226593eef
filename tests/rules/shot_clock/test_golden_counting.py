"""Golden tests: counting the days and rolling the date forward (§2).

Reference: /work/shared/reference/shot-clocks.md §2. Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.shot_clock.golden import (
    alt_dates,
    entries,
    ev,
    only_entry,
    run,
    submitted,
    windows,
)

# ----------------------------------------------------------------------------- §2 counting


def test_sixty_day_clock_from_jan_5_ends_mar_6() -> None:
    # The reference's own example: Jan 5 + 60 = Mar 6.
    assert run("swf_collocation", submitted("2026-01-05"))["shot_clock_date"] == "2026-03-06"


def test_pre_application_period_moves_the_start() -> None:
    # Start = pre-application Jan 2; Jan 2 + 60: + 29 = Jan 31, + 28 = Feb 28 (57),
    # + 3 = Mar 3 (Tue).
    r = run(
        "swf_collocation",
        ev("pre_application", "2026-01-02"),
        submitted("2026-01-05"),
    )
    assert r["start_date"] == "2026-01-02"
    assert r["shot_clock_date"] == "2026-03-03"
    entry = only_entry(r, "pre_application")
    assert entry["days"] == 3  # Jan 2 → Jan 5
    assert entry["rule"] == "47 CFR 1.6003(e)"
    # First-notice window counts from the start too: Jan 2 + 10 = Jan 12.
    assert windows(r) == [("reset_notice", "2026-01-12", "47 CFR 1.6003(d)(1)")]


def roll_entry(r: dict[str, Any]) -> dict[str, Any]:
    return only_entry(r, "roll_forward")


def test_roll_forward_over_a_weekend() -> None:
    # Jan 6 + 60 = Mar 7 (Sat) → Sun Mar 8 → Mon Mar 9.
    r = run("swf_collocation", submitted("2026-01-06"))
    assert r["shot_clock_date"] == "2026-03-09"
    entry = roll_entry(r)
    assert (entry["date"], entry["days"], entry["rule"]) == ("2026-03-09", 2, "47 CFR 1.6003(e)")
    assert "2026-03-07" in entry["effect"] and "Saturday" in entry["effect"]
    assert "Sunday" in entry["effect"]


def test_roll_forward_over_a_federal_holiday() -> None:
    # Mar 26 + 60: + 5 = Mar 31, + 30 = Apr 30 (35), + 25 = May 25 = Memorial Day 2026
    # (last Monday of May) → Tue May 26.
    r = run("swf_collocation", submitted("2026-03-26"))
    assert r["shot_clock_date"] == "2026-05-26"
    assert "Memorial Day" in roll_entry(r)["effect"]
    assert roll_entry(r)["days"] == 1


def test_roll_forward_over_an_observed_federal_holiday() -> None:
    # May 4 + 60: + 27 = May 31, + 30 = Jun 30 (57), + 3 = Jul 3 (Fri). July 4, 2026 is a
    # Saturday, observed Friday Jul 3 (5 U.S.C. 6103(b)) → Sat 4, Sun 5 → Mon Jul 6.
    r = run("swf_collocation", submitted("2026-05-04"))
    assert r["shot_clock_date"] == "2026-07-06"
    entry = roll_entry(r)
    assert entry["days"] == 3
    assert "Independence Day (observed)" in entry["effect"]


def test_roll_forward_over_juneteenth() -> None:
    # Apr 20 + 60: + 10 = Apr 30, + 31 = May 31 (41), + 19 = Jun 19 (Fri, Juneteenth)
    # → Sat, Sun → Mon Jun 22.
    r = run("swf_collocation", submitted("2026-04-20"))
    assert r["shot_clock_date"] == "2026-06-22"


@pytest.mark.parametrize(
    ("start", "counted", "ca_date", "holiday"),
    [
        # Jan 30 + 60: + 1 = Jan 31, + 28 = Feb 28 (29), + 31 = Mar 31 (60): Cesar Chavez
        # Day (Tue) → Wed Apr 1 in California.
        ("2026-01-30", "2026-03-31", "2026-04-01", "Cesar Chavez Day"),
        # Feb 23 + 60: + 5 = Feb 28, + 31 = Mar 31 (36), + 24 = Apr 24 (60): Genocide
        # Remembrance Day (Gov. Code 6700 since 2023) → Sat, Sun → Mon Apr 27. (Revision 2
        # replaced the day after Thanksgiving here: it is not a Gov. Code 6700 day.)
        ("2026-02-23", "2026-04-24", "2026-04-27", "Genocide Remembrance Day"),
        # 2024: Feb 1 + 60: + 28 = Feb 29, + 31 = Mar 31 (59), + 1 = Apr 1 (60). Cesar
        # Chavez Day Sun Mar 31, 2024 is observed Mon Apr 1 → Tue Apr 2.
        ("2024-02-01", "2024-04-01", "2024-04-02", "Cesar Chavez Day (observed)"),
    ],
)
def test_california_holidays_roll_only_with_state_ca(
    start: str, counted: str, ca_date: str, holiday: str
) -> None:
    federal = run("swf_collocation", submitted(start))
    assert federal["shot_clock_date"] == counted  # a plain weekday federally
    assert entries(federal, "roll_forward") == []
    ca = run("swf_collocation", submitted(start), state="CA")
    assert ca["shot_clock_date"] == ca_date
    assert holiday in roll_entry(ca)["effect"]


def test_susan_b_anthony_day_is_not_a_california_closure() -> None:
    # Dec 17, 2027 + 60: + 14 = Dec 31, + 31 = Jan 31 (45), + 15 = Feb 15, 2028 (Tue),
    # Susan B. Anthony Day, which the city does not close for: no roll.
    r = run("swf_collocation", submitted("2027-12-17"), state="CA")
    assert r["shot_clock_date"] == "2028-02-15"


def test_local_holiday_rolls_the_date() -> None:
    # Jan 5 + 60 = Mar 6 (Fri), a local closure → Sat 7, Sun 8 → Mon Mar 9.
    r = run("swf_collocation", submitted("2026-01-05"), local_holidays=["2026-03-06"])
    assert r["shot_clock_date"] == "2026-03-09"
    entry = roll_entry(r)
    assert entry["days"] == 3
    assert "local closure" in entry["effect"]


def test_efr_does_not_roll_forward_and_lists_the_rolled_date() -> None:
    # Jan 6 + 60 = Mar 7 (Sat): stands as counted for 1.6100; rolled reading → Mon Mar 9.
    r = run("eligible_facilities_request", submitted("2026-01-06"))
    assert r["shot_clock_date"] == "2026-03-07"
    assert r["conservative_date"] == "2026-03-07"
    assert alt_dates(r) == ["2026-03-09"]
    assert "roll-forward" in r["alternatives"][0]["reading"]
    assert entries(r, "roll_forward") == []
    entry = only_entry(r, "no_roll_forward")
    assert (entry["date"], entry["days"], entry["rule"]) == (
        "2026-03-07",
        0,
        "47 CFR 1.6100(c)(2)",
    )
    assert r["warnings"] == []


def test_efr_on_a_federal_holiday_does_not_roll() -> None:
    # Mar 26 + 60 = May 25 (Memorial Day): stands; rolled reading → Tue May 26.
    r = run("eligible_facilities_request", submitted("2026-03-26"))
    assert r["shot_clock_date"] == "2026-05-25"
    assert alt_dates(r) == ["2026-05-26"]
