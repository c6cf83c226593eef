"""Golden tests: the City of Cotati resolution approving Cotati Village (PA# 21-29), adopted
2024-02-27 (shared/seeds/cotati-council-packet-2024-02-27.txt, lines 166-513), parsed from
the whole 403-page council packet as exported to text.

Every expected value below was read off the text by hand: department headings at lines 210,
244, 387, 400, 422, 428 and 498; subsection headings between 246 and 382; the gate words
quoted next to each gate."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from models.conditions import KINDS, ConditionSpec, ParsedResolution, SubItem
from rules.conditions.gates import MILESTONE_KEYS
from rules.conditions.parser import parse_resolution


def shared_dir() -> Path:
    """shared/ beside the repository, or CLEARANCE_SHARED."""
    env = os.environ.get("CLEARANCE_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[3].parent / "shared"


PACKET = shared_dir() / "seeds" / "cotati-council-packet-2024-02-27.txt"
FIRST_LINE, LAST_LINE = 166, 513  # the resolution, 1-based and inclusive


# The same resolution (lines 166-513 of the packet) as shipped with the demo, so the
# golden tests run even where shared/ is not beside the repository.
RESOLUTION_IN_REPO = (
    Path(__file__).resolve().parents[3] / "stack" / "data" / "cotati-village-resolution.txt"
)


@pytest.fixture(scope="module")
def packet_text() -> str:
    if not PACKET.exists():
        pytest.skip(f"{PACKET} not found (set CLEARANCE_SHARED to the shared/ folder)")
    return PACKET.read_text("utf-8")


@pytest.fixture(scope="module")
def parsed() -> ParsedResolution:
    """The whole packet where shared/ is present, else the resolution shipped in stack/data
    (test_the_resolution_alone_parses_the_same shows the two parse identically)."""
    source = PACKET if PACKET.exists() else RESOLUTION_IN_REPO
    return parse_resolution(source.read_text("utf-8"))


@pytest.fixture(scope="module")
def by_number(parsed: ParsedResolution) -> dict[str, ConditionSpec]:
    return {c.number: c for c in parsed.conditions}


def _walk(items: list[SubItem]) -> list[SubItem]:
    out = []
    for item in items:
        out.append(item)
        out.extend(_walk(item.sub_items))
    return out


# ------------------------------------------------------------------ numbers and structure


def test_title(parsed: ParsedResolution) -> None:
    assert parsed.title.startswith(
        "RESOLUTION OF THE CITY COUNCIL OF THE CITY OF COTATI APPROVING PRELIMINARY DESIGN "
        "REVIEW AND A TREE REMOVAL PERMIT"
    )
    assert parsed.title.endswith("(PA# 21-29 / APNS 046-286-021 & 144-050-009)")


def test_numbers_1_to_133_each_exactly_once(parsed: ParsedResolution) -> None:
    assert [c.number for c in parsed.conditions] == [str(n) for n in range(1, 134)]


def test_findings_before_the_conditions_are_not_conditions(
    by_number: dict[str, ConditionSpec],
) -> None:
    # Design Review Findings "1. Complies with ... 8." and Tree Removal Findings come first.
    assert by_number["1"].text.startswith("The Project is subject to all development standards")
    assert by_number["8"].text.startswith("Proposed easements and dedications shall be finalized")


def test_the_list_ends_before_the_certification(by_number: dict[str, ConditionSpec]) -> None:
    assert by_number["133"].text.endswith("prevent truck traffic on Alder Avenue.")


def test_the_resolution_alone_parses_the_same(packet_text: str, parsed: ParsedResolution) -> None:
    lines = packet_text.split("\n")[FIRST_LINE - 1 : LAST_LINE]
    assert parse_resolution("\n".join(lines)).to_contract() == parsed.to_contract()


DEPARTMENTS = {
    # heading as printed: (first, last) condition number, counted in the text
    "PLANNING DIVISION": (1, 6),
    "PUBLIC WORKS/ENGINEERING": (7, 68),
    "BUILDING DIVISION": (69, 79),
    "RANCHO ADOBE FIRE PROTECTION DISTRICT": (80, 99),
    "CALTRANS": (100, 103),
    "CEQA/ENVIRONMENTAL": (104, 127),
    "ADDED BY THE COTATI PLANNING COMMISSION (02-05-2024)": (128, 133),
}


def test_conditions_per_department(parsed: ParsedResolution) -> None:
    counts: dict[str, int] = {}
    for c in parsed.conditions:
        counts[c.department] = counts.get(c.department, 0) + 1
    assert counts == {
        "PLANNING DIVISION": 6,
        "PUBLIC WORKS/ENGINEERING": 62,
        "BUILDING DIVISION": 11,
        "RANCHO ADOBE FIRE PROTECTION DISTRICT": 20,
        "CALTRANS": 4,
        "CEQA/ENVIRONMENTAL": 24,
        "ADDED BY THE COTATI PLANNING COMMISSION (02-05-2024)": 6,
    }
    for c in parsed.conditions:
        first, last = DEPARTMENTS[c.department]
        assert first <= int(c.number) <= last, c.number


SECTIONS = {
    "Real Property": (7, 9),
    "General Requirements": (10, 25),  # under "Improvement Plans"
    "Frontage & Roadway Improvements": (26, 31),
    "Lighting, Signing and Striping Plan": (32, 34),
    "Drainage Improvements": (35, 39),
    "Grading Permit and Improvements": (40, 46),
    "Utility Improvements": (47, 47),
    "Sanitary Sewer and Water Improvements": (48, 53),
    "Permit Requirements": (54, 54),
    "Other / Landscape Parcels": (55, 56),
    "Public Improvement Agreement (PIA)": (57, 57),
    "Encroachment Permit": (58, 58),
    "During Construction Operations the Following Conditions Shall Apply": (59, 64),
    "Prior to Acceptance of Public Improvements and Bond Exoneration, the Following Conditions "
    "of Approval Shall Be Satisfied": (65, 68),
}


def test_sections(parsed: ParsedResolution) -> None:
    for c in parsed.conditions:
        n = int(c.number)
        expected = next((s for s, (a, b) in SECTIONS.items() if a <= n <= b), None)
        assert c.section == expected, c.number


def test_no_page_marker_text_anywhere(parsed: ParsedResolution) -> None:
    def texts() -> list[str]:
        out = [parsed.title]
        for c in parsed.conditions:
            out += [c.text, c.department, c.section or ""]
            out += [s.text for s in _walk(c.sub_items)]
        return out

    for text in texts():
        assert "of 403" not in text and "of403" not in text, text


def test_page_markers_inside_sentences_are_removed(by_number: dict[str, ConditionSpec]) -> None:
    # "... shall be designed 306 of 403\nusing an R-value of 5.0."
    assert "roadway structural sections shall be designed using an R-value of 5.0" in (
        by_number["28"].text
    )
    # "... 7:00 am 322 of 403\nand 7:00 pm on weekdays"
    assert "between the hours of 7:00 am and 7:00 pm on weekdays" in (
        by_number["117"].sub_items[0].text
    )
    # a wrapped line: "... Chapter\n14.36 Erosion and Sediment Control."
    assert by_number["114"].text.endswith(
        "Chapter 13.68 Storm Water Ordinance and Chapter 14.36 Erosion and Sediment Control."
    )


def test_numbers_that_are_not_conditions_stay_text(by_number: dict[str, ConditionSpec]) -> None:
    assert "Highway 116. This condition shall not be required if" in by_number["4"].text
    assert "in accordance with Section 505.2. No combustible construction" in by_number["81"].text
    assert "Chapter 8. Water Measurement [500-537.5]." in by_number["52"].text


def test_several_conditions_on_one_line(by_number: dict[str, ConditionSpec]) -> None:
    # line 423: "... (not accepted subject to any easements). 101. An encroachment permit ..."
    assert by_number["100"].text.endswith("unencumbered (not accepted subject to any easements).")
    assert by_number["101"].text.startswith("An encroachment permit will be required")
    # line 505: "... Construction access shall not be from Ford Lane. 131. Applicant shall ..."
    assert by_number["130"].text.endswith("Construction access shall not be from Ford Lane.")
    assert by_number["131"].text.startswith("Applicant shall consider the use of playground")


def test_preamble_and_condition_on_one_line(by_number: dict[str, ConditionSpec]) -> None:
    # line 429: the CEQA preamble, then "104. AES-1: Prior to issuance of a building permit"
    assert by_number["104"].text.startswith("Prior to issuance of a building permit, the applicant")
    assert "environmental review concludes" not in by_number["103"].text
    assert all(
        "environmental review concludes" not in s.text for s in _walk(by_number["103"].sub_items)
    )


# ------------------------------------------------------------------ mitigation codes

CODES = {
    "104": "AES-1",
    "105": "AQ-1",
    "106": "AQ-2",
    "107": "BIO-1",
    "108": "BIO-2",
    "109": "BIO-3",
    "110": "BIO-4",
    "111": "CUL-1",
    "112": "GEO-1",
    "113": "HAZ-1",
    "114": "HYD-1",
    "115": "HYD-2",
    "116": "NOI-1",
    "117": "NOI-2",
    "118": "REC-1",
    "119": "TRA-1",
    "120": "TRA-2",
    "121": "TRA-3",
    "122": "TRA-4",
    "123": "TRA-5",
    "124": "UTI-1",  # printed "UTI-1:The"
    "125": "UTI-2",
    "126": "UTI-3",  # printed "UTI -3:"
    "127": "MF-1",
}


def test_every_mitigation_code_with_its_number(parsed: ParsedResolution) -> None:
    assert {c.number: c.code for c in parsed.conditions if c.code} == CODES


def test_codes_are_not_left_in_the_text(by_number: dict[str, ConditionSpec]) -> None:
    assert by_number["124"].text.startswith("The final plans and utility demand study")
    assert by_number["126"].text.startswith("The applicant shall execute a City standard")
    for number in CODES:
        assert not by_number[number].text.startswith(CODES[number])


def test_duplicates_are_linked(by_number: dict[str, ConditionSpec]) -> None:
    # UTI-3 (126) restates 57 and TRA-3 (121) restates Caltrans' 100 without their codes;
    # UTI-2 (125) restates 55. One clearance can satisfy both of a pair.
    assert by_number["57"].related == ["126"] and by_number["126"].related == ["57"]
    assert by_number["100"].related == ["121"] and by_number["121"].related == ["100"]
    assert by_number["55"].related == ["125"] and by_number["125"].related == ["55"]
    linked = {c.number for c in by_number.values() if c.related}
    assert linked == {"55", "57", "100", "121", "125", "126"}


# ------------------------------------------------------------------ gates

GATES = {
    # number: (gates, source) -- checked by hand against the words quoted
    "1": (["unspecified"], "none"),  # Planning has no default and #1 names no milestone
    "2": (["final_design_review"], "explicit"),  # "submitted for Final Design Review"
    "3": (["building_permit"], "explicit"),  # "Prior to issuance of a building permit"
    "4": (["occupancy"], "explicit"),  # "Prior to occupancy of any building"
    "5": (
        ["grading_permit", "pre_construction"],
        "explicit",
    ),  # "prior to grading", "...any grading permit"
    "6": (["grading_permit", "building_permit"], "explicit"),  # "a grading or building permit"
    "7": (["grading_permit"], "department"),  # line 245: Public Works default
    "8": (["grading_permit", "building_permit"], "explicit"),  # "a building and/or grading permit"
    "9": (["grading_permit"], "department"),
    "10": (["improvement_plan_approval"], "section"),  # line 257 preamble
    "13": (["improvement_plan_approval"], "section"),
    "14": (["encroachment_permit", "grading_permit", "building_permit"], "explicit"),
    "15": (
        ["improvement_plan_submittal"],
        "explicit",
    ),  # "prior to the submittal of the Improvement Plans"
    "17": (["improvement_plan_approval"], "explicit"),  # "prior to Improvement Plan approval"
    "21": (["improvement_plan_approval"], "explicit"),
    "25": (["improvement_plan_approval"], "section"),  # quoted plan notes are not its gates
    "27": (["improvement_plan_approval"], "section"),  # subsection of Improvement Plans
    "28": (["improvement_plan_submittal"], "explicit"),  # "with the first Improvement Plan check"
    "35": (["improvement_plan_approval"], "section"),
    "37": (["improvement_plan_approval", "grading_permit"], "explicit"),
    "38": (
        ["improvement_plan_approval", "grading_permit", "building_permit", "occupancy"],
        "explicit",
    ),
    "40": (["grading_permit"], "explicit"),  # "Prior to Issuance of a Grading Permit"
    "41": (["grading_permit"], "section"),  # heading "Grading Permit and Improvements"
    # "kept on-site throughout the duration of construction activities": the plan still holds
    # the grading permit it inherits
    "46": (["grading_permit", "during_construction"], "explicit"),
    "50": (["building_permit"], "explicit"),
    "54": (["encroachment_permit", "grading_permit", "building_permit"], "explicit"),
    "55": (["improvement_plan_submittal"], "explicit"),
    "57": (["grading_permit"], "section"),
    "58": (["encroachment_permit"], "explicit"),
    "59": (["during_construction"], "explicit"),  # "during the construction period"
    "60": (["during_construction"], "explicit"),
    "63": (["during_construction"], "section"),  # heading at line 365
    "65": (["acceptance_of_improvements"], "section"),  # heading at line 382
    "66": (["occupancy", "acceptance_of_improvements"], "explicit"),
    "67": (["acceptance_of_improvements"], "section"),
    "68": (["acceptance_of_improvements"], "explicit"),  # "prior to final acceptance of ..."
    "69": (["unspecified"], "none"),  # "the occupancy is considered as R-2" is no gate
    "79": (["unspecified"], "none"),  # "requires a grading permit" says what, not when
    "81": (["pre_construction", "during_construction"], "explicit"),
    "95": (["building_permit_application"], "explicit"),
    "100": (["building_permit"], "explicit"),  # "prior to permit issuance" (assumed, warned)
    "101": (["encroachment_permit"], "explicit"),
    "104": (["building_permit"], "explicit"),
    "105": (["during_construction"], "explicit"),
    "107": (["pre_construction"], "explicit"),
    "108": (["demolition_permit", "grading_permit", "during_construction"], "explicit"),
    "109": (["pre_construction"], "explicit"),  # sub-item A: "within 7 days of groundbreaking"
    "111": (["during_construction"], "explicit"),  # "during ground disturbing activities"
    "112": (["building_permit_application", "occupancy"], "explicit"),
    "113": (["pre_construction"], "explicit"),  # "Prior to construction"
    "114": (["building_permit"], "explicit"),
    "117": (["during_construction"], "explicit"),  # sub-items D and F
    "119": (["building_permit"], "explicit"),  # "prior to building permit issuance"
    "121": (["building_permit"], "explicit"),
    "122": (["encroachment_permit", "pre_construction"], "explicit"),
    "125": (["improvement_plan_submittal", "occupancy"], "explicit"),
    "126": (["unspecified"], "none"),  # CEQA has no default; warned with 57's gate
    "128": (["final_design_review"], "explicit"),
    "129": (["pre_construction"], "explicit"),
    "131": (["unspecified"], "none"),
}


@pytest.mark.parametrize("number", list(GATES))
def test_gates(by_number: dict[str, ConditionSpec], number: str) -> None:
    c = by_number[number]
    assert (c.gates, c.gate_source) == GATES[number]


def test_improvement_plans_section_covers_its_subsections(parsed: ParsedResolution) -> None:
    for c in parsed.conditions:
        if 10 <= int(c.number) <= 39 and c.gate_source == "section":
            assert c.gates == ["improvement_plan_approval"], c.number


def test_every_gate_is_a_known_key(parsed: ParsedResolution) -> None:
    known = set(MILESTONE_KEYS) | {"unspecified"}
    for c in parsed.conditions:
        assert c.gates and set(c.gates) <= known
        assert c.gate_source in {"explicit", "section", "department", "none"}
        assert (c.gates == ["unspecified"]) == (c.gate_source == "none")


def test_warnings(parsed: ParsedResolution) -> None:
    w = parsed.warnings
    assert any(x.startswith("Condition 100: gate building_permit assumed") for x in w)
    assert any(x.startswith("Condition 124: gate building_permit assumed") for x in w)
    assert (
        "Condition 126: no milestone in its words, section or department; listed as "
        "unspecified; related condition 57 is gated grading_permit"
    ) in w
    assert "Conditions 57 and 126 look like the same obligation; linked as related" in w
    unspecified = {c.number for c in parsed.conditions if c.gates == ["unspecified"]}
    for number in unspecified:
        assert any(x.startswith(f"Condition {number}: no milestone") for x in w)
    assert not any("skips" in x or "twice" in x or "very short" in x for x in w)


# ------------------------------------------------------------------ kinds

KIND_OF = {
    "3": "requirement",
    "4": "waivable",  # "This condition shall not be required if ..."
    "5": "conditional",  # "If requested by the Federated Indians of Graton Rancheria"
    "7": "requirement",  # freshness ("within the last 3 months") is tracked on the evidence
    "9": "conditional",
    "24": "conditional",
    "44": "event",
    "59": "recurring",
    "61": "event",
    "63": "seasonal",  # "between October 15 and April 15 ... before October 1st"
    "64": "recurring",
    "102": "conditional",
    "103": "advisory",  # "should be limited"
    "105": "recurring",  # AQ-1 dust control during construction
    "107": "seasonal",  # BIO-1 A: "between September 1 and January 31"
    "109": "seasonal",  # BIO-3 A: "between February 1 and August 31"
    "111": "event",  # CUL-1 "In the event that ... discovered"
    "117": "recurring",  # NOI-2 construction hours
    "131": "advisory",  # "shall consider"
    "132": "advisory",
    "133": "advisory",
}


@pytest.mark.parametrize("number", list(KIND_OF))
def test_kinds(by_number: dict[str, ConditionSpec], number: str) -> None:
    assert by_number[number].kind == KIND_OF[number]


def test_kind_census(parsed: ParsedResolution) -> None:
    kinds: dict[str, list[int]] = {}
    for c in parsed.conditions:
        assert c.kind in KINDS
        kinds.setdefault(c.kind, []).append(int(c.number))
    assert kinds["advisory"] == [103, 131, 132, 133]
    assert kinds["waivable"] == [4]
    assert kinds["seasonal"] == [63, 107, 109]
    assert kinds["event"] == [44, 61, 111]
    assert kinds["conditional"] == [5, 9, 24, 102]
    assert kinds["recurring"] == [42, 46, 59, 60, 62, 64, 105, 110, 117]


# ------------------------------------------------------------------ sub-items


def labels(items: list[SubItem]) -> list[str]:
    return [s.label for s in items]


def test_sub_item_counts(parsed: ParsedResolution) -> None:
    counts = {c.number: len(c.sub_items) for c in parsed.conditions if c.sub_items}
    assert counts == {
        "2": 7,
        "8": 4,
        "10": 8,
        "13": 6,
        "22": 5,
        "25": 5,
        "40": 2,
        "58": 2,
        "64": 9,
        "103": 2,
        "105": 8,
        "106": 3,
        "107": 3,
        "109": 3,
        "111": 3,
        "113": 3,
        "116": 3,
        "117": 8,
        "122": 2,
        "128": 4,
    }


def test_three_levels_of_sub_items(by_number: dict[str, ConditionSpec]) -> None:
    two = by_number["2"]
    assert labels(two.sub_items) == list("ABCDEFG")
    b, c = two.sub_items[1], two.sub_items[2]
    assert labels(b.sub_items) == [str(i) for i in range(1, 9)]
    assert labels(c.sub_items) == [str(i) for i in range(1, 9)]
    # "... See also conditions 2.B(4) and 2.C(6), below. 2) §17.39.030(B)(1)(b): ..." (one line)
    assert b.sub_items[1].text.startswith("§17.39.030(B)(1)(b): Rooflines shall extend")
    assert b.sub_items[5].text.endswith("Demonstrate compliance with this standard.")
    # "... 17.34.050.D.3.a.iV. 3) The plan shall identify ..." (one line)
    assert c.sub_items[2].text.startswith("The plan shall identify the number and location")
    assert c.sub_items[1].text.endswith(
        "shade trees every twenty-five linear feet per CMC Section 17.34.050.D.3.a.iV."
    )
    # a paragraph after a lettered item belongs to it
    assert two.sub_items[3].text.endswith("lights with an on/off timer shall not exceed 4000K.")

    bio1 = by_number["107"]
    assert labels(bio1.sub_items) == ["A", "B", "C"]
    assert labels(bio1.sub_items[1].sub_items) == ["1", "2", "3"]
    assert bio1.sub_items[2].text.startswith("The applicant shall consult with the California")


def test_bullets_and_lettered_items(by_number: dict[str, ConditionSpec]) -> None:
    swlid = by_number["22"]
    assert labels(swlid.sub_items) == ["\u2022"] * 5
    assert labels(swlid.sub_items[0].sub_items) == ["a", "b", "c"]
    assert labels(swlid.sub_items[4].sub_items) == ["a", "b", "c"]
    # "b. The existing swale ... development. c. Future developments ..." (one line)
    assert swlid.sub_items[0].sub_items[2].text.startswith("Future developments are precluded")
    haz = by_number["113"]
    assert [s.text for s in haz.sub_items] == [
        "Sampling and analysis of soils prior to earth-moving work",
        "Transportation and disposal of any contaminated soil in compliance with state and "
        "federal law",
        "Worker health and safety during the handling of potentially hazardous soils",
    ]
    cul = by_number["111"]
    assert labels(cul.sub_items) == ["A", "B", "C"]
    assert labels(cul.sub_items[1].sub_items) == ["\u2022"]


def test_notice_inside_a_condition_is_not_a_heading(by_number: dict[str, ConditionSpec]) -> None:
    notes = by_number["25"]
    assert labels(notes.sub_items) == list("ABCDE")
    assert "IMPORTANT NOTICE TO DEVELOPER AND ALL CONTRACTORS:" in notes.sub_items[4].text
    assert "NOTE: Soil shall not be treated with lime" in notes.sub_items[4].text
    assert by_number["26"].section == "Frontage & Roadway Improvements"


def test_items_that_close_a_line_before_the_next_condition(
    by_number: dict[str, ConditionSpec],
) -> None:
    # "C. Alternatively, use zero-emission or non-diesel fueled equipment. 107. BIO-1: ..."
    assert by_number["106"].sub_items[2].text == (
        "Alternatively, use zero-emission or non-diesel fueled equipment."
    )
    assert by_number["106"].sub_items[0].text.endswith("would meet this standard.")
    assert "U.S. EPA Tier 2 or 3" in by_number["106"].sub_items[0].text
