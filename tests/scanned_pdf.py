"""Resolutions made the way city archives publish them, at test time and reproducibly: a
text (pages split by form feeds) printed to a text PDF with fpdf2 (a running header and a
"Page N of M" footer on every page), then "scanned": each page rasterised, turned by a
small skew, sprinkled with noise from a seeded generator, and bound into an image-only PDF
with no text layer at all. Small on purpose (a few pages, 150 dpi) so OCR in tests is
quick; the OCR itself is the product's (operations/documents.py)."""

from __future__ import annotations

import io
import random
from pathlib import Path

from fpdf import FPDF

SCAN_DPI = 200


class _Printed(FPDF):
    running_header = ""

    def header(self) -> None:
        if self.running_header:
            self.set_font("Helvetica", "", 9)
            self.cell(0, 5, self.running_header, align="R", new_x="LMARGIN", new_y="NEXT")
            self.ln(3)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 9)
        self.cell(0, 8, f"Page {self.page_no()} of {{nb}}", align="C")


def _latin(text: str) -> str:
    return (
        text.replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u2019", "'")
        .replace("\u2013", "-")
        .replace("\u2014", "-")
    )


def text_pdf(text: str, header: str = "") -> bytes:
    """The text printed as a PDF with a text layer: a new page at each form feed, paragraphs
    at blank lines, a line that starts with a label indented as a hanging paragraph."""
    pdf = _Printed(format="Letter")
    pdf.running_header = header
    pdf.set_margins(22, 18, 22)
    pdf.set_auto_page_break(True, margin=20)
    pdf.alias_nb_pages()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for page in text.split("\f"):
        pdf.add_page()
        for para in page.strip("\n").split("\n"):
            if not para.strip():
                pdf.ln(3)
                continue
            heading = para.isupper() and len(para) < 90
            pdf.set_font("Helvetica", "B" if heading else "", 11)
            pdf.multi_cell(width, 5.5, _latin(para), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1.5)
    return bytes(pdf.output())


def scan(pdf: bytes, *, skew: float, noise: float, seed: int, dpi: int = SCAN_DPI) -> bytes:
    """An image-only PDF of `pdf`'s pages as a scanner makes them: greyscale at `dpi`, turned
    `skew` degrees, with a fraction `noise` of the pixels flipped to specks."""
    import pypdfium2 as pdfium
    from PIL import Image

    rng = random.Random(seed)
    pages: list[Image.Image] = []
    document = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(document)):
            page = document[i]
            image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
            page.close()
            image = image.rotate(skew * (1 if i % 2 == 0 else -0.7), expand=False, fillcolor=255)
            pixels = image.load()
            assert pixels is not None
            width, height = image.size
            for _ in range(int(width * height * noise)):
                x, y = rng.randrange(width), rng.randrange(height)
                pixels[x, y] = 0 if rng.random() < 0.5 else 255
            pages.append(image)
    finally:
        document.close()
    out = io.BytesIO()
    pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=float(dpi))
    return out.getvalue()


def scanned_resolution(
    source: Path, out: Path, *, header: str = "", skew: float = 1.2, noise: float = 0.002,
    seed: int = 7,
) -> Path:  # fmt: skip
    """`source` (a corpus text) printed and scanned into `out`."""
    text = source.read_text("utf-8")
    out.write_bytes(scan(text_pdf(text, header), skew=skew, noise=noise, seed=seed))
    return out
