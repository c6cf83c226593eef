"""A resolution file to its parse, by the one path the CLI, the web import and the API use
(actions/resolution_files.py): the published-layout corpus printed and scanned (skewed,
noisy, image-only PDFs read by Tesseract), saved as Word files, and printed as text PDFs
with running headers and footers, each parsing as its expected parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.resolution_files import ResolutionError, read_resolution
from models.conditions import ParsedResolution
from operations.documents import tesseract_available
from tests.real_parts import missing
from tests.rules.conditions.test_published_corpus import CORPUS, EXPECTED, actual
from tests.scanned_pdf import scan, text_pdf
from tests.word_docx import word_resolution

# (corpus text, running header, skew in degrees, share of noisy pixels, seed)
SCANS = [
    ("scan_council_paren.txt", "Resolution No. 2025-34 - CUP 25-08", 1.2, 0.002, 11),
    ("scan_planning_commission.txt", "PC Resolution 2025-12 | June 4, 2025", -1.5, 0.003, 12),
    ("scan_zoning_letter.txt", "MUP-25-0031 Decision Letter", 0.8, 0.002, 13),
    ("scan_county_coa.txt", "Board of Supervisors Resolution 25-207", 2.0, 0.0015, 14),
]
WORD = [("docx_charter_city.txt", True), ("docx_typed_numbers.txt", False)]


@pytest.fixture(scope="module")
def scanned() -> dict[str, tuple[ParsedResolution, list[tuple[int, int, str]]]]:
    """Each scan read once for the whole module (OCR is the slow part)."""
    if tesseract_available() is None:
        pytest.skip(
            missing("Tesseract", "tesseract-ocr is not installed (scripts/system-packages)")
        )
    out = {}
    for name, header, skew, noise, seed in SCANS:
        pdf = scan(
            text_pdf((CORPUS / name).read_text("utf-8"), header), skew=skew, noise=noise, seed=seed
        )
        assert b"/Font" not in pdf  # image-only: no text layer to fall back on
        progress: list[tuple[int, int, str]] = []

        def note(
            done: int, total: int, stage: str, seen: list[tuple[int, int, str]] = progress
        ) -> None:
            seen.append((done, total, stage))

        parsed = read_resolution(pdf, name.replace(".txt", ".pdf"), progress=note)
        out[name] = (parsed, progress)
    return out


@pytest.mark.parametrize("name", [s[0] for s in SCANS])
def test_a_scanned_resolution_parses_as_printed(
    name: str, scanned: dict[str, tuple[ParsedResolution, list[tuple[int, int, str]]]]
) -> None:
    parsed, _ = scanned[name]
    adopted, expected = EXPECTED[name]
    assert parsed.adopted == adopted
    assert actual(parsed) == expected
    assert parsed.warnings[0] == "Read by OCR: pages 1-2; check numbers and words"
    # the running header and the page footer never become a heading or a condition's words
    for c in parsed.conditions:
        assert "Page 1 of" not in c.text and "Resolution 2025" not in c.text


def test_a_scan_shows_its_progress_page_by_page(
    scanned: dict[str, tuple[ParsedResolution, list[tuple[int, int, str]]]],
) -> None:
    _, progress = scanned["scan_council_paren.txt"]
    assert progress[:2] == [(1, 2, "read"), (2, 2, "read")]
    assert sorted(progress[2:]) == [(1, 2, "recognised"), (2, 2, "recognised")]


@pytest.mark.parametrize(("name", "auto_number"), WORD)
def test_a_word_resolution_parses_as_printed(name: str, auto_number: bool) -> None:
    data = word_resolution(CORPUS / name, auto_number=auto_number, header="Resolution (header)")
    parsed = read_resolution(data, name.replace(".txt", ".docx"))
    adopted, expected = EXPECTED[name]
    assert parsed.adopted == adopted
    assert actual(parsed) == expected


@pytest.mark.parametrize("name", ["scan_planning_commission.txt", "scan_county_coa.txt"])
def test_a_text_pdf_with_running_lines_parses_as_its_text(name: str) -> None:
    text = (CORPUS / name).read_text("utf-8")
    pdf = text_pdf(text, header="CITY OF LOMA VERDE - RESOLUTION PC 2025-12 - PAGE HEADER")
    parsed = read_resolution(pdf, "resolution.pdf")
    assert actual(parsed) == EXPECTED[name][1]
    assert not any("PAGE HEADER" in (c.department or "") + c.text for c in parsed.conditions)


def test_the_jurisdictions_aliases_name_the_department() -> None:
    text = (
        b"RESOLUTION OF THE CITY COUNCIL APPROVING A USE PERMIT\n"
        b"The following conditions of approval apply:\n"
        b"1. Hydrant flow shall be verified to the satisfaction of the Rancho Adobe Fire "
        b"Protection District prior to occupancy.\n"
        b"2. Signs shall be approved prior to issuance of a building permit.\n"
    )
    plain = read_resolution(text, "r.txt", department_aliases={})
    cotati = read_resolution(
        text, "r.txt", department_aliases={"rancho adobe fire protection district": "fire"}
    )
    assert plain.conditions[0].department is None
    assert cotati.conditions[0].department == "Fire"
    assert cotati.conditions[0].department_source == "text"


def test_a_file_with_no_resolution_in_it_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ResolutionError, match=r"^cannot read the file: the file is empty$"):
        read_resolution(b"", "r.docx")
    with pytest.raises(ResolutionError, match=r"^not a resolution"):
        read_resolution(b"Minutes of the meeting. Nothing was decided.", "r.txt")
