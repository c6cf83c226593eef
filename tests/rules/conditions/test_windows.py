"""Tests for rules.conditions.windows: seasonal windows and evidence freshness.

The condition texts below are the real words of the City of Cotati resolution adopted
2024-02-27 (shared/seeds/cotati-council-packet-2024-02-27.txt, lines 166-513), copied
with the PDF page markers ("319 of 403") removed and wrapped lines joined, as the parser
hands them over. Every expected date is worked out by hand in a comment next to it.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.conditions import ConditionSpec, SubItem
from rules.conditions.windows import (
    DATA_FILE,
    DEFAULT_RULES,
    MAX_YEAR,
    MIN_YEAR,
    DueItem,
    MonthDay,
    PlannedDates,
    Season,
    WindowConflict,
    WindowDataError,
    minus_months,
    parse_window_rules,
    response_deadline,
    schedule,
)

# ------------------------------------------------------------- real condition texts

TEXT_7 = (
    "Please provide a current (within the last 3 months) Preliminary Title Report (including the "
    "grant deed and title items) and show all existing easements and other relevant title items on "
    "the Site Plan and other plans as appropriate."
)
TEXT_63 = (
    "If grading is to take place between October 15 and April 15, both temporary and permanent "
    "erosion control measures, conforming to the Project erosion control plans shall be in place "
    "before October 1st. Erosion control measures shall be monitored and maintained continuously "
    "throughout the storm season."
)
TEXT_46 = (
    "Improvements plans shall include an erosion control (winterization) plan. The plan must "
    "include an order of work and staging/scheduling component indicating when facilities must be "
    "installed and when they may be removed. A separate Rain Event Action Plan (REAP) shall be "
    "required and prepared as part of the Storm Water Pollution Prevention Plan (SWPPP). A copy of "
    "the REAP shall be kept on-site throughout the duration of construction activities."
)
TEXT_62 = (
    "During construction, the Contractor shall be responsible for controlling noise, odors, dust "
    "and debris to minimize impacts on surrounding properties and roadways. Contractor shall be "
    "responsible that all construction equipment is equipped with manufacturers approved muffler’s "
    "baffles in compliance with all City codes relating to noise and idling equipment. City Code "
    "includes but is not limited to section 17.30.050. Failure to do so may result in the issuance "
    "of an order to stop work."
)
HYD1_TEXT = (
    "The applicant shall submit a Storm Water Prevention and Pollution Plan (SWPPP) and erosion "
    "and sediment control plan for approval by the City Engineer prior to the issuance of a "
    "building permit. The SWPPP shall include Best Management Practices for construction "
    "activities as well as accounting for any BMPs required for operational activities. The SWPPP "
    "shall incorporate the requirements of all applicable federal, state, and local regulations. "
    "Submitted plans shall also demonstrate compliance with City of Cotati Municipal Code Chapter "
    "13.68 Storm Water Ordinance and Chapter 14.36 Erosion and Sediment Control."
)
AQ1_INTRO = (
    "During any construction period ground disturbance, the Project will ensure that the Project "
    "contractor(s) implement the following measures to control dust and exhaust that are "
    "recommended by BAAQMD and listed below:"
)
AQ1_ITEMS = [
    SubItem(
        "A",
        (
            "All exposed surfaces (e.g., parking areas, staging areas, soil piles, graded areas, "
            "and unpaved access roads) shall be watered two times per day."
        ),
    ),
    SubItem(
        "B",
        (
            "All haul trucks transporting soil, sand, or other loose material off-site shall be "
            "covered."
        ),
    ),
    SubItem(
        "C",
        (
            "All visible mud or dirt track-out onto adjacent public roads shall be removed using "
            "wet power vacuum street sweepers at least once per day. The use of dry power sweeping "
            "is prohibited."
        ),
    ),
    SubItem(
        "D",
        "All vehicle speeds on unpaved roads shall be limited to 15 miles per hour (mph).",
    ),
    SubItem(
        "E",
        (
            "All roadways, driveways, and sidewalks to be paved shall be completed as soon as "
            "possible. Building pads shall be laid as soon as possible after grading unless "
            "seeding or soil binders are used."
        ),
    ),
    SubItem(
        "F",
        (
            "Idling times shall be minimized either by shutting equipment off when not in use or "
            "reducing the maximum idling time to 5 minutes (as required by the California airborne "
            "toxics control measure Title 13, Section 2485 of California Code of Regulations "
            "[CCR]). Clear signage shall be provided for construction workers at all access points."
        ),
    ),
    SubItem(
        "G",
        (
            "All construction equipment shall be maintained and properly tuned in accordance with "
            "manufacturer’s specifications. All equipment shall be checked by a certified mechanic "
            "and determined to be running in proper condition prior to operation."
        ),
    ),
    SubItem(
        "H",
        (
            "Designate a Disturbance Coordinator and post a publicly visible sign with the "
            "telephone number of the Disturbance Coordinator to contact regarding dust complaints. "
            "The Disturbance Coordinator shall respond and take corrective action within 48 hours. "
            "The Air District’s phone number shall also be visible to ensure compliance with "
            "applicable regulations."
        ),
    ),
]
BIO1_INTRO = (
    "Prior to site preparation, grading, or construction, the applicant shall take the following "
    "actions:"
)
BIO1_A = SubItem(
    "A",
    (
        "If any work occurs between September 1 and January 31, a qualified biologist shall follow "
        "the California a Department of Fish and Game (now CDFW) 2012 Staff Report on Burrowing "
        "Owl Mitigation (CDFW 2012 Staff Report) habitat assessment and survey methodology prior "
        "to Project activities occurring. The habitat assessment and surveys shall encompass a "
        "sufficient buffer zone to detect owls nearby that may be impacted. Time lapses between "
        "surveys or Project activities shall trigger subsequent surveys, as determined by a "
        "qualified biologist, including but not limited to a final survey within 24 hours prior to "
        "ground disturbance and before construction equipment mobilizes to the Project area. The "
        "qualified biologist shall have a minimum of two years of experience implementing the CDFW "
        "2012 Staff Report survey methodology resulting in detections. Detected burrowing owls "
        "shall be avoided pursuant to the buffer zone prescribed in the CDFW 2012 Staff Report, "
        "unless otherwise approved in writing by CDFW, and any eviction plan shall be subject to "
        "CDFW review."
    ),
)
BIO1_B = SubItem(
    "B",
    (
        "Prior to demolition of existing structures and trees, the biologist shall perform bat "
        "roost emergence surveys no more than 7 days prior to the start of activities outside of "
        "the hibernation period (November 1 to March 1). If bats are found, a bat exclusion plan "
        "shall be prepared and submitted to CDFW to include the following:"
    ),
)
BIO1_B_ITEMS = [
    SubItem(
        "1",
        (
            "Bats shall be excluded between March 1 (once overnight low temperatures exceed 45 "
            "degrees Fahrenheit) and April 15, or between September 1 and October 15 to ensure no "
            "impact to maternity roosting occurs. Once bats have been fully excluded, the "
            "structure may be demolished or removed."
        ),
    ),
    SubItem(
        "2",
        (
            "If a maternity roost is found, a replacement roost must be established either on‐site "
            "or at a nearby off‐site at a permanently protected location in consultation with CDFW."
        ),
    ),
    SubItem(
        "3",
        (
            "Tree removal for trees greater than 16‐inch dbh shall be performed using the "
            "three‐step removal process. First the crown or upper 1/3 of the tree shall be removed "
            "and any limbs removed and left overnight. Next, the rest of the tree shall be felled "
            "and left overnight. On the third day, the biologist shall examine the felled tree to "
            "make sure any bats have escaped prior to chipping on‐site or hauling to an off‐site "
            "location for disposal."
        ),
    ),
]
BIO1_C = SubItem(
    "C",
    (
        "The applicant shall consult with the California Department of Fish and Wildlife prior to "
        "the start of any ground-disturbing activities to confirm with CDFW that the Project would "
        "not result in impacts to CESA-listed species/special status species."
    ),
)
BIO3_INTRO = (
    "To prevent any potential affects to nesting birds, the following actions shall be taken:"
)
BIO3_ITEMS = [
    SubItem(
        "A",
        (
            "If construction begins between February 1 and August 31, a pre‐construction nesting "
            "bird (both passerine and raptor) survey of the habitats within 500 feet of all work "
            "areas shall be performed within 7 days of groundbreaking. If no nesting birds are "
            "observed, no further action is required, and grading must occur within one week of "
            "the survey to prevent “take” of individual birds that could begin nesting after the "
            "survey. A follow-up survey is required if a stoppage in work occurs for longer than 7 "
            "days between February 1 and July 1."
        ),
    ),
    SubItem(
        "B",
        (
            "If active bird nests (passerine and/or raptor) are observed during the "
            "pre‐construction survey, a disturbance‐free buffer zone shall be established around "
            "the nest tree(s) until the young have fledged or the nest has naturally failed or "
            "been predated, as determined by a qualified biologist. The radius of the required "
            "buffer zone can vary depending on the species, with the dimension of any required "
            "buffer zone to be determined by a qualified biologist."
        ),
    ),
    SubItem(
        "C",
        (
            "To delineate the “no‐work” buffer zone around a nesting tree, orange construction "
            "fencing must be placed at the specified radius from the base of the tree within which "
            "no construction related activity or machinery shall intrude."
        ),
    ),
]
NOI2_INTRO = (
    "The Project shall implement best management practices to minimize construction-related noise "
    "impacts as set forth in Action N1h of the General Plan, as listed below, and shall meet all "
    "applicable noise standards as set forth in Section 17.30.050 of the Cotati Municipal Code:"
)
NOI2_ITEMS = [
    SubItem(
        "A",
        (
            "Noise-generating construction activities, including truck traffic coming to and from "
            "the construction site for any purpose, shall be limited to between the hours of 7:00 "
            "am and 7:00 pm on weekdays and 9:00 am and 5:00 pm on Saturdays. No construction "
            "shall occur on Sundays or holidays."
        ),
    ),
    SubItem(
        "B",
        (
            "All equipment driven by internal combustion engines shall be equipped with mufflers, "
            "which are in good condition and appropriate for the equipment."
        ),
    ),
    SubItem(
        "C",
        (
            "The construction contractor shall utilize “quiet” models of air compressors and other "
            "stationary noise sources where technology exists."
        ),
    ),
    SubItem(
        "D",
        (
            "At all times during project grading and construction, stationary noise-‐generating "
            "equipment shall be located as far as practicable from sensitive receptors and placed "
            "so that emitted noise is directed away from residences."
        ),
    ),
    SubItem(
        "E",
        "Unnecessary idling of internal combustion engines shall be prohibited.",
    ),
    SubItem(
        "F",
        (
            "Construction staging areas shall be established at locations that will create the "
            "greatest distance between the construction-related noise sources and noise-sensitive "
            "receptors nearest the project site during all project construction."
        ),
    ),
    SubItem(
        "G",
        (
            "Neighbors located adjacent to the construction site shall be notified of the "
            "construction schedule in writing."
        ),
    ),
    SubItem(
        "H",
        (
            "The construction contractor shall designate a “noise disturbance coordinator” who "
            "will be responsible for responding to any local complaints about construction noise. "
            "The disturbance coordinator would determine the cause of the noise complaint (e.g., "
            "starting too early, bad muffler, etc.) and institute reasonable measures as warranted "
            "to correct the problem. A telephone number for the disturbance coordinator shall be "
            "conspicuously posted at the construction site."
        ),
    ),
]

TEXT_3 = (
    "Prior to issuance of a building permit, Applicant shall record a city-approved inclusionary "
    "housing agreement in compliance with CMC Chapter 17.31."
)


def spec(
    number: str,
    code: str | None,
    text: str,
    gates: list[str],
    kind: str,
    sub_items: list[SubItem] | None = None,
    department: str = "CEQA/ENVIRONMENTAL",
) -> ConditionSpec:
    return ConditionSpec(
        number=number,
        code=code,
        department=department,
        section=None,
        text=text,
        gates=gates,
        gate_source="explicit",
        kind=kind,
        sub_items=sub_items or [],
    )


PW = "PUBLIC WORKS/ENGINEERING"
COND_3 = spec("3", None, TEXT_3, ["building_permit"], "requirement", department="PLANNING")
COND_7 = spec("7", None, TEXT_7, ["grading_permit"], "requirement", department=PW)
COND_46 = spec("46", None, TEXT_46, ["improvement_plan_approval"], "requirement", department=PW)
COND_62 = spec("62", None, TEXT_62, ["during_construction"], "recurring", department=PW)
COND_63 = spec("63", None, TEXT_63, ["during_construction"], "seasonal", department=PW)
COND_105 = spec("105", "AQ-1", AQ1_INTRO, ["during_construction"], "recurring", AQ1_ITEMS)
COND_107 = spec(
    "107",
    "BIO-1",
    BIO1_INTRO,
    ["pre_construction"],
    "seasonal",
    [BIO1_A, SubItem(BIO1_B.label, BIO1_B.text, list(BIO1_B_ITEMS)), BIO1_C],
)
COND_109 = spec("109", "BIO-3", BIO3_INTRO, ["pre_construction"], "seasonal", BIO3_ITEMS)
COND_114 = spec("114", "HYD-1", HYD1_TEXT, ["building_permit"], "requirement")
COND_117 = spec("117", "NOI-2", NOI2_INTRO, ["during_construction"], "recurring", NOI2_ITEMS)

WINDOWED = [COND_7, COND_63, COND_105, COND_107, COND_109, COND_117]
UNRELATED = [COND_3, COND_46, COND_62, COND_114]
ALL = WINDOWED + UNRELATED

d = date.fromisoformat


def run(
    conditions: list[ConditionSpec],
    targets: dict[str, date] | None = None,
    evidence: dict[str, date] | None = None,
    **planned: date | None,
) -> tuple[list[DueItem], list[WindowConflict]]:
    dates = PlannedDates(**planned, milestone_targets=targets or {})
    # These are Cotati's conditions: its mitigation codes are defined for its jurisdiction.
    return schedule(conditions, dates, evidence or {}, jurisdiction="cotati")


def only(items: list[DueItem], key: str) -> DueItem:
    found = [item for item in items if item.rule_key == key]
    assert len(found) == 1, found
    return found[0]


def keyed(entries: list, key: str) -> list:
    return [entry for entry in entries if entry.rule_key == key]


def messages(conflicts: list[WindowConflict], key: str) -> list[str]:
    return [c.message for c in conflicts if c.rule_key == key]


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
        found = {e.rule_key for e in [*items, *conflicts]}
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


# ------------------------------------------------------------ seasons and months


def test_season_wrapping_and_leap_day_endpoints() -> None:
    owl = Season(MonthDay(9, 1), MonthDay(1, 31))
    assert owl.wraps
    assert [
        owl.contains(d(x)) for x in ("2026-08-31", "2026-09-01", "2027-01-31", "2027-02-01")
    ] == [
        False,
        True,
        True,
        False,
    ]
    assert owl.overlapping(d("2027-01-01"), d("2027-12-31")) == [
        (d("2026-09-01"), d("2027-01-31")),
        (d("2027-09-01"), d("2028-01-31")),
    ]
    hibernation = Season(MonthDay(11, 1), MonthDay(2, 29))
    assert hibernation.starting_in(2026) == (d("2026-11-01"), d("2027-02-28"))
    assert hibernation.starting_in(2027) == (d("2027-11-01"), d("2028-02-29"))
    leap_start = Season(MonthDay(2, 29), MonthDay(3, 10))
    assert leap_start.starting_in(2027) == (d("2027-03-01"), d("2027-03-10"))
    assert leap_start.starting_in(2028) == (d("2028-02-29"), d("2028-03-10"))


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        ("2027-05-31", 3, "2027-02-28"),
        ("2028-05-31", 3, "2028-02-29"),
        ("2027-01-15", 3, "2026-10-15"),
        ("2027-03-31", 1, "2027-02-28"),
        ("2027-12-31", 12, "2026-12-31"),
        ("2027-07-15", 0, "2027-07-15"),
    ],
)
def test_minus_months(day: str, months: int, expected: str) -> None:
    assert minus_months(d(day), months) == d(expected)


# ----------------------------------------------------------------- data validation


def _data() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_default_rules_loaded_from_data() -> None:
    assert [r.key for r in DEFAULT_RULES.rules] == [
        "nesting_bird_survey",
        "burrowing_owl_survey",
        "bat_exclusion",
        "erosion_control_before_rainy_season",
        "title_report_freshness",
        "dust_complaint_response",
        "construction_days",
    ]
    assert parse_window_rules(_data()) == DEFAULT_RULES
    assert DEFAULT_RULES.cite("109", "BIO-3") == "Condition 109 (BIO-3)"
    assert DEFAULT_RULES.cite("7", None) == "Condition 7"


def _broken(change) -> dict:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(_data())
    change(raw)
    return raw


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["rules"][0].update(computation="guess"),
        lambda r: r["rules"][0]["detect"].update(text_all=["(unclosed"]),
        lambda r: r["rules"][0]["detect"].update(codes=[], text_all=[]),
        # a code list without its jurisdiction would match the code in every city
        lambda r: r["rules"][0]["detect"].update(codes=["^BIO-3$"]),
        lambda r: r["rules"][0]["messages"].update(due="by {duedate}"),
        lambda r: r["rules"][0]["messages"].pop("missing_anchor"),
        lambda r: r["rules"][0]["reminders"].update(days_before=[-1]),
        lambda r: r["rules"][0]["reminders"].update(anchor="groundbreaking"),
        lambda r: r["rules"][0]["params"].update(anchor="ground_breaking"),
        lambda r: r["rules"][0]["params"]["trigger"].update(type="sometimes"),
        lambda r: r["rules"][0]["params"]["trigger"]["seasons"][0].update(end="02-30"),
        lambda r: r["rules"][0]["params"]["window"].update(last_day_offset=8),
        lambda r: r["rules"][2]["params"]["blackout"].update(
            seasons=[{"start": "01-01", "end": "12-31"}]
        ),
        lambda r: r["rules"][6]["params"].update(holiday_state="ZZ"),
        lambda r: r["rules"][6]["params"].update(closed_weekdays=[7]),
        lambda r: r["rules"].append(copy.deepcopy(r["rules"][0])),
        lambda r: r.update(citation="Condition {num}"),
    ],
)
def test_bad_window_data_is_refused(change) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WindowDataError):
        parse_window_rules(_broken(change))


# ----------------------------------------------------------------------- properties

DATES = st.dates(min_value=date(MIN_YEAR, 1, 1), max_value=date(MAX_YEAR, 12, 31))
NEAR = st.dates(min_value=date(2020, 1, 1), max_value=date(2035, 12, 31))


def _in_nesting_season(day: date) -> bool:
    return (2, 1) <= (day.month, day.day) <= (8, 31)


@settings(max_examples=300, deadline=None)
@given(
    groundbreaking=DATES,
    grading_offset=st.none() | st.integers(-10, 400),
    grading_days=st.none() | st.integers(0, 800),
    construction_days=st.none() | st.integers(0, 900),
    target_offset=st.none() | st.integers(-400, 400),
    evidence_offset=st.none() | st.integers(-200, 10),
)
def test_property_reminders_before_due_and_nesting_iff_in_season(
    groundbreaking: date,
    grading_offset: int | None,
    grading_days: int | None,
    construction_days: int | None,
    target_offset: int | None,
    evidence_offset: int | None,
) -> None:
    def shift(base: date | None, days: int | None) -> date | None:
        if base is None or days is None:
            return None
        moved = base + timedelta(days=days)
        return moved if MIN_YEAR <= moved.year <= MAX_YEAR else None

    grading_start = shift(groundbreaking, grading_offset)
    target = shift(groundbreaking, target_offset)
    planned = PlannedDates(
        groundbreaking=groundbreaking,
        grading_start=grading_start,
        grading_end=shift(grading_start, grading_days),
        construction_end=shift(groundbreaking, construction_days),
        milestone_targets={} if target is None else {"grading_permit": target},
    )
    evidence = shift(target, evidence_offset)
    items, conflicts = schedule(ALL, planned, {} if evidence is None else {"7": evidence})
    for item in items:
        assert all(r <= item.due for r in item.remind_on)
        assert list(item.remind_on) == sorted(set(item.remind_on))
        assert item.window_start is None or item.window_start <= item.due
        assert item.description and item.citation.startswith("Condition ")
    assert [i.due for i in items] == sorted(i.due for i in items)
    nesting = keyed(items, "nesting_bird_survey")
    assert bool(nesting) is _in_nesting_season(groundbreaking)
    for item in nesting:
        assert item.due - item.window_start == timedelta(days=7)
    assert not any(c.message.startswith("set the planned groundbreaking") for c in conflicts)


def _touches(first: date, last: date, in_season) -> bool:  # type: ignore[no-untyped-def]
    day = first
    while day <= last:
        if in_season(day):
            return True
        day += timedelta(days=1)
    return False


@settings(max_examples=200, deadline=None)
@given(start=NEAR, length=st.integers(0, 500))
def test_property_wrapping_seasons_match_day_by_day_check(start: date, length: int) -> None:
    end = start + timedelta(days=length)
    # Burrowing owl: any work day in Sep 1 - Jan 31 (wraps the new year).
    items, _ = run([COND_107], groundbreaking=start, construction_end=end)
    owl = keyed(items, "burrowing_owl_survey")
    assert bool(owl) is _touches(start, end, lambda x: x.month >= 9 or x.month == 1)
    # Erosion control: one item per Oct 15 - Apr 15 season that grading touches, each due
    # before the grading it protects or on the Sep 30 before that season.
    items, _ = run([COND_63], grading_start=start, grading_end=end)
    in_storm = lambda x: (x.month, x.day) >= (10, 15) or (x.month, x.day) <= (4, 15)  # noqa: E731
    assert bool(items) is _touches(start, end, in_storm)
    for item in items:
        assert item.due < end
        assert (item.due.month, item.due.day) == (9, 30) or item.due == start - timedelta(days=1)
    # Bat survey days never fall in hibernation (Nov 1 - end of February).
    items, _ = run([COND_107], groundbreaking=start)
    for item in keyed(items, "bat_exclusion"):
        assert item.window_start is not None
        for offset in range((item.due - item.window_start).days + 1):
            assert 3 <= (item.window_start + timedelta(days=offset)).month <= 10
        assert start - timedelta(days=7) <= item.window_start <= item.due < start


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
