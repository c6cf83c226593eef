"""Page furniture is not content (step 0 of rules.conditions.parser): running headers and
footers ("Resolution No. 2025-34", "Page 12 of 15", a city's name and date repeated at the
top or foot of every page), page numbers and pleading-paper line numbers are removed from
each page before the pages are joined, so a footer never becomes a heading and a
condition that runs across a page break stays one condition."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_ZONE = 4  # lines at the top and at the foot of a page where furniture sits
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s*)?[-\u2013(]?\s*\d{1,4}\s*[-\u2013)]?\s*(?:of\s*\d{1,4})?\s*$", re.I
)
# A condition or item label at the start: such a line is content unless it repeats exactly.
_LABELLED = re.compile(r"^\s*\(?[0-9A-Za-z]{1,6}[.)]\s+[A-Za-z]")
_LINE_NUMBER = re.compile(r"^\s*(\d{1,2})(?:\s+|$)")


def _shape(line: str) -> str:
    """A line as furniture repeats it: numbers (page, date) may change from page to page."""
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _zones(lines: list[str]) -> list[int]:
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:_ZONE] + filled[-_ZONE:]))


def remove_furniture(pages: Sequence[str]) -> list[str]:
    """The pages without their running headers and footers, page numbers and line numbers."""
    split = [_without_line_numbers(page.replace("\r\n", "\n").split("\n")) for page in pages]
    if len(split) < 2:
        return ["\n".join(lines) for lines in split]
    seen: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    for lines in split:
        zone = {_shape(lines[i]) for i in _zones(lines)}
        seen.update(zone)
        exact.update({" ".join(lines[i].split()) for i in _zones(lines)})
    needed = 2 if len(split) <= 4 else max(2, len(split) // 3)
    out = []
    for lines in split:
        drop = set()
        for i in _zones(lines):
            line = lines[i]
            text = " ".join(line.split())
            if _PAGE_NUMBER.match(line) or (
                len(text) <= 120
                and seen[_shape(line)] >= needed
                and (not _LABELLED.match(line) or exact[text] >= needed)
            ):
                drop.add(i)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out


def _without_line_numbers(lines: list[str]) -> list[str]:
    """Pleading paper numbers its lines 1, 2, 3 ... at the left margin, from 1 on each page:
    when most lines of a page start with the next number of that run, the numbers are
    dropped."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 5:
        return lines
    run: list[int] = []
    expected = 1
    for i in filled:
        m = _LINE_NUMBER.match(lines[i])
        if m is not None and int(m.group(1)) == expected:
            run.append(i)
            expected += 1
    if len(run) < 0.8 * len(filled):
        return lines
    out = list(lines)
    for i in run:
        out[i] = _LINE_NUMBER.sub("", out[i], count=1)
    return out
