"""Citations as people read them: the law's title, with the document line apart.

Data files cite the law the way it was read, often with the seed document's line
("CMC 17.38.100, fod-overlay-ordinance.txt:435"). Pages, letters and calendar
entries show the title ("<City> Municipal Code § 17.38.100"); the ledger keeps the line
as its source. A citation naming only a document line takes the title of the section the
line falls in (rules/data/citations.json). References to Clearance's own design notes
("shot-clocks.md 8.9") are not law and never shown. Pure: the data is read at import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "citations.json"

# A seed document's line: "file.txt:435", "file.txt:468-469", "file.txt:2109 (and :3230)".
_DOCUMENT_LINE = re.compile(
    r"(?P<doc>[A-Za-z0-9_][A-Za-z0-9_.-]*\.txt)"
    r"(?::(?P<first>\d+)(?:-\d+)?)?"
    r"(?:\s*\((?:and\s*)?:\d+(?:-\d+)?\))?"
)
# Our own design notes and where they live: never a citation a user should see.
_DESIGN_NOTE = re.compile(
    r"(?:(?:shared/)?reference/)?[a-z][a-z-]*\.md"
    r"(?:\s*(?:§|section)?\s*\d+(?:\.\d+)*(?:\s*[-/,]\s*§?\s*\d+(?:\.\d+)*)*)?"
    r"|seed files in shared/seeds"
)
# Separators between the parts of one citation, kept so untouched parts read as written.
_PARTS = re.compile(r"(\s*;\s*|,\s+(?=\D))")


@dataclass(frozen=True)
class Citation:
    title: str  # what a person reads: the law
    source: str  # the document lines it was read from, for the ledger ("" when none)


@dataclass(frozen=True)
class _Section:
    document: str
    first: int
    last: int
    title: str


def _load() -> tuple[tuple[tuple[re.Pattern[str], str], ...], dict[str, str], tuple[_Section, ...]]:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    abbreviations = tuple(
        (re.compile(rf"\b{re.escape(a['short'])}\s+(?=\d)"), a["title"] + " ")
        for a in raw.get("abbreviations", [])
    )
    sections = tuple(
        _Section(s["document"], int(s["from"]), int(s["to"]), s["title"])
        for s in raw.get("sections", [])
    )
    return abbreviations, dict(raw.get("documents", {})), sections


_ABBREVIATIONS, _DOCUMENTS, _SECTIONS = _load()


def _section_title(document: str, line: str | None) -> str:
    if line is not None:
        n = int(line)
        for section in _SECTIONS:
            if section.document == document and section.first <= n <= section.last:
                return section.title
    return _DOCUMENTS.get(document, "")


def _expand(text: str) -> str:
    for pattern, title in _ABBREVIATIONS:
        text = pattern.sub(title, text)
    return text


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)", "", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    # What is left of "shot-clocks.md 8.9 (audited rebase)" is "(audited rebase)".
    if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
        text = text[1:-1].strip()
        text = text[:1].upper() + text[1:]
    return text


@lru_cache(maxsize=4096)
def cite(text: str | None) -> Citation:
    """The title and the source of one citation as a data file or a ledger states it."""
    raw = str(text or "").strip()
    if not raw:
        return Citation("", "")
    sources: list[str] = []
    derived: list[str] = []
    kept: list[str] = []
    pieces = _PARTS.split(raw)
    for i in range(0, len(pieces), 2):
        part = pieces[i]
        separator = pieces[i - 1] if i else ""
        found = list(_DOCUMENT_LINE.finditer(part))
        if found:
            for m in found:
                sources.append(m.group(0))
                title = _section_title(m.group("doc"), m.group("first"))
                rest = re.sub(r"\s+", " ", _DOCUMENT_LINE.sub("", part)).strip(" ,;()")
                title = f"{title} ({rest})" if title and rest else title or rest
                if title and title not in derived:
                    derived.append(title)
            continue
        part = _DESIGN_NOTE.sub("", part)
        if _tidy(part):
            kept.append((separator if kept else "") + part)
    title = _tidy(_expand("".join(kept)))
    if not title:
        title = "; ".join(derived)
    return Citation(title=title, source="; ".join(sources))


def without_sources(text: str | None) -> str:
    """Free text (a consequence, a note) with its document lines and design-note
    references taken out: "... Code Civ. Proc. 1094.8 (CMC 17.38.110, file.txt:435)"
    reads "... Code Civ. Proc. 1094.8 (<City> Municipal Code § 17.38.110)"."""
    out = _DESIGN_NOTE.sub("", _DOCUMENT_LINE.sub("", str(text or "")))
    out = re.sub(r"[,;]\s*(?=[,;)])", "", out)
    out = re.sub(r"\(\s*[,;]?\s*", "(", out)
    out = re.sub(r"\s*\(\s*\)", "", out)
    return re.sub(r"[ \t]+", " ", _expand(out)).strip()


def citation_title(text: str | None) -> str:
    """The law as a person reads it (pages, letters, calendar entries)."""
    return cite(text).title


def citation_source(text: str | None) -> str:
    """The document lines a citation was read from (the ledger's source column)."""
    return cite(text).source
