"""Reading a resolution file into its parse: the one path the CLI (`clearance conditions
parse` / `import`), the web import and the JSON API (`POST /api/v1/resolutions`) share.

The file becomes pages (operations/documents.py: text, PDF, scanned PDF through OCR,
Word), the pages become the parse (rules/conditions/parser.py, pure), with the
jurisdiction's own names of its departments. Anything wrong is a `ResolutionError` whose
message is one line; nothing is stored by reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from models.conditions import ParsedResolution
from operations.documents import DocumentError, Progress, read_document
from rules.conditions.gates import MilestoneSet
from rules.conditions.parser import ResolutionError, read_pages
from rules.kernel.jurisdictions import default_jurisdiction

__all__ = ["Progress", "ResolutionError", "extract_text", "read_resolution"]


def _aliases() -> Mapping[str, str]:
    """The deployment's jurisdiction's names of its departments (its data file)."""
    import os

    try:
        city = default_jurisdiction(os.environ.get("CLEARANCE_DEFAULT_JURISDICTION", ""))
    except (ValueError, LookupError):
        return {}
    return {
        " ".join(alias.lower().split()): d.key
        for d in city.department_details
        for alias in d.aliases
    }


def read_resolution(
    data: bytes,
    filename: str = "",
    milestones: MilestoneSet | None = None,
    progress: Progress | None = None,
    department_aliases: Mapping[str, str] | None = None,
) -> ParsedResolution:
    """A resolution file's bytes to a parse with at least one condition, or ResolutionError
    naming in one line what is wrong (encrypted, damaged, empty, too long, no text, not a
    resolution, no conditions)."""
    try:
        document = read_document(data, filename, progress)
    except DocumentError as err:
        raise ResolutionError(f"cannot read the file: {err}") from None
    aliases = _aliases() if department_aliases is None else department_aliases
    parsed = read_pages(document.pages, milestones, aliases)
    if document.ocr_pages:
        shown = _pages(document.ocr_pages)
        plural = "s" if len(document.ocr_pages) > 1 else ""
        parsed.warnings.insert(0, f"Read by OCR: page{plural} {shown}; check numbers and words")
    return parsed


def _pages(numbers: list[int]) -> str:
    runs: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(runs)


def extract_text(path: str | Path, progress: Progress | None = None) -> str:
    """A file's text, its pages separated by form feeds (for the benchmarks and tests that
    parse text directly). Raises ValueError naming what is wrong, OSError when unreadable."""
    document = read_document(Path(path).read_bytes(), Path(path).name, progress)
    return "\f".join(document.pages)
