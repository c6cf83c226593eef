"""The corpus: eight resolutions in the layouts public resolutions use (conditions.md §7),
each with its expected parse, condition by condition: number as printed, department, section,
gates with their source, kind, sub-items and time limits (§8).

The layouts (the words are ours, the layouts are the ones cities print):
- county_board.txt: a county Board of Supervisors, "COA-1." and "COA 10" numbering, capitals
  topic ("GENERAL CONDITIONS", "OPERATIONAL CONDITIONS") and milestone ("PRIOR TO MAP
  RECORDATION") sections, the department named only by "to the satisfaction of the County
  Engineer";
- charter_city_council.txt: a charter city council's Exhibit A, "A. GENERAL" / "B. PLANNING
  DIVISION (562) 555-0190" lettered headings and "A.1" numbering, inline "(a) ... (b) ...";
- planning_commission.txt: roman "I." / "II." sections and "Condition 5:" numbering;
- zoning_administrator_letter.txt: a notice of decision, "1)" numbering, "i. ... ii." inline,
  a term and an end date, and the appeal paragraph after the list;
- subdivision_map.txt: title-case milestone headings ("Prior to Release of the Performance
  Bond") and a sibling topic heading after them, a map's expiry with Map Act extensions;
- use_permit_department_prefixes.txt: "PL-1", "ENG-3", "FIRE-2", "BLDG-1" naming the
  departments, "prior to the first inspection" under a building-permit section;
- decimal_sections.txt: "1.0 GENERAL CONDITIONS" sections, "2.2" conditions, "2.2.1" items;
- the PDF (tests/resolution_pdf.py): letterhead, running header, "Page N of M" footers,
  bold headings with phone lines, hanging-indent numbers, wrapped lines, lettered items.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from actions.resolution_files import extract_text
from models.conditions import ConditionSpec, ParsedResolution, SubItem
from rules.conditions.parser import parse_resolution
from tests.resolution_pdf import write_resolution_pdf

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass
class C:
    number: str
    department: str | None
    section: str | None
    gates: list[str]
    source: str
    kind: str
    subs: list[Any] = field(default_factory=list)
    limits: list[dict[str, Any]] = field(default_factory=list)


def ungated(
    number: str, department: str | None, section: str | None, kind: str = "requirement", **more: Any
) -> C:
    """A condition no milestone gates (the parser warns of each)."""
    return C(number, department, section, ["unspecified"], "none", kind, **more)


def expiry(months: int, extensions: tuple[int, int] | None = None) -> dict[str, Any]:
    """An approval that expires `months` after it, with (count, months) extensions."""
    ext = None if extensions is None else {"count": extensions[0], "months": extensions[1]}
    return {"kind": "expiry", "months": months, "anchor": "approval", "extensions": ext}


def term(months: int) -> dict[str, Any]:
    return {"kind": "term", "months": months, "anchor": "approval", "extensions": None}


def due_after_invoice(days: int) -> dict[str, Any]:
    return {"kind": "due", "days": days, "anchor": "invoice", "extensions": None}


def until(day: str) -> dict[str, Any]:
    return {"kind": "until", "until": day, "anchor": None, "extensions": None}


def _subs(items: list[SubItem]) -> list[Any]:
    return [(s.label, _subs(s.sub_items)) if s.sub_items else s.label for s in items]


def _actual(c: ConditionSpec) -> C:
    return C(
        c.number,
        c.department,
        c.section,
        c.gates,
        c.gate_source,
        c.kind,
        _subs(c.sub_items),
        [{k: v for k, v in t.items() if k != "text"} for t in c.time_limits],
    )


EXPECTED: dict[str, tuple[str | None, list[C]]] = {
    "county_board.txt": (
        "2025-05-20",
        [
            ungated("COA-1", None, "GENERAL CONDITIONS"),
            ungated(
                "COA-2",
                None,
                "GENERAL CONDITIONS",
                "waivable",
                limits=[expiry(24, extensions=(1, 12))],
            ),
            ungated("COA-3", None, "GENERAL CONDITIONS"),
            ungated(
                "COA-4", None, "GENERAL CONDITIONS", "requirement", limits=[due_after_invoice(30)]
            ),
            C(
                "COA-5",
                "Public Works / Engineering",
                "PRIOR TO MAP RECORDATION",
                ["final_map"],
                "section",
                "requirement",
            ),
            C("COA-6", None, "PRIOR TO MAP RECORDATION", ["final_map"], "explicit", "requirement"),
            C("COA-7", None, "PRIOR TO MAP RECORDATION", ["final_map"], "section", "requirement"),
            C(
                "COA-8",
                None,
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "section",
                "requirement",
            ),
            C(
                "COA-9",
                None,
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "section",
                "requirement",
            ),
            C(
                "COA 10",
                None,
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "explicit",
                "requirement",
            ),
            ungated("COA-11", None, "OPERATIONAL CONDITIONS"),
            ungated("COA-12", None, "OPERATIONAL CONDITIONS", "advisory"),
            ungated("COA-13", None, "OPERATIONAL CONDITIONS", "waivable"),
        ],
    ),
    "charter_city_council.txt": (
        "2025-09-16",
        [
            ungated("A.1", None, "GENERAL"),
            ungated("A.2", None, "GENERAL", "waivable", limits=[expiry(24, extensions=(2, 12))]),
            ungated("A.3", None, "GENERAL"),
            C(
                "B.1",
                "PLANNING DIVISION",
                None,
                ["building_permit"],
                "explicit",
                "requirement",
                subs=["a", "b", "c"],
            ),
            C("B.2", "PLANNING DIVISION", None, ["ongoing"], "explicit", "recurring"),
            ungated("B.3", "PLANNING DIVISION", None, "advisory"),
            C(
                "C.1",
                "ENGINEERING DIVISION",
                None,
                ["improvement_plan_approval"],
                "explicit",
                "requirement",
            ),
            C("C.2", "ENGINEERING DIVISION", None, ["pre_construction"], "explicit", "requirement"),
            C(
                "C.3",
                "ENGINEERING DIVISION",
                None,
                ["acceptance_of_improvements"],
                "explicit",
                "requirement",
            ),
            ungated("D.1", "BUILDING AND SAFETY DIVISION", None),
            C(
                "D.2",
                "BUILDING AND SAFETY DIVISION",
                None,
                ["during_construction"],
                "explicit",
                "recurring",
            ),
            C(
                "D.3",
                "BUILDING AND SAFETY DIVISION",
                None,
                ["final_inspection"],
                "explicit",
                "requirement",
            ),
            C(
                "E.1",
                "FIRE DEPARTMENT",
                None,
                ["building_permit_application"],
                "explicit",
                "requirement",
            ),
            C("E.2", "FIRE DEPARTMENT", None, ["occupancy"], "explicit", "requirement"),
        ],
    ),
    "planning_commission.txt": (
        "2025-07-08",
        [
            ungated("1", None, "GENERAL"),
            ungated("2", None, "GENERAL", "waivable", limits=[expiry(12)]),
            C("3", None, "GENERAL", ["ongoing"], "explicit", "recurring"),
            C(
                "4",
                # §9: "for review and approval by the City Engineer" names the reviewer.
                "Public Works / Engineering",
                "PRIOR TO ISSUANCE OF GRADING PERMIT",
                ["grading_permit"],
                "section",
                "requirement",
            ),
            C(
                "5",
                None,
                "PRIOR TO ISSUANCE OF GRADING PERMIT",
                ["pre_construction"],
                "explicit",
                "requirement",
            ),
            C(
                "6",
                None,
                "PRIOR TO FINAL INSPECTION / OCCUPANCY",
                ["final_inspection", "occupancy"],
                "section",
                "requirement",
            ),
            C(
                "7",
                None,
                "PRIOR TO FINAL INSPECTION / OCCUPANCY",
                ["final_inspection", "occupancy"],
                "section",
                "requirement",
            ),
            C(
                "8",
                None,
                "PRIOR TO FINAL INSPECTION / OCCUPANCY",
                ["final_inspection"],
                "explicit",
                "requirement",
            ),
        ],
    ),
    "zoning_administrator_letter.txt": (
        "2025-10-02",
        [
            ungated("1", None, None),
            ungated("2", None, None, "requirement", limits=[term(60)]),
            ungated("3", None, None, "requirement", subs=["i", "ii"]),
            C("4", None, None, ["encroachment_permit"], "explicit", "requirement"),
            ungated("5", None, None, "requirement", limits=[until("2027-12-31")]),
            ungated("6", None, None),
        ],
    ),
    "subdivision_map.txt": (
        "2025-03-04",
        [
            ungated("1", None, None, "requirement", limits=[expiry(36, extensions=(2, 12))]),
            ungated("2", None, None),
            C("3", None, "Prior to Final Map Recordation", ["final_map"], "section", "requirement"),
            C(
                "4",
                None,
                "Prior to Final Map Recordation",
                ["final_map"],
                "explicit",
                "requirement",
            ),
            C(
                "5",
                "Public Works / Engineering",
                "Prior to Final Map Recordation",
                ["final_map"],
                "section",
                "requirement",
            ),
            C(
                "6",
                None,
                "Prior to Release of the Performance Bond",
                ["acceptance_of_improvements"],
                "section",
                "requirement",
            ),
            C(
                "7",
                None,
                "Prior to Release of the Performance Bond",
                ["acceptance_of_improvements"],
                "section",
                "requirement",
            ),
            C(
                "8",
                None,
                "Prior to Release of the Performance Bond",
                ["acceptance_of_improvements"],
                "explicit",
                "requirement",
            ),
            C("9", None, "General Requirements", ["final_inspection"], "explicit", "requirement"),
            ungated(
                "10", None, "General Requirements", "requirement", limits=[due_after_invoice(30)]
            ),
        ],
    ),
    "use_permit_department_prefixes.txt": (
        "2025-08-21",
        [
            ungated("PL-1", "Planning Division", None, "recurring"),
            ungated(
                "PL-2",
                "Planning Division",
                None,
                "waivable",
                limits=[expiry(18, extensions=(1, 6))],
            ),
            ungated("PL-3", "Planning Division", None, "requirement", limits=[until("2027-12-31")]),
            C(
                "ENG-1",
                "Public Works / Engineering",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "explicit",
                "requirement",
            ),
            C(
                "ENG-2",
                "Public Works / Engineering",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "section",
                "requirement",
            ),
            C(
                "ENG-3",
                "Public Works / Engineering",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["during_construction"],
                "explicit",
                "recurring",
            ),
            C(
                "FIRE-1",
                "Fire",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "section",
                "requirement",
            ),
            C(
                "FIRE-2",
                "Fire",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["final_inspection"],
                "explicit",
                "requirement",
            ),
            C(
                "BLDG-1",
                "Building Division",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit_application"],
                "explicit",
                "requirement",
            ),
            C(
                "BLDG-2",
                "Building Division",
                "PRIOR TO ISSUANCE OF BUILDING PERMITS",
                ["building_permit"],
                "section",
                "waivable",
            ),
        ],
    ),
    "decimal_sections.txt": (
        "2025-06-12",
        [
            ungated("1.1", None, "GENERAL CONDITIONS"),
            ungated("1.2", None, "GENERAL CONDITIONS", "waivable", limits=[expiry(24)]),
            ungated(
                "1.3", None, "GENERAL CONDITIONS", "requirement", limits=[due_after_invoice(30)]
            ),
            ungated("2.1", "PLANNING DIVISION", None),
            C(
                "2.2",
                "PLANNING DIVISION",
                None,
                ["building_permit"],
                "explicit",
                "requirement",
                subs=["2.2.1", "2.2.2"],
            ),
            C("2.3", "PLANNING DIVISION", None, ["ongoing"], "explicit", "recurring"),
            C(
                "3.1",
                "PUBLIC WORKS DEPARTMENT",
                None,
                ["improvement_plan_approval"],
                "department",
                "requirement",
            ),
            C(
                "3.2",
                "PUBLIC WORKS DEPARTMENT",
                None,
                ["improvement_plan_approval"],
                "department",
                "requirement",
                subs=["1", "2", "3"],
            ),
            C("3.3", "PUBLIC WORKS DEPARTMENT", None, ["occupancy"], "explicit", "requirement"),
            ungated("4.1", "FIRE DISTRICT", None),
            ungated("4.2", "FIRE DISTRICT", None, "advisory"),
        ],
    ),
    "pdf": (
        "2025-11-05",
        [
            ungated("1", None, "GENERAL CONDITIONS"),
            ungated(
                "2", None, "GENERAL CONDITIONS", "waivable", limits=[expiry(24, extensions=(1, 12))]
            ),
            ungated("3", None, "GENERAL CONDITIONS", "requirement", limits=[due_after_invoice(30)]),
            C(
                "4",
                "PLANNING DIVISION",
                None,
                ["building_permit"],
                "explicit",
                "requirement",
                subs=["a", "b", "c"],
            ),
            C("5", "PLANNING DIVISION", None, ["ongoing"], "explicit", "recurring"),
            ungated("6", "PLANNING DIVISION", None, "advisory"),
            C("7", "ENGINEERING DIVISION", None, ["grading_permit"], "department", "requirement"),
            C("8", "ENGINEERING DIVISION", None, ["grading_permit"], "department", "requirement"),
            C("9", "ENGINEERING DIVISION", None, ["occupancy"], "explicit", "requirement"),
            C("10", "FIRE DISTRICT", None, ["final_inspection"], "explicit", "requirement"),
            C(
                "11",
                "FIRE DISTRICT",
                None,
                ["during_construction", "ongoing"],
                "explicit",
                "recurring",
            ),
        ],
    ),
}


@pytest.fixture(scope="module")
def pdf_parse(tmp_path_factory: pytest.TempPathFactory) -> ParsedResolution:
    path = write_resolution_pdf(tmp_path_factory.mktemp("corpus") / "rio-lindo.pdf")
    return parse_resolution(extract_text(path))


def _parse(name: str, pdf_parse: ParsedResolution) -> ParsedResolution:
    if name == "pdf":
        return pdf_parse
    return parse_resolution((CORPUS / name).read_text("utf-8"))


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_condition_as_expected(name: str, pdf_parse: ParsedResolution) -> None:
    parsed = _parse(name, pdf_parse)
    adopted, expected = EXPECTED[name]
    assert parsed.adopted == adopted
    assert [c.number for c in parsed.conditions] == [c.number for c in expected]
    for got, want in zip(parsed.conditions, expected, strict=True):
        assert _actual(got) == want, got.number


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_unspecified_gate_is_warned(name: str, pdf_parse: ParsedResolution) -> None:
    parsed = _parse(name, pdf_parse)
    for c in parsed.conditions:
        if c.gates == ["unspecified"]:
            assert any(w.startswith(f"Condition {c.number}: no milestone") for w in parsed.warnings)


def test_the_corpus_has_eight_layouts() -> None:
    assert len(EXPECTED) >= 8


def test_titles_and_texts(pdf_parse: ParsedResolution) -> None:
    county = _parse("county_board.txt", pdf_parse)
    assert county.title.startswith("RESOLUTION OF THE BOARD OF SUPERVISORS OF THE COUNTY OF")
    assert county.conditions[0].text.startswith("Approved Use. This approval authorizes")
    letter = _parse("zoning_administrator_letter.txt", pdf_parse)
    assert letter.title.startswith("Minor Use Permit MUP-25-0044")  # the letter's RE: line
    # the appeal paragraph after the list is not part of condition 6
    assert letter.conditions[-1].text.endswith("after notice and a hearing.")
    live = letter.conditions[2]
    assert [s.text for s in live.sub_items] == [
        "no amplified sound is permitted outdoors;",
        "all doors shall remain closed during performances.",
    ]
    charter = _parse("charter_city_council.txt", pdf_parse)
    b1 = charter.conditions[3]
    assert b1.text == "Prior to issuance of a building permit, the Developer shall"
    assert [s.text for s in b1.sub_items] == [
        "record the affordable housing agreement for 15 units,",
        "pay the public art in-lieu fee, and",
        "submit a final landscape plan.",
    ]
    # the PDF's running header and footers are not in any condition
    for c in pdf_parse.conditions:
        assert "Page " not in c.text and "Riverwalk Market Hall" not in c.text, c.number


def test_time_limit_texts_quote_the_condition(pdf_parse: ParsedResolution) -> None:
    charter = _parse("charter_city_council.txt", pdf_parse)
    assert charter.conditions[1].time_limits[0]["text"] == (
        "shall expire two (2) years from the effective date of this resolution"
    )
    letter = _parse("zoning_administrator_letter.txt", pdf_parse)
    assert letter.conditions[4].time_limits == [
        {
            "kind": "until",
            "until": "2027-12-31",
            "anchor": None,
            "extensions": None,
            "text": "limited term ending December 31, 2027",
        }
    ]


def test_the_first_inspection_does_not_block_the_permit_it_follows(
    pdf_parse: ParsedResolution,
) -> None:
    prefixes = _parse("use_permit_department_prefixes.txt", pdf_parse)
    eng3 = next(c for c in prefixes.conditions if c.number == "ENG-3")
    assert eng3.section == "PRIOR TO ISSUANCE OF BUILDING PERMITS"
    assert "building_permit" not in eng3.gates


def test_code_in_effect_is_no_gate(pdf_parse: ParsedResolution) -> None:
    charter = _parse("charter_city_council.txt", pdf_parse)
    d1 = next(c for c in charter.conditions if c.number == "D.1")
    assert "at the time of building permit application" in d1.text
    assert d1.gates == ["unspecified"]
