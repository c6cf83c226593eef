"""Reading the files cities publish into text, page by page: plain text, PDFs with a text
layer (pypdf), scanned PDFs (rendered by PDFium, recognised by Tesseract OCR) and Word
files (python-docx). This is the only place a resolution file is opened; the parser
(rules/conditions) gets the pages' text and stays pure.

`read_document` answers a `Document` (one string per page) or raises `DocumentError`
whose message is one line naming what is wrong with the file. A long file reports its
progress as (pages done, pages in all, stage): stage `read` while the pages' text layers
are read, `recognised` while scanned pages go through OCR.
"""

from __future__ import annotations

import io
import os
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

MAX_PAGES = 500
# Tesseract reads print best at 300 dots per inch; the benchmark compares at the same.
OCR_DPI = 300
# A busy page takes Tesseract seconds; one it has not finished in this long never will.
OCR_PAGE_TIMEOUT_S = 300
# A page whose text layer has fewer letters than this is read as a scan.
_MIN_LETTERS = 40
# OCR words below this confidence (0-100) are noise: speckles, photographs, rules.
_MIN_WORD_CONFIDENCE = 40
# A file whose OCR found fewer real words than this holds no text (photographs).
_MIN_WORDS = 12
_REAL_WORD = re.compile(r"[A-Za-z]{3,}")

Progress = Callable[[int, int, str], None]  # (pages done, pages in all, "read" | "recognised")

OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class DocumentError(ValueError):
    """The file cannot be read; the message is one line for the user."""


@dataclass
class Document:
    pages: list[str]
    kind: str  # text | pdf | scanned pdf | docx
    ocr_pages: list[int] = field(default_factory=list)  # 1-based pages read by OCR


def read_document(
    data: bytes,
    filename: str = "",
    progress: Progress | None = None,
    *,
    dpi: int = OCR_DPI,
    workers: int | None = None,
) -> Document:
    """The pages of a resolution file, judged by its content (the name only breaks ties)."""
    name = filename.lower()
    if not data.strip():
        raise DocumentError("the file is empty")
    if data.lstrip()[:5] == b"%PDF-":
        return _pdf(data, progress, dpi, workers)
    if name.endswith(".pdf"):
        raise DocumentError("not a PDF (no %PDF header)")
    if data.startswith(OLE_SIGNATURE):
        raise DocumentError(
            "a Word 97-2003 (.doc) or other old Office file: save it as .docx or PDF"
        )
    if data.startswith(b"PK\x03\x04"):
        return _docx(data)
    if name.endswith(".docx"):
        raise DocumentError("not a Word document: a .docx file is a ZIP container and this is not")
    if b"\x00" in data[:4096]:
        raise DocumentError("not a text, PDF or Word file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    pages = text.replace("\r\n", "\n").split("\f")
    if len(pages) > MAX_PAGES:
        raise _too_long(len(pages))
    return Document(pages, "text")


def _too_long(pages: int) -> DocumentError:
    return DocumentError(
        f"the file has {pages} pages, more than {MAX_PAGES}: split it and import the part "
        "with the conditions"
    )


# -- PDF ---------------------------------------------------------------------------------------


def _pdf(data: bytes, progress: Progress | None, dpi: int, workers: int | None) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(
                "the PDF is encrypted (password-protected): save an unprotected copy"
            )
        total = len(reader.pages)
        if total > MAX_PAGES:
            raise _too_long(total)
        pages: list[str] = []
        for i, page in enumerate(reader.pages, start=1):
            pages.append(page.extract_text() or "")
            if progress is not None:
                progress(i, total, "read")
    except DocumentError:
        raise
    except FileNotDecryptedError:
        raise DocumentError(
            "the PDF is encrypted (password-protected): save an unprotected copy"
        ) from None
    except (PyPdfError, KeyError, TypeError, AttributeError, IndexError, ValueError) as err:
        raise DocumentError(f"not a readable PDF ({_one_line(err)})") from None
    if total == 0:
        raise DocumentError("not a readable PDF (it has no pages)")
    scanned = [
        i for i, text in enumerate(pages) if len(re.findall(r"[A-Za-z]", text)) < _MIN_LETTERS
    ]
    if not scanned:
        return Document(pages, "pdf")
    dpi = min(dpi, max(150, _scan_dpi(reader, scanned) or dpi))
    recognised = ocr_pdf_pages(data, scanned, progress, dpi=dpi, workers=workers)
    words = 0
    for i, (text, real_words) in zip(scanned, recognised, strict=True):
        if real_words > len(_REAL_WORD.findall(pages[i])):
            pages[i] = text
        words += real_words
    if not any(len(_REAL_WORD.findall(p)) for p in pages) or (
        len(scanned) == total and words < _MIN_WORDS
    ):
        pages_have = "its 1 page has" if total == 1 else f"its {total} pages have"
        raise DocumentError(
            f"no text found in the file: {pages_have} no text layer and OCR found no words "
            "(photographs or blank pages?)"
        )
    kind = "scanned pdf" if len(scanned) * 2 >= total else "pdf"
    return Document(pages, kind, [i + 1 for i in scanned])


def _scan_dpi(reader: Any, scanned: list[int]) -> int | None:
    """The resolution the pages were scanned at (the widest image over the page's width):
    rendering above it for OCR only adds pixels, and time, without detail."""
    best = 0
    for i in scanned[:3]:
        page = reader.pages[i]
        try:
            inches = float(page.mediabox.width) / 72
            objects: Any = page["/Resources"].get_object().get("/XObject")
            widths = [
                int(obj.get_object().get("/Width") or 0)
                for obj in (objects.get_object().values() if objects is not None else [])
                if obj.get_object().get("/Subtype") == "/Image"
            ]
        except Exception:  # noqa: BLE001 - an image pypdf cannot decode: no estimate
            continue
        if widths and inches > 0:
            best = max(best, round(max(widths) / inches))
    return best or None


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())[:160] or type(err).__name__


# -- OCR ---------------------------------------------------------------------------------------


def tesseract_available() -> str | None:
    """Tesseract's version, or None when it is not installed (scripts/system-packages)."""
    import pytesseract

    try:
        return str(pytesseract.get_tesseract_version())
    except (pytesseract.TesseractNotFoundError, OSError):
        return None


def ocr_workers() -> int:
    """Pages are recognised in parallel, one Tesseract per core."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def render_pages(data: bytes, indexes: list[int], dpi: int = OCR_DPI) -> Iterator[Any]:
    """The pages (0-based `indexes`) as greyscale PIL images at `dpi`, one at a time (PDFium
    is not thread-safe: rendering stays on the caller's thread)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        for i in indexes:
            page = pdf[i]
            try:
                bitmap = page.render(scale=dpi / 72, grayscale=True)
                yield bitmap.to_pil()
            finally:
                page.close()
    finally:
        pdf.close()


def scanned_images(data: bytes, indexes: list[int], dpi: int = OCR_DPI) -> Iterator[Any]:
    """The pages as greyscale images at `dpi` for OCR: a scanned page that is one image at
    that resolution is that image, decoded (the scan's own pixels, without the cost of
    rendering them again); any other page is rendered by PDFium."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    for i in indexes:
        image = _page_scan(reader.pages[i], dpi)
        yield image if image is not None else next(render_pages(data, [i], dpi))


def _page_scan(page: Any, dpi: int) -> Any:
    """The page's only image, greyscale, if it covers the page at about `dpi` unturned."""
    try:
        if int(page.get("/Rotate") or 0) % 360:
            return None
        images = page.images
        if len(images) != 1:
            return None
        image = images[0].image
        inches = float(page.mediabox.width) / 72
        if image is None or inches <= 0 or abs(image.width / inches - dpi) > 0.1 * dpi:
            return None
        return image.convert("L")
    except Exception:  # noqa: BLE001 - an image pypdf cannot decode is rendered instead
        return None


def _specked(image: Any, dpi: int) -> bool:
    """Whether a page needs its specks removed before OCR: below 250 dpi a speck is the size
    of a letter's detail, so always; at 300 dpi only when the blank left margin shows more
    than one speck per thousand pixels (the median costs about a third of a page's OCR,
    and Tesseract reads a lightly specked 300-dpi page as well without it)."""
    if dpi < 250:
        return True
    width, height = image.size
    margin = image.crop((width // 100, height // 20, width // 20, height - height // 20))
    dark = sum(margin.histogram()[:128])
    return dark > 0.001 * max(1, margin.width * margin.height)


def recognise(image: Any, dpi: int = OCR_DPI) -> tuple[str, int]:
    """One page image's text by Tesseract, line by line, with the number of real words
    read with confidence (noise and photographs give few or none)."""
    import pytesseract
    from PIL import ImageFilter

    if _specked(image, dpi):
        # Scanner specks break letters apart; a 3-pixel median removes them, keeps strokes.
        image = image.filter(ImageFilter.MedianFilter(3))
    image.format = "PPM"  # greyscale is written as PGM: no PNG compression round trip
    data = pytesseract.image_to_data(
        image,
        lang="eng",
        config=f"--psm 3 --dpi {dpi}",
        output_type=pytesseract.Output.DICT,
        timeout=OCR_PAGE_TIMEOUT_S,  # a page Tesseract cannot finish ends the job, not hangs it
    )
    lines: dict[tuple[int, int, int], list[str]] = {}
    real = 0
    for i, word in enumerate(data["text"]):
        word = (word or "").strip()
        try:
            conf = float(data["conf"][i])
        except (TypeError, ValueError):
            conf = -1
        if not word or conf < 0:
            continue
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        lines.setdefault(key, []).append(word)
        if conf >= _MIN_WORD_CONFIDENCE and _REAL_WORD.search(word):
            real += 1
    return "\n".join(" ".join(words) for words in lines.values()), real


def ocr_pdf_pages(
    data: bytes,
    indexes: list[int],
    progress: Progress | None = None,
    *,
    dpi: int = OCR_DPI,
    workers: int | None = None,
) -> list[tuple[str, int]]:
    """(text, real words) of each page in `indexes`, recognised in parallel."""
    if tesseract_available() is None:
        raise DocumentError(
            "the PDF is scanned (no text layer) and Tesseract OCR is not installed on the "
            "server (scripts/system-packages installs it)"
        )
    # Each Tesseract reads one page on one core; its own OpenMP threads would only contend.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    count = workers or ocr_workers()
    done = 0
    lock = threading.Lock()

    def finished(_: Future[tuple[str, int]]) -> None:
        nonlocal done
        slots.release()
        with lock:
            done += 1
            if progress is not None:
                progress(done, len(indexes), "recognised")

    futures: list[Future[tuple[str, int]]] = []
    slots = threading.BoundedSemaphore(count * 2)  # rendered pages waiting: bounded memory
    try:
        with ThreadPoolExecutor(max_workers=count, thread_name_prefix="ocr") as pool:
            for image in scanned_images(data, indexes, dpi):
                slots.acquire()
                future = pool.submit(recognise, image, dpi)
                future.add_done_callback(finished)
                futures.append(future)
            return [f.result() for f in futures]
    except DocumentError:
        raise
    except Exception as err:  # noqa: BLE001 - PDFium or Tesseract refusing a page
        raise DocumentError(f"cannot recognise the scanned pages ({_one_line(err)})") from None


# -- Word --------------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _docx(data: bytes) -> Document:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        raise DocumentError("not a readable Word document (a damaged ZIP container)") from None
    if "word/document.xml" not in names:
        raise DocumentError(
            "the file is a ZIP archive, not a Word document (.docx): upload the resolution itself"
        )
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as err:  # noqa: BLE001 - python-docx raises many kinds for a bad part
        raise DocumentError(f"not a readable Word document ({_one_line(err)})") from None
    numbering = _Numbering(document)
    pages: list[list[str]] = [[]]
    for block in document.element.body.iterchildren():
        if block.tag == f"{_W}p":
            _paragraph(block, numbering, pages)
        elif block.tag == f"{_W}tbl":
            for cell_p in block.iter(f"{_W}p"):
                _paragraph(cell_p, numbering, pages)
        if len(pages) > MAX_PAGES:
            raise _too_long(len(pages))
    return Document(["\n".join(lines) for lines in pages], "docx")


def _paragraph(p: Any, numbering: _Numbering, pages: list[list[str]]) -> None:
    """A paragraph's text with its automatic number ("12.") in front; an explicit page
    break starts a new page."""
    label = numbering.label(p) if _has_text(p) else ""
    parts: list[str] = []

    def flush() -> None:
        nonlocal label
        text = "".join(parts).strip()
        if text:
            pages[-1].append(f"{label} {text}" if label else text)
            label = ""

    for node in p.iter(f"{_W}t", f"{_W}tab", f"{_W}br"):
        if node.tag == f"{_W}t":
            parts.append(node.text or "")
        elif node.tag == f"{_W}tab":
            parts.append(" ")
        elif node.get(f"{_W}type") == "page":
            flush()
            parts = []
            pages.append([])
    flush()


def _has_text(p: Any) -> bool:
    return any((t.text or "").strip() for t in p.iter(f"{_W}t"))


class _Numbering:
    """Word's automatic paragraph numbers (w:numPr), counted as Word counts them."""

    def __init__(self, document: Any) -> None:
        self.levels: dict[tuple[str, int], tuple[str, str, int]] = {}  # fmt, text, start
        self.abstract_of: dict[str, str] = {}
        self.counters: dict[str, list[int]] = {}
        self.style_num: dict[str, tuple[str, int]] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            root = None
        if root is not None:
            for num in root.iter(f"{_W}num"):
                ref = num.find(f"{_W}abstractNumId")
                if ref is not None:
                    self.abstract_of[num.get(f"{_W}numId")] = ref.get(f"{_W}val")
            for abstract in root.iter(f"{_W}abstractNum"):
                aid = abstract.get(f"{_W}abstractNumId")
                for lvl in abstract.iter(f"{_W}lvl"):
                    fmt = lvl.find(f"{_W}numFmt")
                    text = lvl.find(f"{_W}lvlText")
                    start = lvl.find(f"{_W}start")
                    self.levels[(aid, int(lvl.get(f"{_W}ilvl") or 0))] = (
                        fmt.get(f"{_W}val") if fmt is not None else "decimal",
                        text.get(f"{_W}val") if text is not None else "%1.",
                        int(start.get(f"{_W}val")) if start is not None else 1,
                    )
        for style in document.styles.element.iter(f"{_W}style"):
            num_pr = style.find(f"{_W}pPr/{_W}numPr")
            if num_pr is not None:
                num_id = num_pr.find(f"{_W}numId")
                ilvl = num_pr.find(f"{_W}ilvl")
                if num_id is not None:
                    self.style_num[style.get(f"{_W}styleId")] = (
                        num_id.get(f"{_W}val"),
                        int(ilvl.get(f"{_W}val")) if ilvl is not None else 0,
                    )

    def label(self, p: Any) -> str:
        found = self._num_pr(p)
        if found is None:
            return ""
        num_id, ilvl = found
        aid = self.abstract_of.get(num_id)
        if aid is None or num_id == "0":
            return ""
        counts = self.counters.setdefault(aid, [0] * 9)
        ilvl = min(max(ilvl, 0), 8)
        start = self.levels.get((aid, ilvl), ("decimal", "%1.", 1))[2]
        counts[ilvl] = start if counts[ilvl] == 0 else counts[ilvl] + 1
        for deeper in range(ilvl + 1, 9):
            counts[deeper] = 0
        fmt, text, _ = self.levels.get((aid, ilvl), ("decimal", f"%{ilvl + 1}.", 1))
        if fmt in ("bullet", "none"):
            return "\u2022" if fmt == "bullet" else ""

        def value(m: re.Match[str]) -> str:
            level = int(m.group(1)) - 1
            n = counts[level] or self.levels.get((aid, level), ("decimal", "", 1))[2]
            level_fmt = self.levels.get((aid, level), ("decimal", "", 1))[0]
            return _format_number(n, level_fmt)

        return re.sub(r"%([1-9])", value, text).strip()

    def _num_pr(self, p: Any) -> tuple[str, int] | None:
        num_pr = p.find(f"{_W}pPr/{_W}numPr")
        if num_pr is not None:
            num_id = num_pr.find(f"{_W}numId")
            ilvl = num_pr.find(f"{_W}ilvl")
            if num_id is not None:
                return num_id.get(f"{_W}val"), int(ilvl.get(f"{_W}val")) if ilvl is not None else 0
        style = p.find(f"{_W}pPr/{_W}pStyle")
        if style is not None:
            return self.style_num.get(style.get(f"{_W}val"))
        return None


_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
          (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))  # fmt: skip


def _format_number(n: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a") + (n - 1) % 26)
        return letter.upper() if fmt == "upperLetter" else letter
    if fmt in ("lowerRoman", "upperRoman"):
        out = ""
        for value, numeral in _ROMAN:
            while n >= value:
                out, n = out + numeral, n - value
        return out.upper() if fmt == "upperRoman" else out
    return str(n)
