"""Resolutions as Word files, made at test time with python-docx from a corpus text: a new
page at each form feed, headings in capitals set bold, the running header in the section
header (which the reader must not take for content), and with `auto_number` the condition
numbers left to Word's automatic numbering ("List Number"), as cities type them, so the
reader has to count them as Word does."""

from __future__ import annotations

import io
import re
from pathlib import Path

import docx
from docx.enum.text import WD_BREAK

_NUMBERED = re.compile(r"^\d{1,3}\.\s+(?P<rest>.*)$")


def word_resolution(source: Path, *, auto_number: bool, header: str = "") -> bytes:
    document = docx.Document()
    if header:
        document.sections[0].header.paragraphs[0].text = header
    pages = source.read_text("utf-8").split("\f")
    for n, page in enumerate(pages):
        if n:
            document.paragraphs[-1].add_run().add_break(WD_BREAK.PAGE)
        for line in page.strip("\n").split("\n"):
            numbered = _NUMBERED.match(line)
            if auto_number and numbered:
                document.add_paragraph(numbered.group("rest"), style="List Number")
            else:
                paragraph = document.add_paragraph()
                paragraph.add_run(line).bold = line.isupper()
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
