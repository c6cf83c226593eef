"""Page furniture is not content (step 0 of rules.conditions.parser): running headers and
footers ("Resolution No. 2025-34", "Page 12 of 15", a city's name and date repeated at the
same place at the top or foot of page after page), page numbers and pleading-paper line
numbers are removed from each page before the pages are joined, so a footer never becomes
a heading and a condition that runs across a page break stays one condition. A line that
recurs at varying places (the wrapped tail of a formula, "satisfaction of the City
Engineer.") is the conditions' words and stays."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

_ZONE = 4  # lines at the top and at the foot of a page where furniture sits
_DIGITS = re.compile(r"\d+")
# "Page 3 of 40", "- 3 -", "(3)"; and as OCR leaves them, "Page 3.of 40", "Page 21. of 40".
_PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s*)?[-\u2013(]?\s*\d{1,4}\s*(?:[-\u2013)]\s*)?(?:[.,]?\s*of\s*\d{1,4})?\s*$",
    re.I,
)
# A condition or item label at the start: such a line is content unless it repeats exactly.
_LABELLED = re.compile(r"^\s*\(?[0-9A-Za-z]{1,6}[.)]\s+[A-Za-z]")
_LINE_NUMBER = re.compile(r"^\s*(\d{1,2})(?:\s+|$)")
_WORD_CHARS = re.compile(r"[0-9A-Za-z]")


def _shape(line: str) -> str:
    """A line as furniture repeats it: numbers (page, date) may change from page to page."""
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _zones(lines: list[str]) -> list[int]:
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:_ZONE] + filled[-_ZONE:]))


def _places(lines: list[str]) -> dict[int, list[tuple[str, int]]]:
    """Where each line of the top and foot zones sits: ("top", k) for the k-th line with
    words from the top, ("foot", k) from the foot. A running header or footer keeps its
    place page after page; a condition's words that recur (a formula's wrapped tail) fall
    wherever the text puts them. Lines without two letters or digits (an OCR speck read
    as "'") do not count, so they do not shift the places."""
    worded = [i for i, line in enumerate(lines) if len(_WORD_CHARS.findall(line)) >= 2]
    places: dict[int, list[tuple[str, int]]] = {}
    for k, i in enumerate(worded[:_ZONE]):
        places.setdefault(i, []).append(("top", k))
    for k, i in enumerate(reversed(worded[-_ZONE:])):
        places.setdefault(i, []).append(("foot", k))
    return places


def remove_furniture(pages: Sequence[str]) -> list[str]:
    """The pages without their running headers and footers, page numbers and line numbers."""
    split = [_without_line_numbers(page.replace("\r\n", "\n").split("\n")) for page in pages]
    if len(split) < 2:
        return ["\n".join(lines) for lines in split]
    seen: Counter[tuple[str, str, int]] = Counter()
    exact: Counter[tuple[str, str, int]] = Counter()
    for lines in split:
        for i, held in _places(lines).items():
            seen.update({(_shape(lines[i]), *place) for place in held})
            exact.update({(" ".join(lines[i].split()), *place) for place in held})
    needed = 2 if len(split) <= 4 else max(2, len(split) // 3)
    out = []
    for lines in split:
        places = _places(lines)
        drop = set()
        for i in _zones(lines):
            line = lines[i]
            text = " ".join(line.split())
            at = places.get(i, [])
            if _PAGE_NUMBER.match(line) or (
                len(text) <= 120
                and not _continues(lines, i)
                and any(seen[(_shape(line), *place)] >= needed for place in at)
                and (
                    not _LABELLED.match(line)
                    or any(exact[(text, *place)] >= needed for place in at)
                )
            ):
                drop.add(i)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out


def continues(above: str, line: str) -> bool:
    """`line` carries on the sentence of the line above it, so it is a condition's words
    however often it recurs: `above` ends mid-sentence and `line` starts in lower case
    ("... within thirty (30) days of" / "invoice.") or ends a sentence without a number
    in it ("... approval by the" / "Planning Division."). Running headers and footers
    start with a capital and end without a period, or carry a number (a page, a date)."""
    above, line = above.strip(), line.strip()
    if not above or not line or above[-1] in ".:;!?":
        return False
    return line[0].islower() or (line.endswith(".") and not any(c.isdigit() for c in line))


def _continues(lines: list[str], i: int) -> bool:
    above = next((line for line in reversed(lines[:i]) if line.strip()), "")
    return continues(above, lines[i])


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
