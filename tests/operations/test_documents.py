"""Reading the files cities publish (operations/documents.py): what each bad file is told,
in one line, and how Word's own numbers and page breaks are read."""

from __future__ import annotations

import io

import pytest

from operations.documents import MAX_PAGES, DocumentError, read_document, tesseract_available
from tests.bad_files import (
    RESOLUTION,
    blank_pdf,
    encrypted_pdf,
    photographs_pdf,
    zip_named_docx,
)
from tests.real_parts import missing
from tests.scanned_pdf import text_pdf

needs_tesseract = pytest.mark.skipif(
    tesseract_available() is None,
    reason=missing("Tesseract", "tesseract-ocr is not installed (scripts/system-packages)"),
)

BAD = [
    ("empty", b"", "r.pdf", "the file is empty"),
    ("blank bytes", b"  \n\n ", "r.txt", "the file is empty"),
    ("encrypted", encrypted_pdf(), "r.pdf", "the PDF is encrypted (password-protected)"),
    ("corrupt", text_pdf(RESOLUTION)[:300], "r.pdf", "not a readable PDF"),
    ("not a pdf at all", b"%PDF-1.7\nrubbish", "r.pdf", "not a readable PDF"),
    ("too long", blank_pdf(MAX_PAGES + 1), "r.pdf", f"has {MAX_PAGES + 1} pages, more than 500"),
    ("zip as docx", zip_named_docx(), "r.docx", "a ZIP archive, not a Word document"),
    ("text as docx", RESOLUTION.encode(), "r.docx", "not a Word document"),
    ("old word", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "r.doc", "Word 97-2003"),
]


@pytest.mark.parametrize(("data", "name", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_in_one_line(data: bytes, name: str, message: str) -> None:
    with pytest.raises(DocumentError) as refused:
        read_document(data, name)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


@needs_tesseract
def test_a_pdf_of_photographs_has_no_text() -> None:
    refused = r"^no text found in the file: its 1 page has no text layer and OCR found no words"
    with pytest.raises(DocumentError, match=refused):
        read_document(photographs_pdf(), "photos.pdf")


def test_a_text_pdf_is_read_page_by_page_with_progress() -> None:
    seen: list[tuple[int, int, str]] = []
    document = read_document(
        text_pdf(RESOLUTION + "\f" + RESOLUTION), "r.pdf", lambda *a: seen.append(a)
    )
    assert document.kind == "pdf" and len(document.pages) == 2 and not document.ocr_pages
    assert "2. Signs shall be approved" in document.pages[1]
    assert seen == [(1, 2, "read"), (2, 2, "read")]


def test_plain_text_pages_are_split_at_form_feeds() -> None:
    document = read_document((b"page one\fpage two\f"), "r.txt")
    assert document.pages == ["page one", "page two", ""]


def test_word_counts_its_automatic_numbers_and_breaks_pages() -> None:
    import docx
    from docx.enum.text import WD_BREAK

    word = docx.Document()
    word.sections[0].header.paragraphs[0].text = "Resolution No. 2025-9 (running header)"
    word.add_paragraph("CONDITIONS OF APPROVAL")
    for text in ("First thing.", "Second thing."):
        word.add_paragraph(text, style="List Number")
    word.paragraphs[-1].add_run().add_break(WD_BREAK.PAGE)
    word.add_paragraph("Third thing.", style="List Number")
    table = word.add_table(rows=1, cols=1)
    table.cell(0, 0).text = "A note in a table."
    out = io.BytesIO()
    word.save(out)
    document = read_document(out.getvalue(), "r.docx")
    assert document.kind == "docx"
    assert document.pages == [
        "CONDITIONS OF APPROVAL\n1. First thing.\n2. Second thing.",
        "3. Third thing.\nA note in a table.",
    ]
