"""What an uploaded file really is, judged by its content (puremagic's signatures, the
entries of a ZIP container, a text check), against the evidence allow-list: PDF, images,
office documents and plain text. The client's Content-Type and file name never decide."""

from __future__ import annotations

import zipfile
from pathlib import Path

import puremagic

from actions.errors import ActionFailed

ACCEPTED = "PDF, an image (PNG, JPEG, GIF, TIFF, WebP, HEIC, BMP), an office document or plain text"

PDF = "application/pdf"
IMAGES = {
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/tiff",
    "image/webp",
    "image/heic",
    "image/heif",
    "image/bmp",
}
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
# Office 97-2003 files share one container (OLE2); its signature cannot tell a Word file
# from a spreadsheet, so the file name's extension names which.
OLE_BY_EXTENSION = {
    "doc": "application/msword",
    "xls": "application/vnd.ms-excel",
    "ppt": "application/vnd.ms-powerpoint",
}
OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ODF = {
    "application/vnd.oasis.opendocument.text",
    "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
}
RTF_SIGNATURE = b"{\\rtf"
TEXT_PROBE = 64 * 1024
# Markup a browser would run if it were ever served inline: refused even though it is text.
MARKUP_STARTS = (b"<!doctype html", b"<html", b"<svg", b"<?xml", b"<script")


def _zip_type(path: Path) -> str | None:
    """The office format a ZIP container holds, by its entries (not its signature alone:
    every ZIP archive starts alike)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "mimetype" in names:
                declared = archive.read("mimetype").decode("ascii", "replace").strip()
                return declared if declared in ODF else None
    except (zipfile.BadZipFile, OSError, KeyError):
        return None
    if "[Content_Types].xml" not in names:
        return None
    for prefix, mime in (("word/", DOCX), ("xl/", XLSX), ("ppt/", PPTX)):
        if any(n.startswith(prefix) for n in names):
            return mime
    return None


def _is_text(head: bytes) -> bool:
    if not head or b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        # A multi-byte character cut at the end of the probe is still text.
        if err.start < len(head) - 3:
            return False
        text = head[: err.start].decode("utf-8")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\r\n\f")
    return controls == 0


def sniff(path: Path, filename: str) -> str:
    """The content's media type if it is on the allow-list; else ActionFailed (415)
    naming what the file looks like."""
    with open(path, "rb") as f:
        head = f.read(TEXT_PROBE)
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if head.startswith(OLE_SIGNATURE):
        if extension in OLE_BY_EXTENSION:
            return OLE_BY_EXTENSION[extension]
        raise ActionFailed(
            "the file is an Office 97-2003 container but its name does not end in "
            ".doc, .xls or .ppt: save it as PDF or a current office format",
            415,
        )
    if head.startswith(RTF_SIGNATURE):
        return "application/rtf"
    if head.startswith(b"PK\x03\x04"):
        office = _zip_type(path)
        if office is not None:
            return office
        raise ActionFailed(f"the file is a ZIP archive, not a document: upload {ACCEPTED}", 415)
    try:
        matches = puremagic.magic_string(head)  # content only: no hint from the name
    except puremagic.PureError:
        matches = []
    for match in matches:
        if match.mime_type == PDF or match.mime_type in IMAGES:
            return match.mime_type
    if not matches and _is_text(head):
        if head.lstrip().lower().startswith(MARKUP_STARTS):
            raise ActionFailed(f"the file is a web page or markup: upload {ACCEPTED}", 415)
        return "text/csv" if extension == "csv" else "text/plain"
    # Name it by a media type where the signature has one (they are more familiar).
    named = [m.mime_type for m in matches if m.mime_type] + [m.name for m in matches if m.name]
    seen = named[0] if named else ""
    looks = f" (its content is {seen})" if seen else ""
    raise ActionFailed(f"the file's content is not an accepted type{looks}: upload {ACCEPTED}", 415)
