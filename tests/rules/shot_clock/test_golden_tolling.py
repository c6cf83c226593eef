"""Golden tests: notices of incompleteness, resets, tolling agreements and the
events that never toll (§3).

Reference: /work/shared/reference/shot-clocks.md §3. Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

import pytest

from tests.rules.shot_clock.golden import (
    MACRO_NEW,
    alt_dates,
    entries,
    ev,
    example_2_events,
    has_warning,
    ledger,
    notice,
    only_entry,
    resubmitted,
    run,
    submitted,
    windows,
)

# ----------------------------------------------------------------------------- §3 tolling


def test_swf_first_notice_on_day_10_resets() -> None:
    # Submitted Mar 2, notice Mar 12 = day 10 → reset; resubmitted Mar 30 → Mar 30 + 60:
    # + 1 = Mar 31, + 30 = Apr 30 (31), + 29 = May 29 (Fri).
    r = run(
        "swf_collocation", submitted("2026-03-02"), notice("2026-03-12"), resubmitted("2026-03-30")
    )
    assert r["reset_on"] == "2026-03-30"
    assert r["shot_clock_date"] == "2026-05-29"
    assert r["tolled_days"] == 0
    entry = only_entry(r, "incomplete_notice")
    assert entry["rule"] == "47 CFR 1.6003(d)(1)"
    assert entry["effect"].startswith("resets the clock")
    assert r["alternatives"] == [] and r["warnings"] == []


@pytest.mark.parametrize(
    ("category", "period_end"),
    [
        # Jan 5 + 90 = Apr 5; + 10 tolled = Apr 15 (Wed).
        ("macro_collocation", "2026-04-15"),
        # Jan 5 + 150 = Jun 4; + 10 tolled = Jun 14 (Sun) → Mon Jun 15.
        ("macro_new_structure", "2026-06-15"),
    ],
)
def test_non_swf_first_notice_on_day_30_tolls(category: str, period_end: str) -> None:
    # Notice Feb 4 = day 30 (Jan 5 + 30); resubmitted Feb 14 → tolled = Feb 14 − Feb 4 = 10.
    r = run(category, submitted("2026-01-05"), notice("2026-02-04"), resubmitted("2026-02-14"))
    assert r["tolled_days"] == 10
    assert r["shot_clock_date"] == period_end
    assert r["reset_on"] is None
    entry = only_entry(r, "incomplete_notice")
    assert (entry["days"], entry["rule"]) == (10, "47 CFR 1.6003(d)(2)")
    assert entry["effect"].startswith("tolls the clock")
    assert r["warnings"] == []


def test_non_swf_first_notice_on_day_31_is_late() -> None:
    # Notice Feb 5 = day 31: no effect; Jan 5 + 90 = Apr 5 (Sun) → Mon Apr 6.
    r = run(
        "macro_collocation",
        submitted("2026-01-05"),
        notice("2026-02-05"),
        resubmitted("2026-02-14"),
    )
    assert r["tolled_days"] == 0
    assert r["shot_clock_date"] == "2026-04-06"
    entry = only_entry(r, "incomplete_notice")
    assert (entry["days"], entry["rule"]) == (0, "47 CFR 1.6003(d)")
    assert entry["effect"].startswith("no effect")
    assert has_warning(r, "2026-02-05", "late")
    assert r["alternatives"] == []


def test_efr_first_notice_tolls() -> None:
    # Notice Jan 20 = day 15; supplemental submission Feb 3 → tolled = Feb 3 − Jan 20 = 14.
    # Jan 5 + 60 = Mar 6; + 14 = Mar 20 (Fri).
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        notice("2026-01-20"),
        resubmitted("2026-02-03"),
    )
    assert r["tolled_days"] == 14
    assert r["shot_clock_date"] == "2026-03-20"
    entry = only_entry(r, "incomplete_notice")
    assert (entry["days"], entry["rule"]) == (14, "47 CFR 1.6100(c)(3)(i)-(ii)")
    assert windows(r)[0] == ("first_notice", "2026-02-04", "47 CFR 1.6100(c)(3)(i)-(ii)")


def test_efr_first_notice_after_day_30_is_late() -> None:
    # Notice Feb 6 = day 32: no effect; Jan 5 + 60 = Mar 6.
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        notice("2026-02-06"),
        resubmitted("2026-02-10"),
    )
    assert r["tolled_days"] == 0
    assert r["shot_clock_date"] == "2026-03-06"
    assert has_warning(r, "late")


def test_swf_first_notice_on_days_11_to_30_has_no_effect_with_d2_alternative() -> None:
    # swf_collocation submitted Jan 5, notice Jan 20 = day 15 (outside the 10-day reset
    # window). Literal: no effect → Jan 5 + 60 = Mar 6. (d)(2) reading: tolled
    # Feb 3 − Jan 20 = 14 → Mar 20. Conservative = Mar 6.
    r = run(
        "swf_collocation",
        submitted("2026-01-05"),
        notice("2026-01-20"),
        resubmitted("2026-02-03"),
    )
    assert r["shot_clock_date"] == "2026-03-06"
    assert r["conservative_date"] == "2026-03-06"
    assert r["tolled_days"] == 0
    assert r["reset_on"] is None
    assert alt_dates(r) == ["2026-03-20"]
    assert "1.6003(d)(2)" in r["alternatives"][0]["reading"]
    entry = only_entry(r, "incomplete_notice")
    assert (entry["days"], entry["rule"]) == (0, "47 CFR 1.6003(d)")
    assert entry["effect"].startswith("no effect")
    assert has_warning(r, "2026-01-20", "reset")


@pytest.mark.parametrize("day_11", ["2026-01-16"])
def test_swf_first_notice_on_day_11_does_not_reset(day_11: str) -> None:
    # Jan 5 + 11 = Jan 16: one day too late for the reset; Mar 6 stands.
    r = run("swf_collocation", submitted("2026-01-05"), notice(day_11), resubmitted("2026-01-26"))
    assert r["reset_on"] is None
    assert r["shot_clock_date"] == "2026-03-06"
    # (d)(2) reading: tolled Jan 26 − Jan 16 = 10 → Mar 16 (Mon).
    assert alt_dates(r) == ["2026-03-16"]


def test_swf_first_notice_after_day_30_is_late_without_alternative() -> None:
    # Notice Feb 6 = day 32 for an SWF: late, no effect, no (d)(2) alternative.
    r = run(
        "swf_new_structure",
        submitted("2026-01-06"),
        notice("2026-02-07"),
        resubmitted("2026-02-10"),
    )
    # Jan 6 + 90 = Apr 6 (Mon).
    assert r["shot_clock_date"] == "2026-04-06"
    assert r["alternatives"] == []
    assert has_warning(r, "2026-02-07", "late")


def test_later_notice_within_10_days_citing_first_notice_items_tolls() -> None:
    # Resubmitted Feb 20; later notice Mar 2 = Feb 20 + 10 (Feb has 28 days) citing only A;
    # resubmitted Mar 12 → tolled 10 more. Total 25 + 10 = 35: Jan 5 + 150 = Jun 4,
    # + 35: + 26 = Jun 30, + 9 = Jul 9 (Thu).
    r = run(MACRO_NEW, *example_2_events(), notice("2026-03-02", "A"), resubmitted("2026-03-12"))
    assert r["tolled_days"] == 35
    assert r["shot_clock_date"] == "2026-07-09"
    later = entries(r, "incomplete_notice")[1]
    assert (later["date"], later["days"], later["rule"]) == (
        "2026-03-02",
        10,
        "47 CFR 1.6003(d)(3)",
    )
    assert later["effect"].startswith("tolls the clock")
    assert r["warnings"] == []
    # The later-notice window opened with the resubmission: Feb 20 + 10 = Mar 2.
    assert ("later_notice", "2026-03-02", "47 CFR 1.6003(d)(3)") in windows(r)


def test_later_notice_eleven_days_after_resubmission_has_no_effect() -> None:
    # Mar 3 is 11 days after Feb 20: no effect; Jun 29 (example 2) stands.
    r = run(MACRO_NEW, *example_2_events(), notice("2026-03-03", "A"), resubmitted("2026-03-12"))
    assert r["tolled_days"] == 25
    assert r["shot_clock_date"] == "2026-06-29"
    later = entries(r, "incomplete_notice")[1]
    assert (later["days"], later["rule"]) == (0, "47 CFR 1.6003(d)(3)")
    assert later["effect"].startswith("no effect")
    assert has_warning(r, "2026-03-03", "11 days")


def test_later_notice_with_a_new_item_has_no_effect() -> None:
    # Within 10 days but cites C, which the first notice did not: no effect; Jun 29 stands.
    r = run(
        MACRO_NEW,
        *example_2_events(),
        notice("2026-02-25", "A", "C"),
        resubmitted("2026-03-12"),
    )
    assert r["tolled_days"] == 25
    assert r["shot_clock_date"] == "2026-06-29"
    later = entries(r, "incomplete_notice")[1]
    assert later["days"] == 0 and later["effect"].startswith("no effect")
    assert has_warning(r, "2026-02-25", "C")


def test_efr_later_notice_cites_1_6100_c_3_iii() -> None:
    # EFR Jan 5; notice Jan 20 (day 15), resubmitted Feb 3 (14 tolled); later notice Feb 10
    # (7 days after), resubmitted Feb 17 (7 tolled). Mar 6 + 21 = Mar 27 (Fri).
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        notice("2026-01-20"),
        resubmitted("2026-02-03"),
        notice("2026-02-10"),
        resubmitted("2026-02-17"),
    )
    assert r["tolled_days"] == 21
    assert r["shot_clock_date"] == "2026-03-27"
    later = entries(r, "incomplete_notice")[1]
    assert (later["days"], later["rule"]) == (7, "47 CFR 1.6100(c)(3)(iii)")


def test_tolling_agreement_with_days() -> None:
    # Jan 5 + 90 + 30 agreed days = Apr 5 + 30 = May 5 (Tue). (Rolling Apr 5 first and
    # then adding 30 would give May 6: the days are added before the roll.)
    r = run(
        "macro_collocation",
        submitted("2026-01-05"),
        ev("tolling_agreement", "2026-02-01", days=30),
    )
    assert r["shot_clock_date"] == "2026-05-05"
    assert r["tolled_days"] == 30
    entry = only_entry(r, "tolling_agreement")
    assert (entry["date"], entry["days"], entry["rule"]) == ("2026-02-01", 30, "47 CFR 1.6003(d)")


def test_section_5_example_with_notice_toll_and_agreement_days() -> None:
    # Notice Jan 15 (day 10), resubmitted Jan 29 → 14 tolled; agreement 30 days.
    # Apr 5 + 14 + 30: Apr 5 + 25 = Apr 30, + 19 = May 19 (Tue).
    r = run(
        "macro_collocation",
        submitted("2026-01-05"),
        notice("2026-01-15"),
        resubmitted("2026-01-29"),
        ev("tolling_agreement", "2026-02-01", days=30),
    )
    assert r["tolled_days"] == 44
    assert r["shot_clock_date"] == "2026-05-19"


def test_tolling_agreement_with_new_date() -> None:
    # An agreed date replaces the counted one (Apr 6) as is.
    r = run(
        "macro_collocation",
        submitted("2026-01-06"),
        ev("tolling_agreement", "2026-02-01", new_date="2026-06-01"),
    )
    assert r["shot_clock_date"] == "2026-06-01"
    assert r["conservative_date"] == "2026-06-01"
    entry = only_entry(r, "tolling_agreement")
    # Apr 6 → Jun 1: 24 + 31 + 1 = 56 days moved.
    assert (entry["days"], entry["rule"]) == (56, "47 CFR 1.6003(d)")


def test_efr_tolling_agreement_cites_1_6100() -> None:
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("tolling_agreement", "2026-02-01", days=14),
    )
    # Mar 6 + 14 = Mar 20.
    assert r["shot_clock_date"] == "2026-03-20"
    assert only_entry(r, "tolling_agreement")["rule"] == "47 CFR 1.6100(c)(3)"


@pytest.mark.parametrize("kind", ["moratorium", "hearing_notice", "appeal"])
def test_moratorium_hearing_notice_and_appeal_never_toll(kind: str) -> None:
    r = run("macro_collocation", submitted("2026-01-06"), ev(kind, "2026-02-10"))
    assert r["shot_clock_date"] == "2026-04-06"
    assert r["tolled_days"] == 0
    entry = only_entry(r, kind)
    assert entry["days"] == 0
    assert "1.6100(c)(3)" in entry["rule"]
    assert entry["effect"] == "does not toll the clock"


def test_all_never_tolling_events_together() -> None:
    r = run(
        "swf_collocation",
        submitted("2026-01-05"),
        ev("moratorium", "2026-01-10"),
        ev("hearing_notice", "2026-02-01"),
        ev("appeal", "2026-02-20"),
    )
    assert r["shot_clock_date"] == "2026-03-06"
    assert r["tolled_days"] == 0


# ---------------------------------------------------- reset with an incomplete resubmission


def test_reset_with_incomplete_first_resubmission() -> None:
    # swf_collocation submitted Mar 2; notice Mar 10 (day 8) → reset; resubmitted Mar 20;
    # later notice Mar 25 (5 days after, item A again) → still incomplete; resubmitted
    # Apr 10.
    # Literal: clock restarts at Apr 10 → Apr 10 + 60: + 20 = Apr 30, + 31 = May 31 (51),
    #   + 9 = Jun 9 (Tue).
    # Alternative: restarts at Mar 20 (Mar 20 + 60: + 11 = Mar 31, + 30 = Apr 30 (41),
    #   + 19 = May 19) and tolls Apr 10 − Mar 25 = 16 days → Jun 4 (Thu).
    # Conservative = the earliest = Jun 4.
    r = run(
        "swf_collocation",
        submitted("2026-03-02"),
        notice("2026-03-10"),
        resubmitted("2026-03-20"),
        notice("2026-03-25"),
        resubmitted("2026-04-10"),
    )
    assert r["shot_clock_date"] == "2026-06-09"
    assert r["reset_on"] == "2026-04-10"
    assert r["tolled_days"] == 0
    assert alt_dates(r) == ["2026-06-04"]
    assert "first resubmission" in r["alternatives"][0]["reading"]
    assert r["conservative_date"] == "2026-06-04"
    assert has_warning(r, "2026-06-04", "2026-06-09")
    assert ledger(r) == [
        ("2026-03-02", "submitted", 60, "47 CFR 1.6003(c)(1)(i)"),
        ("2026-03-10", "incomplete_notice", None, "47 CFR 1.6003(d)(1)"),
        ("2026-03-20", "resubmitted", 60, "47 CFR 1.6003(d)(1)"),
        ("2026-03-25", "incomplete_notice", None, "47 CFR 1.6003(d)(3); 47 CFR 1.6003(d)(1)"),
        ("2026-04-10", "resubmitted", 60, "47 CFR 1.6003(d)(3)"),
    ]
