"""Resolutions as cities publish them (revision 3): the §9 layouts as text, each with its
expected parse (number, page, department, gates and where they came from, kind, time
limits, confidence). The same texts are printed, scanned and OCR'd, or saved as Word files,
in tests/actions/test_resolution_files.py, and must parse the same there."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from models.conditions import ParsedResolution
from rules.conditions.department_words import department_in_words
from rules.conditions.ocr_numbers import repair_numbers
from rules.conditions.page_furniture import remove_furniture
from rules.conditions.parser import parse_resolution
from rules.conditions.review import review_order
from rules.conditions.time_limits import compact

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class P:
    number: str
    page: int | None
    department: str | None
    gates: list[str]
    gate_source: str
    kind: str
    limits: list[str]
    confidence: str


def actual(parsed: ParsedResolution) -> list[P]:
    return [
        P(
            c.number,
            c.page,
            c.department,
            c.gates,
            c.gate_source,
            c.kind,
            [compact(t) for t in c.time_limits],
            c.confidence,
        )
        for c in parsed.conditions
    ]


ANY_PERMIT = ["encroachment_permit", "demolition_permit", "grading_permit", "building_permit"]

EXPECTED: dict[str, tuple[str, list[P]]] = {
    "scan_council_paren.txt": (
        "2025-03-11",
        [
            P("1", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("2", 1, None, ANY_PERMIT, "explicit", "requirement", [], "high"),
            P(
                "3",
                1,
                "Building Division",
                ["building_permit"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P(
                "4",
                1,
                "Planning Division",
                ["approval_effective"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("5", 1, None, ["ongoing"], "explicit", "requirement", [], "high"),
            P("6", 1, "Police", ["unspecified"], "none", "requirement", [], "low"),
            P(
                "7",
                2,
                None,
                ["unspecified"],
                "none",
                "recurring",
                ["review at 6,12 months after approval then every 12 months"],
                "medium",
            ),
            P(
                "8",
                2,
                None,
                ["unspecified"],
                "none",
                "requirement",
                ["expiry 24 months after approval"],
                "medium",
            ),
            P("9", 2, None, ["ongoing"], "explicit", "requirement", [], "high"),
        ],
    ),
    "scan_planning_commission.txt": (
        "2025-06-04",
        [
            P("1", 1, "PLANNING DIVISION", ["unspecified"], "none", "requirement", [], "low"),
            P(
                "2",
                1,
                "PLANNING DIVISION",
                ["building_permit"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("3", 1, "PLANNING DIVISION", ["ongoing"], "explicit", "requirement", [], "high"),
            P("4", 1, "ENGINEERING DIVISION", ["final_map"], "explicit", "requirement", [], "high"),
            P(
                "5",
                1,
                "ENGINEERING DIVISION",
                ["unspecified"],
                "none",
                "requirement",
                ["term 12 months after acceptance_of_improvements"],
                "medium",
            ),
            P(
                "6",
                2,
                "ENGINEERING DIVISION",
                ["grading_permit"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("7", 2, "FIRE DEPARTMENT", ["unspecified"], "none", "requirement", [], "low"),
            P(
                "8",
                2,
                "FIRE DEPARTMENT",
                ["during_construction"],
                "explicit",
                "recurring",
                [],
                "high",
            ),
        ],
    ),
    "scan_zoning_letter.txt": (
        "2025-08-19",
        [
            P("1", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("2", 1, None, ["ongoing"], "explicit", "recurring", [], "high"),
            P(
                "3",
                1,
                "Public Works / Engineering",
                ["encroachment_permit"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("4", 1, "Fire", ["unspecified"], "none", "requirement", [], "low"),
            P(
                "5",
                2,
                None,
                ["unspecified"],
                "none",
                "requirement",
                ["expiry 12 months after approval"],
                "medium",
            ),
            P(
                "6",
                2,
                "Planning Division",
                ["unspecified"],
                "none",
                "recurring",
                ["review at 12 months after approval then every 12 months"],
                "medium",
            ),
            P("7", 2, None, ["ongoing"], "explicit", "requirement", [], "high"),
        ],
    ),
    "scan_county_coa.txt": (
        "2025-09-09",
        [
            P(
                "COA-1",
                1,
                "Planning Division",
                ["approval_effective"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P(
                "COA-2",
                1,
                "Public Works / Engineering",
                ANY_PERMIT,
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("COA-3", 1, None, ["ongoing"], "explicit", "requirement", [], "high"),
            P("COA-4", 1, None, ["building_permit"], "explicit", "requirement", [], "high"),
            P("COA-5", 2, None, ["final_map"], "explicit", "requirement", [], "high"),
            P("COA-6", 2, None, ["ongoing"], "explicit", "recurring", [], "high"),
            P(
                "COA-7",
                2,
                None,
                ["unspecified"],
                "none",
                "waivable",
                ["expiry 24 months after approval +1x12 months"],
                "medium",
            ),
        ],
    ),
    "ocr_damaged_pleading.txt": (
        "2025-10-07",
        [
            P("1", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("2", 1, None, ["building_permit"], "explicit", "requirement", [], "high"),
            P(
                "3",
                1,
                "Public Works / Engineering",
                ["grading_permit"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
            P("4", 1, None, ["building_permit"], "explicit", "requirement", [], "high"),
            P("5", 1, None, ["ongoing"], "explicit", "requirement", [], "high"),
            P("6", 1, None, ["final_inspection"], "explicit", "requirement", [], "high"),
            P("7", 1, "Planning Division", ["unspecified"], "none", "requirement", [], "low"),
            P("8", 1, None, ["occupancy"], "explicit", "requirement", [], "high"),
            P("9", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("10", 1, None, ["building_permit"], "explicit", "requirement", [], "medium"),
            P("11", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("12", 2, None, ["occupancy"], "explicit", "requirement", [], "high"),
            P("13", 2, None, ["unspecified"], "none", "recurring", [], "low"),
            P(
                "15",
                2,
                "Public Works / Engineering",
                ["building_permit"],
                "explicit",
                "requirement",
                [],
                "low",
            ),
            P(
                "16",
                2,
                None,
                ["unspecified"],
                "none",
                "waivable",
                ["expiry 24 months after approval"],
                "medium",
            ),
        ],
    ),
    "docx_charter_city.txt": (
        "2025-11-18",
        [
            P("1", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P(
                "2",
                1,
                None,
                ["unspecified"],
                "none",
                "requirement",
                ["due 30 days after invoice"],
                "medium",
            ),
            P("3", 1, None, ["ongoing"], "explicit", "recurring", [], "high"),
            P("4", 1, None, ["building_permit"], "section", "requirement", [], "high"),
            P(
                "5",
                1,
                "Planning Division",
                ["building_permit"],
                "section",
                "requirement",
                [],
                "high",
            ),
            P("6", 2, None, ["occupancy"], "section", "requirement", [], "high"),
            P("7", 2, None, ["occupancy"], "section", "requirement", [], "high"),
            P(
                "8",
                2,
                None,
                ["occupancy"],
                "section",
                "requirement",
                ["expiry 36 months after approval +2x12 months"],
                "high",
            ),
        ],
    ),
    "docx_typed_numbers.txt": (
        "2025-05-22",
        [
            P("1", 1, None, ["unspecified"], "none", "requirement", [], "low"),
            P("2", 1, None, ["ongoing"], "explicit", "requirement", [], "high"),
            P("3", 1, "Fire", ["occupancy"], "explicit", "requirement", [], "high"),
            P("4", 2, None, ["ongoing"], "explicit", "requirement", [], "high"),
            P(
                "5",
                2,
                "Planning Division",
                ["unspecified"],
                "none",
                "recurring",
                ["review at 6,12 months after approval then every 12 months"],
                "medium",
            ),
            P(
                "6",
                2,
                "Planning Division",
                ["approval_effective"],
                "explicit",
                "requirement",
                [],
                "high",
            ),
        ],
    ),
}


def parse(name: str) -> ParsedResolution:
    return parse_resolution((CORPUS / name).read_text("utf-8"))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_condition_as_expected(name: str) -> None:
    parsed = parse(name)
    adopted, expected = EXPECTED[name]
    assert parsed.adopted == adopted
    assert actual(parsed) == expected


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_condition_says_why(name: str) -> None:
    """Evidence names the words behind the number, the gates, the department and the time
    limits; an unspecified or doubtful condition carries its warning."""
    for c in parse(name).conditions:
        assert c.evidence["number"]
        if c.gate_source != "none":
            assert c.evidence["gates"]
        if c.department:
            assert c.evidence["department"]
        assert len(c.evidence.get("time_limits", [])) == len(c.time_limits)
        if c.confidence == "low":
            assert c.warnings, c.number


def test_ocr_damaged_numbers_are_read_by_their_place_and_every_gap_is_warned() -> None:
    parsed = parse("ocr_damaged_pleading.txt")
    by_number = {c.number: c for c in parsed.conditions}
    assert by_number["10"].evidence["number"] == "1O."
    assert by_number["11"].evidence["number"] == "II."
    assert by_number["13"].evidence["number"] == "l3."
    assert any("damaged by OCR" in w for w in by_number["10"].warnings)
    # "15_" after a lost 14: read as 15, and the gap named with its page
    assert "Condition numbering skips from 13 to 15 (missing 14), page 2" in parsed.warnings
    assert by_number["15"].confidence == "low"
    # pleading-paper line numbers are gone, and the words of 12 run across its wrap
    assert by_number["12"].text.endswith("with the adjoining parcel to the north.")
    assert not any(c.text[:2].strip().isdigit() for c in parsed.conditions)


def test_running_headers_footers_and_page_numbers_are_not_content() -> None:
    page = "Resolution No. 2025-34\nCity of Alba - March 3, 2025\n{body}\nPage {n} of 3\n"
    bodies = [
        "RESOLUTION OF THE CITY COUNCIL APPROVING A USE PERMIT\n"
        "The following conditions of approval apply:\n1. The use shall be",
        "conducted indoors, prior to issuance of a building permit.\n2. Signs shall be",
        "approved by the Planning Director prior to occupancy.\n3. No outdoor storage.",
    ]
    pages = [page.format(body=b, n=i) for i, b in enumerate(bodies, start=1)]
    assert all("Resolution No." not in p and "Page" not in p for p in remove_furniture(pages))
    parsed = parse_resolution(pages)
    texts = [c.text for c in parsed.conditions]
    assert texts[0] == "The use shall be conducted indoors, prior to issuance of a building permit."
    assert [c.page for c in parsed.conditions] == [1, 2, 3]
    assert all(c.department in (None, "Planning Division") for c in parsed.conditions)


def test_a_wrapped_line_that_recurs_near_page_ends_is_kept_as_the_conditions_words() -> None:
    """Resolutions repeat their formulas ("... to the satisfaction of the City Engineer."),
    so the same wrapped tail often falls in the top or bottom lines of many pages; it is
    the condition's words, not a running footer: only a line at the same place on page
    after page is furniture."""
    pages = []
    number = 0
    for n in range(1, 13):
        body = []
        for k in range(3 + n % 3):  # a varying number of conditions: the tail moves
            number += 1
            body.append(
                f"{number}. The developer shall repair the curb along the entire frontage to the"
                if k % 2 == 0
                else f"{number}. The applicant shall pay the fees before the permit."
            )
            if k % 2 == 0:
                body.append("satisfaction of the City Engineer.")
        first = (
            ""
            if n > 1
            else (
                "RESOLUTION OF THE CITY COUNCIL APPROVING A MAP\n"
                "The following conditions of approval apply:\n"
            )
        )
        pages.append(f"Resolution No. 2026-40\n{first}" + "\n".join(body) + f"\nPage {n} of 12")
    cleaned = remove_furniture(pages)
    assert all("Resolution No." not in p and "Page " not in p for p in cleaned)
    parsed = parse_resolution(pages)
    assert len(parsed.conditions) == number
    repairs = [c for c in parsed.conditions if "curb" in c.text]
    assert repairs and all(
        c.text.endswith("to the satisfaction of the City Engineer.") for c in repairs
    ), [c.text for c in repairs if not c.text.endswith("Engineer.")][:3]


@pytest.mark.parametrize(
    ("printed", "read"),
    [("14.) The", "14. The"), ("14 .) The", "14. The"), ("(14). The", "14. The")],
)
def test_other_shapes_of_a_number(printed: str, read: str) -> None:
    lines = [f"{n}. Condition {n} text." for n in range(11, 14)] + [printed + " end."]
    assert repair_numbers(lines)[0][-1] == read + " end."


def test_a_damaged_number_is_repaired_only_where_the_sequence_expects_it() -> None:
    lines = [f"{n}. Condition {n}." for n in range(50, 56)] + ["SG_ The next one.", "57. Last."]
    fixed, printed = repair_numbers(lines)
    assert fixed[6] == "56. The next one." and printed["56"] == ("SG_", True)
    # a roman section heading is no condition, and a number printed elsewhere is not taken
    lines = ["9. A.", "10. B.", "II. PRIOR TO OCCUPANCY", "11. C.", "12. D."]
    assert repair_numbers(lines)[0] == lines


def test_numbers_garbled_past_reading_are_read_by_the_count_of_the_gap() -> None:
    """Between 56 and 59 two sentences start with what OCR made of 57 and 58 ("9/7.",
    and "98." though the real 98 is further on): they are 57 and 58, flagged as damaged.
    A list inside a condition is never taken for lost numbers."""
    lines = [
        *(f"{n}. Condition {n} text." for n in range(50, 57)),
        "9/7. Fire hydrants shall be installed and tested prior to final inspection.",
        "98. This condition shall not apply if the site is served by the public sewer.",
        "59. Street trees shall be planted upon completion of construction.",
        "98. The real ninety-eighth is in its own place.",
    ]
    fixed, printed = repair_numbers(lines)
    assert fixed[7].startswith("57. Fire hydrants") and fixed[8].startswith("58. This condition")
    assert printed["57"] == ("9/7.", True) and printed["58"] == ("98.", True)
    assert fixed[10] == lines[10]
    listed = ["4. The applicant shall provide:", "1. A site plan.", "2. A survey.", "7. Fees."]
    listed = [*(f"{n}. C{n}." for n in (1, 2, 3)), *listed]
    assert repair_numbers(listed)[0] == listed


def test_an_ocr_damaged_page_footer_is_not_content() -> None:
    pages = [
        "RESOLUTION OF THE CITY COUNCIL APPROVING A MAP\n"
        "The following conditions of approval apply:\n1. The use shall be indoors.\n"
        "Page 1.of 2",
        "2. Signs shall be approved by the Planning Director.\nPage 2. of 2",
    ]
    parsed = parse_resolution(pages)
    assert [c.text for c in parsed.conditions] == [
        "The use shall be indoors.",
        "Signs shall be approved by the Planning Director.",
    ]


MILESTONES = ("PRIOR TO ISSUANCE OF A BUILDING PERMIT", "PRIOR TO OCCUPANCY", "PRIOR TO FINAL MAP")
DEPARTMENTS_PRINTED = ("PLANNING DIVISION", "ENGINEERING DIVISION (707) 555-0101", "FIRE DISTRICT")
GATE_OF = {MILESTONES[0]: "building_permit", MILESTONES[1]: "occupancy", MILESTONES[2]: "final_map"}
HEAD = (
    "RESOLUTION NO. 2026-12\nA RESOLUTION OF THE CITY COUNCIL APPROVING A TENTATIVE MAP\n"
    "The following conditions of approval apply:\n"
)


@pytest.mark.parametrize("milestone_first", [False, True], ids=["by department", "by milestone"])
def test_headings_repeated_under_each_part_keep_their_departments_and_gates(
    milestone_first: bool,
) -> None:
    """Resolutions repeat their headings: the same milestones under each department, or the
    same departments under each milestone. Neither is a running header: every condition
    keeps its department and its gate."""
    outer, inner = (MILESTONES, DEPARTMENTS_PRINTED) if milestone_first else (
        DEPARTMENTS_PRINTED, MILESTONES
    )  # fmt: skip
    lines, expected, n = [], [], 0
    for a in outer:
        lines.append(a)
        for b in inner:
            n += 1
            lines += [b, f"{n}. The applicant shall complete item {n} of the work."]
            department, milestone = (b, a) if milestone_first else (a, b)
            expected.append((department.split(" (")[0], GATE_OF[milestone]))
    parsed = parse_resolution(HEAD + "\n".join(lines))
    assert [(c.department, c.gates[0]) for c in parsed.conditions] == expected


def test_a_running_header_in_text_without_page_breaks_heads_no_conditions() -> None:
    """Text pasted from a PDF loses its page breaks but keeps each page's header. Where
    the header ("CITY OF ALBA") falls between two conditions it is still furniture: it
    names neither a department nor a milestone, so no condition takes it as a section."""
    lines, n = ["PLANNING DIVISION"], 0
    for part in range(3):
        if part == 2:
            lines.append("ENGINEERING DIVISION")
        for _ in range(4):
            n += 1
            lines.append(f"{n}. The applicant shall provide item {n} prior to occupancy.")
        lines.append("CITY OF ALBA")
    parsed = parse_resolution(HEAD + "\n".join(lines))
    assert len(parsed.conditions) == 12
    assert {c.section for c in parsed.conditions} == {None}
    assert [c.department for c in parsed.conditions] == ["PLANNING DIVISION"] * 8 + [
        "ENGINEERING DIVISION"
    ] * 4


def test_the_jurisdictions_own_names_route_the_department() -> None:
    words = "to the satisfaction of the Rancho Adobe Fire Protection District"
    assert department_in_words(words) is None
    found = department_in_words(words, {"rancho adobe fire protection district": "fire"})
    assert found == ("fire", "satisfaction of the Rancho Adobe Fire Protection District")
    # named in passing, not as the reviewer: no department
    assert department_in_words("the Police Department's parking lot shall be repaved") is None


def test_the_review_lists_low_confidence_and_warned_conditions_first() -> None:
    parsed = parse("ocr_damaged_pleading.txt")
    order = review_order(parsed.conditions)
    levels = [c.confidence for c in order]
    assert levels == sorted(levels, key=["low", "medium", "high"].index)
    assert order[-1].confidence == "high" and not order[-1].warnings


def test_a_phrase_the_vocabulary_lacks_is_quoted_never_guessed() -> None:
    parsed = parse("scan_planning_commission.txt")
    assert (
        "Condition 7: no milestone in its words, section or department; listed as unspecified "
        "('prior to combustible construction' is no milestone Clearance knows)"
    ) in parsed.warnings


def test_a_misread_digit_is_read_by_its_place() -> None:
    # Tesseract reads a skewed "1." as "4." and "13." as "43.": the numbers around say which.
    fixed, printed = repair_numbers(["4. One.", "2. Two.", "3. Three.", "4. Four."])
    assert fixed == ["1. One.", "2. Two.", "3. Three.", "4. Four."]
    assert printed == {"1": ("4.", True)}
    fixed, printed = repair_numbers(["11. Eleven.", "12. Twelve.", "43. Thirteen.", "14. End."])
    assert fixed[2] == "13. Thirteen." and printed == {"13": ("43.", True)}
    # "409." after "108.", twice in a row: far out of sequence, one confusable digit away
    lines = ["107. A.", "108. B.", "409. C.", "410. D.", "414. E.", "112. F."]
    assert [x.split(".")[0] for x in repair_numbers(lines)[0]] == [
        "107", "108", "109", "110", "111", "112"
    ]  # fmt: skip
    # a real gap is left alone (and warned by the outline)
    gap = ["1. A.", "2. B.", "4. D.", "5. E."]
    assert repair_numbers(gap)[0] == gap
