"""A resolution laid out as cities print them, rendered to PDF with fpdf2 at test time: a
letterhead, a running header and a "Page N of M" footer on every page, bold headings, numbered
paragraphs with hanging indents and wrapped lines, lettered items indented under them.

Used by the corpus tests (the PDF layout), the web import tests and the browser journey."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

# (kind, label, text): kind is title | para | heading | condition | item
Block = tuple[str, str, str]

RIO_LINDO: list[Block] = [
    ("title", "", "CITY OF RIO LINDO"),
    ("title", "", "PLANNING COMMISSION RESOLUTION NO. 2025-17"),
    (
        "title",
        "",
        "A RESOLUTION OF THE PLANNING COMMISSION OF THE CITY OF RIO LINDO APPROVING USE PERMIT "
        "UP-25-12 AND DESIGN REVIEW DR-25-20 FOR THE RIVERWALK MARKET HALL AT 300 LEVEE STREET",
    ),
    (
        "para",
        "",
        "WHEREAS, Riverwalk Market LLC (\u201cApplicant\u201d) applied for a use permit and design "
        "review for a 24,000 square foot market hall with outdoor dining along the levee trail; "
        "and",
    ),
    (
        "para",
        "",
        "WHEREAS, the Planning Commission held a duly noticed public hearing on November 5, 2025, "
        "and considered the staff report and all testimony;",
    ),
    (
        "para",
        "",
        "NOW, THEREFORE, BE IT RESOLVED that the Planning Commission approves UP-25-12 and "
        "DR-25-20 subject to the following conditions of approval:",
    ),
    ("heading", "", "GENERAL CONDITIONS"),
    (
        "condition",
        "1.",
        "The market hall shall be operated in substantial conformance with the project "
        "description, the plans stamped approved on November 5, 2025, and these conditions.",
    ),
    (
        "condition",
        "2.",
        "This use permit shall expire twenty-four (24) months from the date of approval unless "
        "a building permit has been issued and construction has begun. The Community "
        "Development Director may grant one extension of up to twelve (12) months.",
    ),
    (
        "condition",
        "3.",
        "The Applicant shall reimburse the City for the cost of the contract planner within "
        "thirty (30) days of invoice.",
    ),
    ("heading", "", "PLANNING DIVISION (707) 555-0110"),
    (
        "condition",
        "4.",
        "Prior to issuance of a building permit, the Applicant shall submit for approval:",
    ),
    ("item", "a.", "a final landscape plan with trees along the levee trail;"),
    ("item", "b.", "a sign program for the building and the trail entrance; and"),
    ("item", "c.", "a trash and recycling enclosure detail."),
    (
        "condition",
        "5.",
        "Outdoor amplified music shall end by 9:00 p.m. and the outdoor dining area shall be "
        "kept free of litter at all times.",
    ),
    (
        "condition",
        "6.",
        "The Applicant is encouraged to provide bicycle valet parking during weekend events.",
    ),
    ("heading", "", "ENGINEERING DIVISION (707) 555-0120"),
    (
        "para",
        "",
        "The following conditions shall be satisfied prior to issuance of a grading permit "
        "unless otherwise stated.",
    ),
    (
        "condition",
        "7.",
        "A final drainage report and a stormwater control plan shall be prepared by a "
        "registered civil engineer and approved by the City Engineer.",
    ),
    (
        "condition",
        "8.",
        "The Applicant shall post a performance bond for the levee trail improvements.",
    ),
    (
        "condition",
        "9.",
        "The levee trail connection shall be constructed prior to occupancy of the market hall.",
    ),
    ("heading", "", "FIRE DISTRICT (707) 555-0130"),
    (
        "condition",
        "10.",
        "An automatic fire sprinkler system shall be installed and tested prior to final "
        "inspection.",
    ),
    (
        "condition",
        "11.",
        "Fire apparatus access along Levee Street shall be maintained during construction.",
    ),
    (
        "para",
        "",
        "PASSED AND ADOPTED by the Planning Commission of the City of Rio Lindo on the 5th day "
        "of November, 2025, by the following vote:",
    ),
    ("para", "", "AYES: Commissioners Ibarra, Feld, Nakamura, Oyelaran"),
]


class _Resolution(FPDF):
    header_text = "Resolution No. 2025-17 - Riverwalk Market Hall"

    def header(self) -> None:
        if self.page_no() == 1:
            return
        self.set_font("Helvetica", "I", 8)
        self.cell(0, 6, self.header_text, align="R")
        self.ln(10)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 10, f"Page {self.page_no()} of {{nb}}", align="C")


def write_resolution_pdf(path: Path, blocks: list[Block] = RIO_LINDO, *, repeat: int = 1) -> Path:
    """Render `blocks` to `path`; `repeat` > 1 pads the body with copies of the general
    conditions (renumbered) to make a long PDF."""
    pdf = _Resolution(format="Letter")
    pdf.set_margins(25, 20, 25)
    pdf.set_auto_page_break(True, margin=22)
    pdf.alias_nb_pages()
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    number = 0
    body = list(blocks)
    if repeat > 1:
        cut = next(i for i, b in enumerate(body) if b[0] == "heading" and "FIRE" in b[2])
        extra = [b for b in body if b[0] == "condition"] * (repeat - 1)
        body = body[:cut] + extra + body[cut:]
    for kind, label, text in body:
        text = text.replace("\u201c", '"').replace("\u201d", '"')
        if kind == "title":
            pdf.set_font("Helvetica", "B", 11)
            pdf.multi_cell(width, 6, text, align="C")
            pdf.ln(2)
        elif kind == "heading":
            pdf.ln(2)
            pdf.set_font("Helvetica", "B", 10)
            pdf.multi_cell(width, 6, text)
        elif kind == "para":
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(width, 6, text, align="J")
            pdf.ln(2)
        elif kind == "condition":
            number += 1
            pdf.set_font("Helvetica", "", 11)
            pdf.cell(10, 5, f"{number}." if repeat > 1 else label)
            pdf.multi_cell(width - 10, 6, text, align="J")
            pdf.ln(1)
        else:
            pdf.set_font("Helvetica", "", 11)
            pdf.set_x(pdf.l_margin + 10)
            pdf.cell(8, 5, label)
            pdf.multi_cell(width - 18, 5, text)
    pdf.output(str(path))
    return path
