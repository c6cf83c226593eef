"""Golden tests: every row of the reference tables and every worked example.

Reference: /work/shared/reference/shot-clocks.md (§1 categories, §2 counting, §3 tolling,
§4 outcomes, §5 contract, §6 worked examples). Every expected date below is worked out
by hand from the rules (the arithmetic is in the comments), never by asking the engine.

Counting convention (§2): shot clock date = start + period + tolled days, counted from
the day after the start; then roll forward over weekends and holidays (not for EFRs).
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.kernel.input import TimelineError
from rules.shot_clock.engine import compute_json
from tests.contract import CONTRACT_KEYS

# ---------------------------------------------------------------------------- helpers

RULE_A = "CMC 17.44.070(A)"
RULE_B = "CMC 17.44.070(B)"


def ev(kind: str, when: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "date": when, **fields}


def submitted(when: str) -> dict[str, Any]:
    return ev("submitted", when)


def notice(when: str, *ids: str) -> dict[str, Any]:
    """A notice of incompleteness listing items, each citing a rule (1.6003(d))."""
    rules = {"A": RULE_A, "B": RULE_B}
    items = [{"id": i, "text": f"item {i}", "rule": rules.get(i, RULE_A)} for i in ids or ("A",)]
    return ev("incomplete_notice", when, items=items)


def resubmitted(when: str) -> dict[str, Any]:
    return ev("resubmitted", when)


def timeline(
    category: str | None = None,
    *events: dict[str, Any],
    batch: list[str] | None = None,
    state: str | None = None,
    local_holidays: list[str] | None = None,
    as_of: str | None = None,
    rule_pack: str | None = None,
) -> dict[str, Any]:
    raw: dict[str, Any] = {"events": list(events)}
    if category is not None:
        raw["category"] = category
    if batch is not None:
        raw["batch"] = batch
    if state is not None:
        raw["state"] = state
    if local_holidays is not None:
        raw["local_holidays"] = local_holidays
    if as_of is not None:
        raw["as_of"] = as_of
    if rule_pack is not None:
        raw["rule_pack"] = rule_pack
    return raw


def run(category: str | None = None, *events: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return compute_json(timeline(category, *events, **kw))


def ledger(result: dict[str, Any]) -> list[tuple[str, str, int | None, str]]:
    """The ledger as (date, event, days, rule) rows; the effect text is checked apart."""
    return [(e["date"], e["event"], e["days"], e["rule"]) for e in result["ledger"]]


def entries(result: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [e for e in result["ledger"] if e["event"] == event]


def only_entry(result: dict[str, Any], event: str) -> dict[str, Any]:
    found = entries(result, event)
    assert len(found) == 1, found
    return found[0]


def windows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(w["kind"], w["closes"], w["rule"]) for w in result["notice_windows"]]


def alt_dates(result: dict[str, Any]) -> list[str | None]:
    return [a["shot_clock_date"] for a in result["alternatives"]]


def has_warning(result: dict[str, Any], *needles: str) -> bool:
    return any(all(n in w for n in needles) for w in result["warnings"])


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


MACRO_NEW = "macro_new_structure"


def example_2_events() -> list[dict[str, Any]]:
    # §6 example 2: notice on day 21, resubmitted Feb 20 → 25 tolled days.
    return [submitted("2026-01-05"), notice("2026-01-26", "A", "B"), resubmitted("2026-02-20")]


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


# ----------------------------------------------------------------------------- §4 outcomes


def macro_apr_6(*events: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """macro_collocation submitted Tue Jan 6, 2026: Jan 6 + 90 = Mon Apr 6."""
    return run("macro_collocation", submitted("2026-01-06"), *events, **kw)


@pytest.mark.parametrize("outcome", ["approved", "approved_with_conditions", "denied"])
def test_decided_on_time_on_the_shot_clock_date(outcome: str) -> None:
    r = macro_apr_6(ev("decision", "2026-04-06", outcome=outcome))
    assert r["status"] == "decided_on_time"
    assert r["shot_clock_date"] == "2026-04-06"
    entry = only_entry(r, "decision")
    assert entry["rule"] == "47 CFR 1.6003(c)(1)(ii)"
    assert "on time" in entry["effect"]
    assert r["warnings"] == []


def test_decided_late_the_day_after() -> None:
    r = macro_apr_6(ev("decision", "2026-04-07", outcome="denied"))
    assert r["status"] == "decided_late"
    assert r["shot_clock_date"] == "2026-04-06"
    assert "late" in only_entry(r, "decision")["effect"]
    assert has_warning(r, "2026-04-07", "1 day after", "2026-04-06")


def test_expired_with_as_of() -> None:
    # as_of Apr 7: one day past Apr 6, no decision.
    r = macro_apr_6(as_of="2026-04-07")
    assert r["status"] == "expired"
    assert r["days_remaining"] == -1
    assert has_warning(r, "2026-04-06", "332(c)(7)(B)(v)")


def test_not_expired_on_the_shot_clock_date_itself() -> None:
    r = macro_apr_6(as_of="2026-04-06")
    assert r["status"] == "running"
    assert r["days_remaining"] == 0


def test_expired_efr_warns_of_deemed_grant_and_ca_of_deemed_approval() -> None:
    efr = run("eligible_facilities_request", submitted("2026-01-05"), as_of="2026-03-07")
    assert efr["status"] == "expired"
    assert has_warning(efr, "deemed granted", "1.6100(c)(4)")
    ca = macro_apr_6(state="CA", as_of="2026-04-07")
    assert ca["status"] == "expired"
    assert has_warning(ca, "deemed approved", "65964.1")


def test_withdrawn() -> None:
    r = macro_apr_6(ev("withdrawn", "2026-02-01"), as_of="2026-05-01")
    assert r["status"] == "withdrawn"
    assert r["shot_clock_date"] == "2026-04-06"
    assert only_entry(r, "withdrawn")["date"] == "2026-02-01"


def test_efr_deemed_granted_after_expiry() -> None:
    # §6 example 4 (see below) plus: the notice the day after expiry suffices.
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("deemed_granted_notice", "2026-03-07"),
    )
    assert r["status"] == "deemed_granted"
    entry = only_entry(r, "deemed_granted_notice")
    assert entry["rule"] == "47 CFR 1.6100(c)(4)"


@pytest.mark.parametrize("when", ["2026-02-20", "2026-03-06"])
def test_efr_deemed_granted_notice_before_expiry_only_warns(when: str) -> None:
    # Mar 6 is the shot clock date itself: not yet expired.
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("deemed_granted_notice", when),
    )
    assert r["status"] == "running"
    assert r["shot_clock_date"] == "2026-03-06"
    entry = only_entry(r, "deemed_granted_notice")
    assert entry["effect"].startswith("no effect") and entry["days"] == 0
    assert has_warning(r, when, "before the clock expired")


def test_deemed_granted_notice_for_a_non_efr_has_no_effect() -> None:
    r = macro_apr_6(ev("deemed_granted_notice", "2026-04-10"))
    assert r["status"] == "expired"
    assert has_warning(r, "eligible facilities requests")


def test_ca_deemed_approved_with_public_notice_then_city_notice() -> None:
    # Expired after Apr 6 (no CA holiday on Apr 6); public notice Apr 8; notice to the city
    # Apr 10 → deemed approved; judicial review: Apr 10 + 30 = May 10.
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-08"),
        ev("deemed_approved_notice", "2026-04-10"),
        state="CA",
    )
    assert r["status"] == "deemed_approved"
    assert r["shot_clock_date"] == "2026-04-06"
    assert r["judicial_review_deadline"] == "2026-05-10"
    entry = only_entry(r, "deemed_approved")
    assert (entry["date"], entry["days"], entry["rule"]) == (
        "2026-04-10",
        30,
        "Cal. Gov. Code 65964.1",
    )


def test_ca_deemed_approved_when_the_public_notice_comes_last() -> None:
    # Notice to the city Apr 10, public notice Apr 12: deemed approved on Apr 12, but the
    # 30 days run from receipt of the applicant's notice: Apr 10 + 30 = May 10.
    r = macro_apr_6(
        ev("deemed_approved_notice", "2026-04-10"),
        ev("applicant_public_notice", "2026-04-12"),
        state="CA",
    )
    assert r["status"] == "deemed_approved"
    assert r["judicial_review_deadline"] == "2026-05-10"
    assert only_entry(r, "deemed_approved")["date"] == "2026-04-12"


def test_ca_deemed_approved_needs_the_public_notice() -> None:
    r = macro_apr_6(ev("deemed_approved_notice", "2026-04-10"), state="CA")
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    assert has_warning(r, "public notice")


def test_ca_deemed_approved_notice_before_expiry_has_no_effect() -> None:
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-01"),
        ev("deemed_approved_notice", "2026-04-06"),
        state="CA",
        as_of="2026-04-08",
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    assert has_warning(r, "2026-04-06", "before the clock expired")


def test_deemed_approved_notice_outside_california_has_no_effect() -> None:
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-08"),
        ev("deemed_approved_notice", "2026-04-10"),
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    entry = only_entry(r, "deemed_approved_notice")
    assert entry["days"] == 0 and entry["effect"].startswith("no effect")
    assert has_warning(r, "outside California")


def test_efr_in_california_is_not_deemed_approved() -> None:
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("applicant_public_notice", "2026-03-08"),
        ev("deemed_approved_notice", "2026-03-10"),
        state="CA",
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None


def test_events_after_a_decision_have_no_effect() -> None:
    r = macro_apr_6(
        ev("decision", "2026-03-01", outcome="approved"),
        ev("tolling_agreement", "2026-03-05", days=30),
    )
    assert r["status"] == "decided_on_time"
    assert r["shot_clock_date"] == "2026-04-06"
    assert has_warning(r, "closed")


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
