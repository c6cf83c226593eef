"""Unit tests for rules.conditions.gates (milestone phrases) and rules.conditions.kinds."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from models.conditions import KINDS
from rules.conditions import gates
from rules.conditions.gates import (
    MILESTONE_KEYS,
    MILESTONES,
    MilestoneDataError,
    detect_gates,
    load_milestones,
    parse_milestones,
)
from rules.conditions.kinds import classify_kind

CANONICAL = [
    "approval_effective",  # revision 3: "after the appeal period"
    "final_design_review",
    "improvement_plan_submittal",
    "improvement_plan_approval",
    "final_map",
    "encroachment_permit",
    "demolition_permit",
    "grading_permit",
    "building_permit_application",
    "building_permit",
    "pre_construction",
    "during_construction",
    "final_inspection",
    "occupancy",
    "acceptance_of_improvements",
    "ongoing",
]


def test_milestones_are_the_canonical_gates_in_order() -> None:
    assert [m.key for m in MILESTONES] == CANONICAL
    assert list(MILESTONE_KEYS) == CANONICAL
    assert all(m.label for m in MILESTONES)
    assert {"during_construction", "ongoing"} == gates.PERIOD_GATES


def test_data_file_is_what_other_modules_read() -> None:
    raw = json.loads(gates.DATA_FILE.read_text("utf-8"))
    assert [m["key"] for m in raw["milestones"]] == CANONICAL
    assert all(isinstance(m["label"], str) for m in raw["milestones"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Prior to issuance of a building permit, Applicant shall record", ["building_permit"]),
        # several gates: it blocks whichever comes first
        (
            "Prior to issuance of a grading or building permit, Applicant shall record",
            ["grading_permit", "building_permit"],
        ),
        (
            "before the issuance of a building and/or grading permit",
            ["grading_permit", "building_permit"],
        ),
        (
            "prior to the issuance of an Encroachment Permit, Grading Permit or Building Permit.",
            ["encroachment_permit", "grading_permit", "building_permit"],
        ),
        (
            "prior to issuance of a grading permit, encroachment permit or building permit.",
            ["encroachment_permit", "grading_permit", "building_permit"],
        ),
        (
            "Prior to issuance of a demolition or grading permit, the applicant shall secure",
            ["demolition_permit", "grading_permit"],
        ),
        (
            "prior to approval of the Grading/Building permit or issuance of Certificate of "
            "Occupancy permit",
            ["grading_permit", "building_permit", "occupancy"],
        ),
        ("prior to building permit issuance", ["building_permit"]),
        ("at time of Building Permit Application", ["building_permit_application"]),
        ("submitted with the building permit application", ["building_permit_application"]),
        ("shall be satisfied prior to Improvement Plan Approval.", ["improvement_plan_approval"]),
        (
            "Prior to approval of the improvement plans, the applicant",
            ["improvement_plan_approval"],
        ),
        ("at the time of the Improvement Plan submittal package", ["improvement_plan_submittal"]),
        ("paid prior to the submittal of the Improvement Plans", ["improvement_plan_submittal"]),
        ("items submitted for Final Design Review and approval", ["final_design_review"]),
        ("prior to recordation of the final map", ["final_map"]),
        ("An encroachment permit will be required for any work", ["encroachment_permit"]),
        ("Prior to site preparation, grading, or construction,", ["pre_construction"]),
        ("prior to the start of any ground-disturbing activities", ["pre_construction"]),
        ("prior to commencement of earthwork", ["pre_construction"]),
        ("perform surveys prior to grading", ["pre_construction"]),
        ("a pre\u2010construction nesting bird survey", ["pre_construction"]),
        ("During construction, the Contractor shall", ["during_construction"]),
        ("During any construction period ground disturbance", ["during_construction"]),
        ("At all times during project grading and construction", ["during_construction"]),
        (
            "installed and made serviceable prior to and during the time of construction",
            ["pre_construction", "during_construction"],
        ),
        ("prior to final inspection", ["final_inspection"]),
        ("Prior to occupancy of any building, the applicant", ["occupancy"]),
        ("prior to issuance of a certificate of occupancy", ["occupancy"]),
        ("prior to final acceptance of the public improvements", ["acceptance_of_improvements"]),
        (
            "Prior to Acceptance of Public Improvements and Bond Exoneration",
            ["acceptance_of_improvements"],
        ),
        ("Landscaping shall be maintained in a healthy condition", ["ongoing"]),
        ("kept closed at all times", ["ongoing"]),
    ],
)
def test_detect_gates(text: str, expected: list[str]) -> None:
    assert detect_gates(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the occupancy is considered as R-2",  # an occupancy class, not a milestone
        "in all new constructed R-2 occupancies",
        "The Project requires a grading permit.",  # no "prior to": says what, not when
        "before construction equipment mobilizes",
        "damaged before or during construction, shall be replaced",  # describes, not a period
        "metered to pre-construction levels",
        "The agreement shall address City acceptance of the public improvements.",
        "a sewer use permit",
        "",
    ],
)
def test_words_that_are_not_gates(text: str) -> None:
    assert detect_gates(text) == []


def test_assumed_gates_are_flagged() -> None:
    assert gates.DEFAULT.find("takes place prior to permit issuance") == {"building_permit": True}
    assert gates.DEFAULT.find("prior to issuance of a building permit") == {
        "building_permit": False
    }
    found = gates.DEFAULT.find("At the time of permit application submittal")
    assert found == {"building_permit_application": True}


def test_heading_patterns_read_bare_milestone_names() -> None:
    assert gates.DEFAULT.detect("Encroachment Permit") == ["encroachment_permit"]
    assert gates.DEFAULT.detect("Grading Permit and Improvements", heading=True) == [
        "grading_permit"
    ]
    assert gates.DEFAULT.detect("PRIOR TO ISSUANCE OF BUILDING PERMITS", heading=True) == [
        "building_permit"
    ]
    assert gates.DEFAULT.detect("Permit Requirements", heading=True) == []


def _custom(tmp_path: Path) -> Path:
    raw = json.loads(gates.DATA_FILE.read_text("utf-8"))
    raw["milestones"] = [
        m for m in raw["milestones"] if m["key"] not in ("final_map", "approval_effective")
    ]
    raw["milestones"].insert(
        2,
        {
            "key": "design_review_board",
            "label": "Design Review Board approval",
            "patterns": ["\\bdesign review board\\b"],
        },
    )
    raw["milestones"][0]["label"] = "Architectural review"
    path = tmp_path / "milestones.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


def test_a_jurisdiction_can_rename_add_and_drop_milestones(tmp_path: Path) -> None:
    custom = load_milestones(_custom(tmp_path))
    assert custom.keys[:3] == [
        "final_design_review",
        "improvement_plan_submittal",
        "design_review_board",
    ]
    assert "final_map" not in custom.keys
    assert custom.milestones[0].label == "Architectural review"
    text = "prior to Design Review Board approval and recordation of the final map"
    assert detect_gates(text, custom) == ["design_review_board"]
    assert detect_gates(text) == ["final_map"]


def test_department_defaults_as_data() -> None:
    raw = json.loads(gates.DATA_FILE.read_text("utf-8"))
    raw["departments"]["defaults"] = [{"department": "building", "gates": ["building_permit"]}]
    custom = parse_milestones(raw)
    assert custom.default_for_department("BUILDING DIVISION") == ["building_permit"]
    assert custom.default_for_department("CALTRANS") == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw.update(milestones="x"), "milestones"),
        (lambda raw: raw["milestones"].append(dict(raw["milestones"][0])), "unique"),
        (lambda raw: raw["milestones"][0].update(patterns=["(unclosed"]), r"milestones\[0\]"),
        (
            lambda raw: raw["departments"].update(defaults=[{"department": "x", "gate": "nope"}]),
            "unknown gate",
        ),
    ],
)
def test_malformed_milestone_data_is_refused(
    mutate: Callable[[dict[str, Any]], object], message: str
) -> None:
    raw = json.loads(gates.DATA_FILE.read_text("utf-8"))
    mutate(raw)
    with pytest.raises(MilestoneDataError, match=message):
        parse_milestones(raw)


# ------------------------------------------------------------------------------- kinds


@pytest.mark.parametrize(
    ("text", "code", "kind"),
    [
        (
            "Prior to issuance of a building permit, Applicant shall record a city-approved "
            "inclusionary housing agreement in compliance with CMC Chapter 17.31.",
            None,
            "requirement",
        ),
        (
            "If requested by the Federated Indians of Graton Rancheria, applicant shall perform "
            "surveys for archaeological artifacts prior to grading.",
            None,
            "conditional",
        ),
        (
            "Prior to occupancy of any building, the applicant shall install an eastbound left "
            "turn lane. This condition shall not be required if the proposed realigned "
            "intersection is completed prior to occupancy.",
            None,
            "waivable",
        ),
        ("Applicant shall consider the use of accessible playground equipment.", None, "advisory"),
        (
            "Commercial Driveways. Commercial driveways should be limited to the following "
            "maximum widths:",
            None,
            "advisory",
        ),
        ("The Applicant is encouraged to vary the roof materials.", None, "advisory"),
        (
            "AQ-1: During any construction period ground disturbance, the Project will ensure "
            "that the contractor implements the following measures:",
            "AQ-1",
            "recurring",
        ),
        ("Exposed surfaces shall be watered two times per day.", None, "recurring"),
        ("Streets shall be swept daily.", None, "recurring"),
        (
            "In the event that cultural resources or human remains are inadvertently discovered "
            "during ground disturbing activities, the following conditions shall apply:",
            "CUL-1",
            "event",
        ),
        (
            "If any hazardous waste is encountered during the construction of this Project, all "
            "work shall be immediately stopped.",
            None,
            "event",
        ),
        (
            "If grading is to take place between October 15 and April 15, erosion control "
            "measures shall be in place before October 1st.",
            None,
            "seasonal",
        ),
        ("Vegetation shall be cleared outside the nesting season.", None, "seasonal"),
        (
            "Please provide a current (within the last 3 months) Preliminary Title Report.",
            None,
            "requirement",
        ),
        # "unless otherwise approved" is boilerplate, not a waiver
        (
            "Lots shall drain to the street, unless otherwise approved by the City Engineer.",
            None,
            "requirement",
        ),
        # dated events with a year are not yearly windows
        ("Fees at the rates in place on December 7, 2021 shall be paid.", None, "requirement"),
    ],
)
def test_classify_kind(text: str, code: str | None, kind: str) -> None:
    assert classify_kind(text, code) == kind
    assert kind in KINDS


def test_advisory_needs_no_mandatory_word() -> None:
    # "should" next to "shall" is not advisory: an advisory condition never blocks.
    text = "The plans shall show the driveways, which should be no wider than 25 feet."
    assert classify_kind(text) == "requirement"


def test_precedence_seasonal_before_event_before_conditional() -> None:
    assert classify_kind("If work occurs between September 1 and January 31, survey.") == (
        "seasonal"
    )
    assert classify_kind("If contaminated soil is encountered, stop work.") == "event"
    assert classify_kind("If the property is not in the district, annex it.") == "conditional"


def test_sub_items_can_make_a_list_seasonal_event_or_recurring() -> None:
    intro = (
        "To prevent any potential affects to nesting birds, the following actions shall be taken:"
    )
    a = (
        "If construction begins between February 1 and August 31, a pre-construction nesting "
        "bird survey shall be performed within 7 days of groundbreaking."
    )
    assert classify_kind(intro, "BIO-3", sub_texts=[a]) == "seasonal"
    hours = "Construction shall be limited to between the hours of 7:00 am and 7:00 pm."
    assert classify_kind("The Project shall implement the following:", sub_texts=[hours]) == (
        "recurring"
    )
    # ... but a "Consider" or "If" sub-item never makes the whole list optional.
    assert classify_kind("Amend the plans:", sub_texts=["Consider relocating Building F."]) == (
        "requirement"
    )
    assert classify_kind("Amend the plans:", sub_texts=["If the trees are threatened, move."]) == (
        "requirement"
    )


def test_quoted_plan_notes_are_not_obligations() -> None:
    note = '"If hazardous materials are encountered during construction, halt construction."'
    assert classify_kind("Required Improvement Plan Notes:", sub_texts=[note]) == "requirement"


def test_during_construction_gate_makes_a_requirement_recurring() -> None:
    text = "All improvements shall be protected."
    assert classify_kind(text, gates=["during_construction"]) == "recurring"
    assert classify_kind(text, gates=["grading_permit", "during_construction"]) == "requirement"
