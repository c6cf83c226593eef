"""Golden tests: every category's period and citation, small-wireless batches, the
Cotati rule pack.

Reference: /work/shared/reference/shot-clocks.md §1 (categories). Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

import pytest

from rules.kernel.input import TimelineError
from tests.rules.shot_clock.golden import (
    alt_dates,
    entries,
    has_warning,
    ledger,
    notice,
    only_entry,
    resubmitted,
    run,
    submitted,
)

# ------------------------------------------------------------- §1 categories and periods

CATEGORY_ROWS = [
    # key, period, rule, submitted, expected date
    # Jan 5 + 60: Jan 5 + 26 = Jan 31, + 28 = Feb 28 (54), + 6 = Mar 6 (Fri).
    ("swf_collocation", 60, "47 CFR 1.6003(c)(1)(i)", "2026-01-05", "2026-03-06"),
    # Jan 6 + 90: Jan 6 + 25 = Jan 31, + 28 = Feb 28 (53), + 31 = Mar 31 (84),
    # + 6 = Apr 6 (Mon).
    ("macro_collocation", 90, "47 CFR 1.6003(c)(1)(ii)", "2026-01-06", "2026-04-06"),
    ("swf_new_structure", 90, "47 CFR 1.6003(c)(1)(iii)", "2026-01-06", "2026-04-06"),
    # Jan 5 + 150: Mar 6 is day 60, + 25 = Mar 31 (85), + 30 = Apr 30 (115),
    # + 31 = May 31 (146), + 4 = Jun 4 (Thu).
    ("macro_new_structure", 150, "47 CFR 1.6003(c)(1)(iv)", "2026-01-05", "2026-06-04"),
    # Jan 5 + 60 = Mar 6 (Fri), as for swf_collocation.
    ("eligible_facilities_request", 60, "47 CFR 1.6100(c)(2)", "2026-01-05", "2026-03-06"),
]


@pytest.mark.parametrize(("category", "days", "rule", "start", "expected"), CATEGORY_ROWS)
def test_category_period_and_citation(
    category: str, days: int, rule: str, start: str, expected: str
) -> None:
    r = run(category, submitted(start))
    assert r["category"] == category
    assert r["period_days"] == days
    assert r["start_date"] == start
    assert r["shot_clock_date"] == expected
    assert r["conservative_date"] == expected
    assert r["tolled_days"] == 0
    assert r["reset_on"] is None
    assert r["status"] == "running"
    assert r["judicial_review_deadline"] is None
    assert r["warnings"] == []
    assert ledger(r) == [(start, "submitted", days, rule)]
    assert str(days) in r["ledger"][0]["effect"]


def test_only_the_efr_lists_an_alternative_when_nothing_is_ambiguous() -> None:
    for category, _, _, start, expected in CATEGORY_ROWS:
        r = run(category, submitted(start))
        if category == "eligible_facilities_request":
            # Mar 6 is a Friday: the rolled reading is the same date.
            assert alt_dates(r) == [expected]
        else:
            assert r["alternatives"] == []


# ------------------------------------------------------------------------------ batches

BATCH_RULE = "47 CFR 1.6003(c)(2)"


@pytest.mark.parametrize(
    ("sites", "category", "days", "start", "expected"),
    [
        # all collocations: 60 days, Jan 5 + 60 = Mar 6 (Fri)
        (["swf_collocation", "swf_collocation"], "swf_collocation", 60, "2026-01-05", "2026-03-06"),
        # all new structures: 90 days, Jan 6 + 90 = Apr 6 (Mon)
        (["swf_new_structure"] * 3, "swf_new_structure", 90, "2026-01-06", "2026-04-06"),
        # any mix: 90 days, whichever order the sites come in
        (
            ["swf_collocation", "swf_new_structure"],
            "swf_new_structure",
            90,
            "2026-01-06",
            "2026-04-06",
        ),
        (
            ["swf_new_structure", "swf_collocation", "swf_collocation"],
            "swf_new_structure",
            90,
            "2026-01-06",
            "2026-04-06",
        ),
    ],
)
def test_batch_period(
    sites: list[str], category: str, days: int, start: str, expected: str
) -> None:
    r = run(None, submitted(start), batch=sites)
    assert r["category"] == category
    assert r["period_days"] == days
    assert r["shot_clock_date"] == expected
    (entry,) = entries(r, "submitted")
    assert entry["days"] == days
    assert BATCH_RULE in entry["rule"]


@pytest.mark.parametrize(
    "other", ["macro_collocation", "macro_new_structure", "eligible_facilities_request"]
)
def test_batch_with_a_non_swf_site_is_rejected(other: str) -> None:
    with pytest.raises(TimelineError, match=r"batch\[1\]") as err:
        run(None, submitted("2026-01-05"), batch=["swf_collocation", other])
    assert other in str(err.value)


def test_swf_batch_notice_within_10_days_resets() -> None:
    # Batch of SWFs follows the SWF reset rule: notice Jan 12 is day 7 → reset;
    # resubmitted Feb 2 → Feb 2 + 90: Feb 2 + 26 = Feb 28, + 31 = Mar 31 (57),
    # + 30 = Apr 30 (87), + 3 = May 3 (Sun) → Mon May 4.
    r = run(
        None,
        submitted("2026-01-05"),
        notice("2026-01-12"),
        resubmitted("2026-02-02"),
        batch=["swf_collocation", "swf_new_structure"],
    )
    assert r["reset_on"] == "2026-02-02"
    assert r["shot_clock_date"] == "2026-05-04"
    assert only_entry(r, "incomplete_notice")["rule"] == "47 CFR 1.6003(d)(1)"


# ------------------------------------------------------------------------ Cotati rule pack


def test_cotati_swf_new_structure_is_150_days_with_federal_alternative() -> None:
    # Cotati: Jan 5 + 150 = Jun 4 (Thu). Federal: Jan 5 + 90 = Apr 5 (Sun) → Apr 6 (Mon).
    r = run("swf_new_structure", submitted("2026-01-05"), rule_pack="cotati-2024")
    assert r["period_days"] == 150
    assert r["shot_clock_date"] == "2026-06-04"
    assert alt_dates(r) == ["2026-04-06"]
    assert "federal" in r["alternatives"][0]["reading"]
    assert r["conservative_date"] == "2026-04-06"
    assert has_warning(r, "2026-04-06", "2026-06-04")
    assert "Cotati" in only_entry(r, "submitted")["rule"]


def test_cotati_pack_tolls_an_swf_notice_where_federal_resets() -> None:
    # Cotati tolls every category. swf_collocation Jan 5, notice Jan 12 (day 7), resubmitted
    # Feb 2: Cotati tolls Feb 2 − Jan 12 = 21 → Mar 6 + 21 = Mar 27 (Fri). Federal resets:
    # Feb 2 + 60: + 26 = Feb 28, + 31 = Mar 31 (57), + 3 = Apr 3 (Fri). Conservative Mar 27.
    r = run(
        "swf_collocation",
        submitted("2026-01-05"),
        notice("2026-01-12"),
        resubmitted("2026-02-02"),
        rule_pack="cotati-2024",
    )
    assert r["shot_clock_date"] == "2026-03-27"
    assert r["tolled_days"] == 21
    assert alt_dates(r) == ["2026-04-03"]
    assert r["conservative_date"] == "2026-03-27"


def test_cotati_pack_efr_lists_both_alternatives() -> None:
    # EFR Jan 6 + 60 = Mar 7 (Sat), no roll in either pack; rolled reading Mar 9;
    # federal pack reading Mar 7.
    r = run("eligible_facilities_request", submitted("2026-01-06"), rule_pack="cotati-2024")
    assert r["shot_clock_date"] == "2026-03-07"
    assert sorted(alt_dates(r)) == ["2026-03-07", "2026-03-09"]
    assert r["conservative_date"] == "2026-03-07"
