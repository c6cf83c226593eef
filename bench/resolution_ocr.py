"""Importing resolutions as cities publish them (issue 26): a 40-page scanned resolution read
through the product's one path (actions/resolution_files.py: PDFium renders each page,
Tesseract recognises the pages in parallel, the parser reads them), against plain
`tesseract` run page by page on the same pages at the same resolution in the same run
(goal: >= 0.8 of its pages per second); and a 100-page text PDF parsed (goal: < 5 s).

The scanned resolution is printed with fpdf2 from conditions in the corpus layouts, then
scanned the way tests/scanned_pdf.py makes its fixtures (greyscale at 300 dpi, a skew of
about a degree, specks): an image-only PDF with no text layer. The baseline renders those
pages to PNG files at the same 300 dpi first (not timed) and times `tesseract page.png -`
for each, one after another, as a person would run it (Tesseract's own threads as
installed). The import is timed from its bytes to the parse, with its progress reports.
The machine is shared and its load moves, so the two run in turns (import, plain, plain,
import, ...) and the ratio is of their medians.

    .venv/bin/python -m bench.resolution_ocr [--pages 40] [--rounds 2] [--text-pages 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from actions.resolution_files import read_resolution
from bench.resolution_parse import HEADINGS, SENTENCES
from operations.documents import OCR_DPI, ocr_workers, render_pages, tesseract_available
from tests.scanned_pdf import scan, text_pdf

OCR_GOAL = 0.8
TEXT_GOAL_S = 5.0
CONDITIONS_PER_PAGE = 6


def resolution_text(pages: int) -> str:
    """A council resolution whose conditions fill about `pages` printed pages."""
    head = (
        "CITY OF BENCHMARK\nRESOLUTION NO. 2026-40\n"
        "A RESOLUTION OF THE CITY COUNCIL OF THE CITY OF BENCHMARK APPROVING A VESTING "
        "TENTATIVE MAP AND DEVELOPMENT PLAN\n"
        "NOW, THEREFORE, BE IT RESOLVED that the City Council approves the project subject to "
        "the following conditions of approval:\n"
    )
    body: list[str] = []
    number = 0
    for page in range(pages):
        lines = [HEADINGS[page % len(HEADINGS)]]
        for _ in range(CONDITIONS_PER_PAGE):
            number += 1
            lines.append(f"{number}. {SENTENCES[number % len(SENTENCES)]}")
        body.append("\n".join(lines))
    tail = "\nPASSED AND ADOPTED this 6th day of December, 2026."
    return head + "\f".join(body) + tail


def plain_tesseract(pdf: bytes, pages: int, folder: Path) -> float:
    """Seconds plain `tesseract` takes over the pages, rendered to PNG at OCR_DPI first."""
    files = []
    for i, image in enumerate(render_pages(pdf, list(range(pages)), OCR_DPI)):
        path = folder / f"page-{i:03}.png"
        image.save(path, dpi=(OCR_DPI, OCR_DPI))
        files.append(path)
    start = time.perf_counter()
    for path in files:
        subprocess.run(
            ["tesseract", str(path), "-", "--dpi", str(OCR_DPI)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--text-pages", type=int, default=100)
    args = parser.parse_args()
    if tesseract_available() is None:
        print("tesseract is not installed (scripts/system-packages)", file=sys.stderr)
        return 2
    version = tesseract_available()
    print(f"load {os.getloadavg()[0]:.1f}, {ocr_workers()} OCR workers, Tesseract {version}")

    printed = text_pdf(resolution_text(args.pages), "Resolution No. 2026-40")
    scanned = scan(printed, skew=1.0, noise=0.001, seed=40, dpi=OCR_DPI)
    import io

    from pypdf import PdfReader

    pages = len(PdfReader(io.BytesIO(scanned)).pages)

    ours: list[float] = []
    plain: list[float] = []
    progress: list[tuple[float, int, int, str]] = []
    conditions = 0

    def import_once() -> None:
        nonlocal conditions
        progress.clear()
        start = time.perf_counter()

        def note(done: int, total: int, stage: str) -> None:
            progress.append((time.perf_counter() - start, done, total, stage))

        conditions = len(read_resolution(scanned, "scan.pdf", progress=note).conditions)
        ours.append(time.perf_counter() - start)

    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            order = (import_once, lambda: plain.append(plain_tesseract(scanned, pages, Path(tmp))))
            for step in order if round_ % 2 == 0 else order[::-1]:
                step()
            print(
                f"  round {round_ + 1}: import {ours[-1]:.1f} s, plain tesseract {plain[-1]:.1f} s"
            )
    ours_s, plain_s = statistics.median(ours), statistics.median(plain)
    ratio = plain_s / ours_s
    recognised = [p for p in progress if p[3] == "recognised"]
    print(
        f"scanned: {pages} pages, {conditions} conditions; import {ours_s:.1f} s "
        f"({pages / ours_s:.2f} pages/s), plain tesseract {plain_s:.1f} s "
        f"({pages / plain_s:.2f} pages/s); ratio {ratio:.2f} (goal >= {OCR_GOAL}) "
        f"{'PASS' if ratio >= OCR_GOAL else 'FAIL'}"
    )
    print(
        f"  progress: {len(progress)} reports, first page recognised after "
        f"{recognised[0][0]:.1f} s, last at {recognised[-1][0]:.1f} s; load "
        f"{os.getloadavg()[0]:.1f}"
    )

    text = text_pdf(resolution_text(args.text_pages))
    start = time.perf_counter()
    parsed = read_resolution(text, "text.pdf")
    took = time.perf_counter() - start
    text_pages = len(PdfReader(io.BytesIO(text)).pages)
    print(
        f"text PDF: {text_pages} pages, {len(parsed.conditions)} conditions parsed in {took:.2f} s "
        f"(goal < {TEXT_GOAL_S} s) {'PASS' if took < TEXT_GOAL_S else 'FAIL'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
