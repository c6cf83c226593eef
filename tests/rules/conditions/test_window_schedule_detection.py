"""Which of Cotati's conditions each window rule matches, by its mitigation code where the
jurisdiction defines it or by its words, and the schedule of a whole resolution."""

from __future__ import annotations

from rules.conditions.planned_dates import PlannedDates
from rules.conditions.window_schedule import schedule
from tests.rules.conditions.window_cases import (
    ALL,
    BIO3_INTRO,
    BIO3_ITEMS,
    COND_109,
    d,
    keyed,
    run,
    spec,
)

# ------------------------------------------------------------------------ detection


def test_each_cotati_condition_matches_its_rules_and_no_others() -> None:
    # 2027-03-14 is a Sunday, so NOI-2 (#117) reports something; grading runs into the
    # storm season; construction runs past Sep 1, so BIO-1's owl window applies.
    planned = PlannedDates(
        groundbreaking=d("2027-03-14"),
        grading_start=d("2027-03-15"),
        grading_end=d("2027-11-30"),
        construction_end=d("2028-06-30"),
        milestone_targets={"grading_permit": d("2027-03-01")},
    )
    expected = {
        "7": {"title_report_freshness"},
        "63": {"erosion_control_before_rainy_season"},
        "105": {"dust_complaint_response"},
        "107": {"burrowing_owl_survey", "bat_exclusion"},
        "109": {"nesting_bird_survey"},
        "117": {"construction_days"},
        "3": set(),
        "46": set(),  # an erosion control *plan*, no October 1 deadline
        "62": set(),  # dust, but no complaint clock
        "114": set(),  # erosion and sediment control plan, no season
    }
    for condition in ALL:
        items, conflicts = schedule([condition], planned)
        found = {i.rule_key for i in items} | {c.rule_key for c in conflicts}
        assert found == expected[condition.number], condition.number


def test_detection_reads_sub_items_and_also_works_on_flattened_text() -> None:
    # BIO-3's intro alone says "nesting birds" but not "survey": the survey is in A.
    flat = spec("109", None, " ".join([BIO3_INTRO, *(s.text for s in BIO3_ITEMS)]), [], "seasonal")
    intro_only = spec("109", None, BIO3_INTRO, [], "seasonal")
    for condition, matched in ((COND_109, True), (flat, True), (intro_only, False)):
        items, _ = schedule([condition], PlannedDates(groundbreaking=d("2027-03-15")))
        assert bool(keyed(items, "nesting_bird_survey")) is matched


def test_detection_by_mitigation_code_alone_with_spacing_variants() -> None:
    # The code is enough (OR), even written "bio -3" as PDFs sometimes do.
    for code in ("BIO-3", "bio -3", "BIO- 3"):
        items, _ = run(
            [spec("9", code, "See the MMRP.", [], "seasonal")], groundbreaking=d("2027-05-01")
        )
        assert [i.rule_key for i in items] == ["nesting_bird_survey"]
    items, _ = run(
        [spec("9", "BIO-33", "See the MMRP.", [], "seasonal")], groundbreaking=d("2027-05-01")
    )
    assert items == []


def test_unicode_hyphens_and_line_breaks_do_not_defeat_detection() -> None:
    # The seed writes "pre‐construction" with U+2010; a wrapped line splits "nesting\nbird".
    text = "A pre\u2010construction nesting\nbird survey shall be performed."
    items, _ = run([spec("1", None, text, [], "seasonal")], groundbreaking=d("2027-05-01"))
    assert [i.rule_key for i in items] == ["nesting_bird_survey"]


# ------------------------------------------------------------- whole resolution


def test_whole_resolution_schedule_is_sorted_and_deterministic() -> None:
    planned = PlannedDates(
        groundbreaking=d("2027-03-15"),
        grading_start=d("2027-03-16"),
        grading_end=d("2027-11-30"),
        construction_end=d("2028-06-30"),
        milestone_targets={"grading_permit": d("2027-03-01")},
    )
    first = schedule(ALL, planned)
    assert first == schedule(list(ALL), planned)
    items, conflicts = first
    # Grading from 2027-03-16 is inside the 2026-10-15 .. 2027-04-15 season already (due
    # the day before, 03-15, with a conflict) and reaches the next one (due 2027-09-30).
    assert [(c.condition_number, c.rule_key) for c in conflicts] == [
        ("63", "erosion_control_before_rainy_season")
    ]
    # Equal due dates keep the resolution's order (63, 105, 107, 109).
    assert [(i.due.isoformat(), i.rule_key) for i in items] == [
        ("2027-03-01", "title_report_freshness"),
        ("2027-03-14", "bat_exclusion"),
        ("2027-03-15", "erosion_control_before_rainy_season"),
        ("2027-03-15", "dust_complaint_response"),
        ("2027-03-15", "burrowing_owl_survey"),
        ("2027-03-15", "nesting_bird_survey"),
        ("2027-09-30", "erosion_control_before_rainy_season"),
    ]
    assert [i.to_iso()["due"] for i in items][0] == "2027-03-01"


def test_nothing_planned_lists_every_date_still_needed() -> None:
    items, conflicts = schedule(ALL, PlannedDates())
    assert items == []
    assert all(c.message.startswith("set the ") for c in conflicts)
    assert {c.rule_key for c in conflicts} == {
        "title_report_freshness",
        "erosion_control_before_rainy_season",
        "dust_complaint_response",
        "burrowing_owl_survey",
        "bat_exclusion",
        "nesting_bird_survey",
    }
    assert conflicts[0].to_iso()["condition_number"] == "7"


# ------------------------------------------------------------------ codes per jurisdiction


def test_a_mitigation_code_matches_only_where_it_is_defined() -> None:
    # Another city's BIO-1 is about wetlands: neither the owl nor the bat window applies.
    wetlands = spec(
        "12",
        "BIO-1",
        "The applicant shall obtain a Section 404 permit before filling the seasonal wetland.",
        ["grading_permit"],
        "requirement",
    )
    planned = PlannedDates(groundbreaking=d("2027-10-01"), grading_start=d("2027-10-01"))
    assert schedule([wetlands], planned, jurisdiction="rio-seco") == ([], [])
    assert schedule([wetlands], planned) == ([], [])
    # In Cotati, whose MMRP defines BIO-1, the code alone brings both windows.
    items, _ = schedule([wetlands], planned, jurisdiction="cotati")
    assert {i.rule_key for i in items} == {"burrowing_owl_survey", "bat_exclusion"}


def test_elsewhere_detection_is_by_the_text() -> None:
    owls = spec(
        "4",
        "BIO-7",
        "A qualified biologist shall conduct a burrowing owl survey before ground disturbance.",
        ["pre_construction"],
        "seasonal",
    )
    items, _ = schedule(
        [owls], PlannedDates(groundbreaking=d("2027-10-15")), jurisdiction="rio-seco"
    )
    assert [i.rule_key for i in items] == ["burrowing_owl_survey"]
