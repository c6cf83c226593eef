"""Golden tests: the reference's worked examples (§6).

Reference: /work/shared/reference/shot-clocks.md §6. Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

from tests.rules.shot_clock.golden import (
    MACRO_NEW,
    alt_dates,
    ev,
    example_2_events,
    ledger,
    notice,
    resubmitted,
    run,
    submitted,
    windows,
)

# ----------------------------------------------------------------------- §6 worked examples


def test_worked_example_1() -> None:
    # Sep 2 + 90: + 28 = Sep 30, + 31 = Oct 31 (59), + 30 = Nov 30 (89), + 1 = Dec 1 (Mon).
    r = run("macro_collocation", submitted("2025-09-02"))
    assert r["shot_clock_date"] == "2025-12-01"
    assert r["conservative_date"] == "2025-12-01"
    assert r["status"] == "running"
    assert r["tolled_days"] == 0
    assert ledger(r) == [("2025-09-02", "submitted", 90, "47 CFR 1.6003(c)(1)(ii)")]
    # Sep 2 + 30 = Oct 2.
    assert windows(r) == [("first_notice", "2025-10-02", "47 CFR 1.6003(d)(2)")]
    assert r["alternatives"] == [] and r["warnings"] == []


def test_worked_example_2() -> None:
    # Notice Jan 26 = Jan 5 + 21; tolled = Feb 20 − Jan 26 = 5 + 20 = 25.
    # Jan 5 + 150 = Jun 4, + 25 = Jun 29 (Mon).
    r = run(MACRO_NEW, *example_2_events())
    assert r["shot_clock_date"] == "2026-06-29"
    assert r["conservative_date"] == "2026-06-29"
    assert r["tolled_days"] == 25
    assert r["reset_on"] is None
    assert r["status"] == "running"
    assert ledger(r) == [
        ("2026-01-05", "submitted", 150, "47 CFR 1.6003(c)(1)(iv)"),
        ("2026-01-26", "incomplete_notice", 25, "47 CFR 1.6003(d)(2)"),
        ("2026-02-20", "resubmitted", None, "47 CFR 1.6003(d)(2)"),
    ]
    assert "day 21" in r["ledger"][1]["effect"]
    assert r["alternatives"] == [] and r["warnings"] == []


def test_worked_example_3() -> None:
    # Notice Mar 10 = Mar 2 + 8 → reset; Mar 30 + 60 = May 29 (Fri).
    r = run(
        "swf_collocation", submitted("2026-03-02"), notice("2026-03-10"), resubmitted("2026-03-30")
    )
    assert r["shot_clock_date"] == "2026-05-29"
    assert r["conservative_date"] == "2026-05-29"
    assert r["reset_on"] == "2026-03-30"
    assert r["tolled_days"] == 0
    assert r["status"] == "running"
    assert ledger(r) == [
        ("2026-03-02", "submitted", 60, "47 CFR 1.6003(c)(1)(i)"),
        ("2026-03-10", "incomplete_notice", None, "47 CFR 1.6003(d)(1)"),
        ("2026-03-30", "resubmitted", 60, "47 CFR 1.6003(d)(1)"),
    ]
    # Mar 2 + 10 = Mar 12 (used); Mar 30 + 10 = Apr 9.
    assert windows(r) == [
        ("reset_notice", "2026-03-12", "47 CFR 1.6003(d)(1)"),
        ("later_notice", "2026-04-09", "47 CFR 1.6003(d)(3)"),
    ]
    assert r["alternatives"] == [] and r["warnings"] == []


def test_worked_example_4() -> None:
    # Oct 2 + 60: + 29 = Oct 31, + 30 = Nov 30 (59), + 1 = Dec 1 (Mon); notice Dec 3 after
    # expiry → deemed granted.
    r = run(
        "eligible_facilities_request",
        submitted("2025-10-02"),
        ev("deemed_granted_notice", "2025-12-03"),
    )
    assert r["shot_clock_date"] == "2025-12-01"
    assert r["conservative_date"] == "2025-12-01"
    assert r["status"] == "deemed_granted"
    assert r["judicial_review_deadline"] is None
    assert ledger(r) == [
        ("2025-10-02", "submitted", 60, "47 CFR 1.6100(c)(2)"),
        ("2025-12-03", "deemed_granted_notice", None, "47 CFR 1.6100(c)(4)"),
    ]
    # Dec 1 is a Monday: the rolled reading gives the same date.
    assert alt_dates(r) == ["2025-12-01"]
    assert r["warnings"] == []
