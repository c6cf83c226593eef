"""Golden tests on a resolution written in another city's style (fixtures/
other_city_resolution.txt: capitals department headings with phone numbers, capitals
milestone headings, "5. APPEAL PERIOD:" labels, "Condition No. 20:" numbering, "(a)" and "(1)"
sub-items, "Page 3 of 9" footers and a running header), its PDF, and smaller layouts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from actions.resolution_files import extract_text
from models.conditions import ConditionSpec, ParsedResolution
from rules.conditions.parser import parse_resolution

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "other_city_resolution.txt"


@pytest.fixture(scope="module")
def parsed() -> ParsedResolution:
    return parse_resolution(FIXTURE.read_text("utf-8"))


@pytest.fixture(scope="module")
def by_number(parsed: ParsedResolution) -> dict[str, ConditionSpec]:
    return {c.number: c for c in parsed.conditions}


def test_title(parsed: ParsedResolution) -> None:
    assert parsed.title == (
        "A RESOLUTION OF THE PLANNING COMMISSION OF THE CITY OF RIO SECO APPROVING VESTING "
        "TENTATIVE TRACT MAP NO. 8841 AND SITE PLAN REVIEW SPR 24-07 FOR A 42-LOT "
        "SINGLE-FAMILY SUBDIVISION AT 1800 MESA VERDE ROAD (APN 112-040-017)"
    )


def test_numbers_and_departments(parsed: ParsedResolution) -> None:
    # The four findings and the adoption block come before Exhibit A and are not conditions.
    assert [c.number for c in parsed.conditions] == [str(n) for n in range(1, 27)]
    departments = {}
    for c in parsed.conditions:
        departments.setdefault(c.department, []).append(int(c.number))
    assert departments == {
        # "GENERAL CONDITIONS" is a topic section: it names no department (§7)
        None: [1, 2, 3, 4, 5],
        # printed "... PLANNING DIVISION (805) 555-0142": the telephone is not the name
        "COMMUNITY DEVELOPMENT DEPARTMENT \u2013 PLANNING DIVISION": [6, 7, 8, 9, 10],
        "PUBLIC WORKS DEPARTMENT": list(range(11, 20)),
        "FIRE PROTECTION DISTRICT \u2013 FIRE PREVENTION BUREAU": [20, 21, 22, 23],
        "ENVIRONMENTAL MITIGATION MEASURES (IS/MND)": [24, 25, 26],
    }


def test_capitals_milestone_headings_are_sections(parsed: ParsedResolution) -> None:
    sections = {c.number: c.section for c in parsed.conditions}
    assert {sections[n] for n in ("1", "2", "3", "4", "5")} == {"GENERAL CONDITIONS"}
    assert sections["8"] is None
    assert sections["9"] == sections["10"] == "PRIOR TO ISSUANCE OF BUILDING PERMITS"
    assert sections["14"] is None
    assert {sections[n] for n in ("15", "16", "17")} == {"DURING CONSTRUCTION"}
    assert {sections[n] for n in ("18", "19")} == {"PRIOR TO ACCEPTANCE OF PUBLIC IMPROVEMENTS"}


GATES = {
    # a document-wide preamble: "... prior to recordation of the final map"
    "1": (["final_map"], "department"),
    "4": (["building_permit"], "explicit"),
    "6": (["building_permit_application", "ongoing"], "explicit"),
    "7": (["occupancy"], "explicit"),
    "9": (["building_permit"], "section"),
    "10": (["building_permit"], "section"),
    # the Public Works preamble: "... prior to approval of the final map"
    "11": (["final_map"], "department"),
    "12": (["improvement_plan_submittal"], "explicit"),
    "13": (["grading_permit"], "explicit"),
    "15": (["during_construction"], "section"),
    "17": (["during_construction"], "section"),
    "18": (["acceptance_of_improvements"], "section"),
    "19": (["acceptance_of_improvements"], "section"),
    "20": (["pre_construction"], "explicit"),
    "21": (["building_permit_application"], "explicit"),
    "22": (["final_inspection", "ongoing"], "explicit"),
    "23": (["final_map"], "department"),
    "24": (["pre_construction"], "explicit"),
    # an event during construction does not also hold the final map
    "25": (["during_construction"], "explicit"),
    "26": (["final_map"], "department"),
}


@pytest.mark.parametrize("number", list(GATES))
def test_gates(by_number: dict[str, ConditionSpec], number: str) -> None:
    c = by_number[number]
    assert (c.gates, c.gate_source) == GATES[number]


def test_kinds(parsed: ParsedResolution) -> None:
    kinds = {c.number: c.kind for c in parsed.conditions if c.kind != "requirement"}
    assert kinds == {
        "8": "advisory",
        "14": "recurring",  # "inspected weekly"
        "15": "recurring",  # construction hours, in the DURING CONSTRUCTION section
        "16": "recurring",
        "17": "event",
        "24": "seasonal",
        "25": "event",
    }


def test_title_cased_labels_stay_in_the_text(by_number: dict[str, ConditionSpec]) -> None:
    assert by_number["5"].text.startswith("APPEAL PERIOD: This approval shall not become")
    assert by_number["5"].code is None


def test_condition_no_numbering_and_cross_references(by_number: dict[str, ConditionSpec]) -> None:
    assert by_number["20"].text.startswith("Fire hydrants and all-weather access roads")
    assert by_number["23"].text.endswith("(see Condition No. 6).")


def test_mitigation_codes(parsed: ParsedResolution) -> None:
    codes = {c.number: c.code for c in parsed.conditions if c.code}
    assert codes == {"24": "BIO-1", "25": "CUL-2", "26": "TRA-1"}  # "MM BIO -1:" normalised


def test_parenthesised_sub_items(by_number: dict[str, ConditionSpec]) -> None:
    plan = by_number["10"]
    assert [s.label for s in plan.sub_items] == ["a", "b", "c"]
    assert [s.label for s in plan.sub_items[1].sub_items] == ["1", "2"]
    assert plan.sub_items[2].text == "a schedule of arborist visits while grading is under way."


def test_page_footer_header_and_wrapped_lines(parsed: ParsedResolution) -> None:
    for c in parsed.conditions:
        assert "Page " not in c.text and "Resolution No." not in c.text, c.number
    by = {c.number: c for c in parsed.conditions}
    # "... to be held for one year after" / footer / header / "acceptance."
    assert by["19"].text.endswith("to be held for one year after acceptance.")
    # "... Haul trucks shall use State Route" / footer / "9. No hauling ...": 9 is no condition
    assert by["13"].text.endswith(
        "Haul trucks shall use State Route\n9. No hauling shall occur on residential streets."
    )


def test_duplicates_and_warnings(parsed: ParsedResolution) -> None:
    by = {c.number: c for c in parsed.conditions}
    assert by["11"].related == ["26"] and by["26"].related == ["11"]
    assert parsed.warnings == [
        "Conditions 11 and 26 look like the same obligation; linked as related"
    ]


# ------------------------------------------------------------------ PDF


def _pdf(pages: list[list[str]]) -> bytes:
    """A minimal PDF, one text line per line, Helvetica with WinAnsi encoding."""

    def literal(line: str) -> bytes:
        raw = line.encode("cp1252", errors="replace")
        return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"

    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % p for p in page_ids)
        + b"] /Count %d >>" % len(pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for page_id, lines in zip(page_ids, pages, strict=True):
        body = b"BT /F1 8 Tf 10 TL 36 770 Td\n"
        body += b"".join(literal(line) + b" Tj T*\n" for line in lines) + b"ET"
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (page_id + 1)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(body) + body + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % off for off in offsets))
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def test_pdf_gives_the_same_conditions(tmp_path: Path, parsed: ParsedResolution) -> None:
    lines = FIXTURE.read_text("utf-8").splitlines()
    path = tmp_path / "resolution.pdf"
    path.write_bytes(_pdf([lines[i : i + 20] for i in range(0, len(lines), 20)]))
    text = extract_text(path)
    assert "CONDITIONS OF APPROVAL" in text
    from_pdf = parse_resolution(text)
    # The PDF also says which of its pages each condition is on; the text is one page.
    assert [c.page for c in from_pdf.conditions][-1] > 1
    for c in from_pdf.conditions:
        c.page = 1
    assert from_pdf.to_contract() == parsed.to_contract()


def test_pdf_of_the_cotati_resolution(tmp_path: Path) -> None:
    # The resolution as shipped with the demo: lines 166-513 of the council packet.
    resolution = (
        Path(__file__).resolve().parents[3] / "stack" / "data" / "cotati-village-resolution.txt"
    )
    lines = resolution.read_text("utf-8").split("\n")
    path = tmp_path / "cotati.pdf"
    path.write_bytes(_pdf([lines[i : i + 40] for i in range(0, len(lines), 40)]))
    from_pdf = parse_resolution(extract_text(path))
    from_text = parse_resolution("\n".join(lines))

    def summary(p: ParsedResolution) -> list[tuple]:
        return [(c.number, c.code, c.department, c.section, c.gates, c.kind) for c in p.conditions]

    assert [c.number for c in from_pdf.conditions] == [str(n) for n in range(1, 134)]
    assert summary(from_pdf) == summary(from_text)


def test_extract_text_reads_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("RESOLUTION OF THE CITY\n1. Thing.\n", "utf-8")
    assert extract_text(path) == "RESOLUTION OF THE CITY\n1. Thing.\n"
    path.write_bytes("Caf\u00e9 \u2013 1. Thing.".encode("cp1252"))
    assert extract_text(path) == "Caf\u00e9 \u2013 1. Thing."


def test_extract_text_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        extract_text(tmp_path / "missing.pdf")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    with pytest.raises(ValueError):
        extract_text(broken)
    renamed = tmp_path / "letter.pdf"
    renamed.write_text("RESOLUTION OF THE CITY", "utf-8")
    with pytest.raises(ValueError, match="not a PDF"):
        extract_text(renamed)
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ValueError):
        extract_text(binary)


# ------------------------------------------------------------------ other layouts

CONDITION_NO = """RESOLUTION NO. 2025-3
A RESOLUTION OF THE CITY COUNCIL OF THE CITY OF LAGO AZUL APPROVING USE PERMIT UP-25-01
WHEREAS, the applicant applied for a use permit; and
NOW, THEREFORE, BE IT RESOLVED that the use permit is approved subject to the following conditions:
A. PLANNING DIVISION
Condition No. 1. Prior to issuance of a building permit, the applicant shall submit:
1. a parking plan;
2. a trash enclosure detail.
Condition No. 2. The applicant shall obtain a sign permit for each wall sign.
B. BUILDING DIVISION
Condition No. 4. The applicant shall obtain building permits for all tenant improvements.
Condition No. 4. The applicant shall provide accessible parking per CBC Chapter 11B.
Condition No. 5. Final inspection shall be requested by the applicant.
PASSED AND ADOPTED this 4th day of May 2025.
"""


def test_condition_no_layout_with_numbered_sub_items_gaps_and_repeats() -> None:
    parsed = parse_resolution(CONDITION_NO)
    numbers = [c.number for c in parsed.conditions]
    assert numbers == ["1", "2", "4", "4 (2)", "5"]
    first = parsed.conditions[0]
    assert first.department == "PLANNING DIVISION"  # "A." is the heading's letter
    assert [(s.label, s.text) for s in first.sub_items] == [
        ("1", "a parking plan;"),
        ("2", "a trash enclosure detail."),
    ]
    assert parsed.conditions[2].department == "BUILDING DIVISION"
    assert parsed.conditions[4].gates == ["final_inspection"]
    assert "Condition numbering skips from 2 to 4 (missing 3)" in parsed.warnings
    assert "Condition number 4 is printed twice; the second is listed as 4 (2)" in parsed.warnings


def test_text_without_a_conditions_section_is_read_whole_with_a_warning() -> None:
    parsed = parse_resolution("1. The applicant shall pay all fees.\n2. Signs need a permit.\n")
    assert [c.number for c in parsed.conditions] == ["1", "2"]
    assert any("No 'Conditions of Approval' heading" in w for w in parsed.warnings)
    assert any("very short" in w for w in parsed.warnings)  # "Signs need a permit."


def test_nothing_to_parse() -> None:
    parsed = parse_resolution("")
    assert parsed.conditions == []
    assert "No numbered conditions found" in parsed.warnings


SENTENCE_PREAMBLES = """\
CONDITIONS OF APPROVAL
Public Works / Engineering
The following shall be satisfied prior to issuance of a grading permit:
1. The Applicant shall submit a final drainage report.
2. The Applicant shall post a grading security.
The following shall be satisfied prior to issuance of a building permit:
3. The Applicant shall pay the park in-lieu fees.
4. The Applicant shall submit utility plans.
"""


def test_a_sentence_case_preamble_after_a_condition_starts_a_new_gate() -> None:
    parsed = parse_resolution(SENTENCE_PREAMBLES)
    by_number = {c.number: c for c in parsed.conditions}
    assert list(by_number) == ["1", "2", "3", "4"]
    assert by_number["2"].text == "The Applicant shall post a grading security."
    assert by_number["1"].gates == by_number["2"].gates == ["grading_permit"]
    assert by_number["3"].gates == by_number["4"].gates == ["building_permit"]
