"""Golden tests: status, days remaining, the output's keys and the notice windows (§5).

Reference: /work/shared/reference/shot-clocks.md §5. Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

import pytest

from tests.contract import CONTRACT_KEYS
from tests.rules.shot_clock.golden import (
    MACRO_NEW,
    ev,
    example_2_events,
    macro_apr_6,
    notice,
    only_entry,
    resubmitted,
    run,
    submitted,
    windows,
)

# ------------------------------------------------------------------ §5 status, days, keys


def test_status_awaiting_submission() -> None:
    r = run("macro_collocation", ev("pre_application", "2026-01-02"))
    assert r["status"] == "awaiting_submission"
    assert r["start_date"] is None
    assert r["shot_clock_date"] is None and r["conservative_date"] is None


def test_status_tolled_while_a_notice_is_outstanding() -> None:
    r = run("macro_collocation", submitted("2026-01-05"), notice("2026-01-26"), as_of="2026-02-10")
    assert r["status"] == "tolled"
    assert r["shot_clock_date"] is None
    assert r["conservative_date"] is None
    assert r["days_remaining"] is None


def test_status_reset_pending_while_an_swf_notice_is_outstanding() -> None:
    r = run("swf_collocation", submitted("2026-03-02"), notice("2026-03-10"), as_of="2026-03-20")
    assert r["status"] == "reset_pending"
    assert r["shot_clock_date"] is None
    assert r["days_remaining"] is None


def test_status_tolled_while_a_later_notice_is_outstanding() -> None:
    r = run(MACRO_NEW, *example_2_events(), notice("2026-03-02", "A"))
    assert r["status"] == "tolled"
    assert r["shot_clock_date"] is None


@pytest.mark.parametrize(
    ("as_of", "remaining"),
    [
        # Apr 6 − Mar 1: 30 (to Mar 31) + 6 = 36.
        ("2026-03-01", 36),
        ("2026-04-05", 1),
        ("2026-04-06", 0),
        ("2026-04-16", -10),
    ],
)
def test_days_remaining(as_of: str, remaining: int) -> None:
    r = macro_apr_6(as_of=as_of)
    assert r["days_remaining"] == remaining


def test_days_remaining_absent_without_as_of() -> None:
    r = macro_apr_6()
    assert "days_remaining" not in r


def test_days_remaining_follows_the_literal_date() -> None:
    # SWF day-15 notice: literal Mar 6, (d)(2) alternative Mar 20; as_of Mar 1 → 5.
    r = run(
        "swf_collocation",
        submitted("2026-01-05"),
        notice("2026-01-20"),
        resubmitted("2026-02-03"),
        as_of="2026-03-01",
    )
    assert r["days_remaining"] == 5


def test_output_keys_and_order() -> None:
    with_as_of = macro_apr_6(as_of="2026-03-01")
    assert list(with_as_of) == CONTRACT_KEYS
    without = macro_apr_6()
    assert list(without) == [k for k in CONTRACT_KEYS if not k.endswith("days_remaining")]
    for entry in with_as_of["ledger"]:
        assert list(entry) == ["date", "event", "effect", "days", "rule"]


def test_section_5_example() -> None:
    # The §5 input trimmed to one coherent timeline: CA, local holiday Apr 6, notice Jan 15
    # (day 10), resubmitted Jan 29 → 14 tolled. Jan 5 + 90 = Apr 5, + 14 = Apr 19 (Sun) →
    # Mon Apr 20 (not a CA holiday). days_remaining = Apr 20 − Mar 1 = 30 + 20 = 50.
    r = run(
        "macro_collocation",
        submitted("2026-01-05"),
        notice("2026-01-15"),
        resubmitted("2026-01-29"),
        state="CA",
        local_holidays=["2026-04-06"],
        as_of="2026-03-01",
    )
    assert {k: r[k] for k in CONTRACT_KEYS[:10]} == {
        "category": "macro_collocation",
        "period_days": 90,
        "start_date": "2026-01-05",
        "shot_clock_date": "2026-04-20",
        "conservative_date": "2026-04-20",
        "tolled_days": 14,
        "reset_on": None,
        "status": "running",
        "days_remaining": 50,
        "judicial_review_deadline": None,
    }
    assert windows(r)[0] == ("first_notice", "2026-02-04", "47 CFR 1.6003(d)(2)")
    entry = only_entry(r, "incomplete_notice")
    assert (entry["date"], entry["days"], entry["rule"]) == (
        "2026-01-15",
        14,
        "47 CFR 1.6003(d)(2)",
    )
    assert entry["effect"].startswith("tolls the clock")
    assert r["alternatives"] == []
    assert r["warnings"] == []


# ------------------------------------------------------------------------- notice windows


def test_first_notice_window_for_non_swf_closes_at_day_30() -> None:
    # Jan 5 + 30 = Feb 4.
    r = run("macro_new_structure", submitted("2026-01-05"), as_of="2026-01-20")
    assert windows(r) == [("first_notice", "2026-02-04", "47 CFR 1.6003(d)(2)")]
    assert r["notice_windows"][0]["state"] == "open"


def test_first_notice_window_lapses_after_day_30() -> None:
    r = run("macro_new_structure", submitted("2026-01-05"), as_of="2026-02-05")
    assert r["notice_windows"][0]["state"] == "lapsed"


def test_reset_window_for_swf_closes_at_day_10() -> None:
    # Jan 5 + 10 = Jan 15.
    r = run("swf_new_structure", submitted("2026-01-05"), as_of="2026-01-06")
    assert windows(r) == [("reset_notice", "2026-01-15", "47 CFR 1.6003(d)(1)")]
    assert r["notice_windows"][0]["state"] == "open"


def test_later_notice_window_after_a_resubmission() -> None:
    # Example 2: first_notice window Feb 4 used by the Jan 26 notice; resubmission Feb 20
    # opens a later-notice window closing Feb 20 + 10 = Mar 2.
    r = run(MACRO_NEW, *example_2_events(), as_of="2026-02-21")
    assert windows(r) == [
        ("first_notice", "2026-02-04", "47 CFR 1.6003(d)(2)"),
        ("later_notice", "2026-03-02", "47 CFR 1.6003(d)(3)"),
    ]
    assert [w["state"] for w in r["notice_windows"]] == ["used", "open"]


def test_windows_close_with_the_application() -> None:
    r = run(
        "macro_collocation",
        submitted("2026-01-06"),
        ev("withdrawn", "2026-01-10"),
        as_of="2026-01-11",
    )
    assert [w["state"] for w in r["notice_windows"]] == ["lapsed"]
