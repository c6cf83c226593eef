"""Files a city might upload that are no readable resolution, made at test time: shared
by the reader's tests and the web import's (each must be refused in one line, storing
nothing)."""

from __future__ import annotations

import io
import random
import zipfile

from pypdf import PdfWriter

from tests.scanned_pdf import text_pdf

RESOLUTION = (
    "RESOLUTION OF THE CITY COUNCIL APPROVING A USE PERMIT\n"
    "The following conditions of approval apply:\n"
    "1. The use shall be conducted indoors at all times.\n"
    "2. Signs shall be approved by the Planning Director prior to occupancy.\n"
)


def blank_pdf(pages: int) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=io.BytesIO(text_pdf(RESOLUTION)))
    writer.encrypt("secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def photographs_pdf() -> bytes:
    """A PDF of one "photograph": soft shapes and grain, no letters anywhere."""
    from PIL import Image, ImageDraw, ImageFilter

    rng = random.Random(3)
    image = Image.new("L", (1100, 1400), 200)
    draw = ImageDraw.Draw(image)
    for _ in range(40):
        x, y, r = rng.randrange(1100), rng.randrange(1400), rng.randrange(30, 200)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=rng.randrange(40, 240))
    image = image.filter(ImageFilter.GaussianBlur(6))
    out = io.BytesIO()
    image.save(out, "PDF", resolution=150.0)
    return out.getvalue()


def zip_named_docx() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("photos/site.jpg", b"\xff\xd8\xff" + b"0" * 100)
    return out.getvalue()
