"""The layout of a resolution's text: page markers and running headers/footers removed
(step 1 of rules.conditions.parser), the title and the conditions section found (step 2),
wrapped lines joined (step 3), and the adoption date read from the adoption block."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rules.conditions.condition_headings import (
    PHONE,
    caps,
    heading_kind,
    heading_shape,
    section_heading,
)
from rules.conditions.condition_labels import TERMINAL, starts_with_label
from rules.conditions.gates import DEFAULT, MilestoneSet
from rules.conditions.page_furniture import continues

# ------------------------------------------------------------------ normalisation

_MARKER = re.compile(r"(?<![\w.,/$%-])(page\s+)?(\d{1,4})\s*of\s*(\d{1,4})(?![\w%/-]|[.,]\d)", re.I)
_BARE_PAGE = re.compile(r"^\s*(?:(?:page\s+)?\d{1,4}|[-\u2013]\s*\d{1,4}\s*[-\u2013])\s*$", re.I)
_HEADERISH = re.compile(r"\b(?:page|resolution|exhibit|ordinance|attachment|conditions)\b", re.I)
_MULTISPACE = re.compile(r"[ \t\u00a0]+")


def strip_markers(text: str) -> list[str]:
    """Lines with page markers removed wherever they sit (own line, line end, mid-sentence)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    totals = Counter(m.group(3) for m in _MARKER.finditer(text))

    def drop(m: re.Match[str]) -> str:
        page, total = int(m.group(2)), int(m.group(3))
        is_marker = page <= total and (m.group(1) is not None or totals[m.group(3)] >= 2)
        return " " if is_marker else m.group(0)

    out = []
    for raw in text.split("\n"):
        line = _MULTISPACE.sub(" ", _MARKER.sub(drop, raw)).strip()
        if line and not _BARE_PAGE.match(line):
            out.append(line)
    return out


def drop_running_lines(lines: list[str], ms: MilestoneSet = DEFAULT) -> list[str]:
    """Remove running headers/footers: a short line printed on several pages. Where such a
    line carries on the sentence above it, it is the words of a condition (a formula's
    wrapped tail, "satisfaction of the City Engineer.") and stays; so do the section
    headings a resolution repeats under each department ("PRIOR TO OCCUPANCY") and the
    departments it repeats under each milestone."""
    counts = Counter(lines)
    running = {
        line
        for line, n in counts.items()
        if len(line) <= 100
        and not starts_with_label(line)
        and not section_heading(line)
        and (n >= 3 or (n >= 2 and _HEADERISH.search(line) and re.search(r"\d", line)))
    }
    out: list[str] = []
    for i, line in enumerate(lines):
        above = next((kept for kept in reversed(out) if kept.strip()), "")
        if line not in running or continues(above, line) or _heads_conditions(lines, i, ms):
            out.append(line)
    return out


def _heads_conditions(lines: list[str], i: int, ms: MilestoneSet) -> bool:
    """A department or milestone heading over the conditions that follow it (directly,
    or after one more heading): a resolution ordered by milestone repeats its departments'
    names under each one. A running header carries a page, a date or "Resolution No.";
    a department's phone number does not count. A repeated heading that names neither a
    department nor a milestone ("CITY OF ALBA", the project's name) is the running header
    of text that lost its page breaks, however often it falls between two conditions."""
    line = lines[i]
    body = heading_shape(line)
    if body is None or _HEADERISH.search(line):
        return False
    if heading_kind(body, ms, True) == "section" and not ms.detect(body, heading=True):
        return False
    if any(c.isdigit() for c in PHONE.sub("", line)):
        return False
    after = lines[i + 1 : i + 3]
    if after and starts_with_label(after[0]):
        return True
    return len(after) == 2 and heading_shape(after[0]) is not None and starts_with_label(after[1])


# ------------------------------------------------------------------ the section

_TITLE = re.compile(r"^\s*(?:a\s+)?resolution\s+(?:of|approving|adopting|granting|to)\b", re.I)
_TITLE_NO = re.compile(r"^\s*resolution\s+(?:no\b|number\b|#)", re.I)
_SUBJECT = re.compile(r"^\s*(?:re|subject)\s*:\s*(\S.*)$", re.I)
_TITLE_STOP = re.compile(r"^\s*(?:whereas|be it|now,? therefore|section\s+\d)", re.I)
_COA_HEADING = re.compile(
    r"^\s*(?:exhibit\s+[a-z0-9]{1,3}\s*[-\u2013\u2014:.,]?\s*)?"
    r"(?:(?:project|standard|final|revised|recommended|special|general)\s+)*"
    r"conditions\s+of\s+approval\s*(?:\([^)]*\))?\s*:?\s*$",
    re.I,
)
_COA_INTRO = re.compile(
    r"(?:\bconditions?\b[^.]{0,80}\b(?:below|following|as follows)\b"
    r"|\b(?:following|these)\s+conditions\b)[^.]*:\s*$",
    re.I,
)
_EXHIBIT_ONLY = re.compile(r"^\s*exhibit\s+[a-z0-9]{1,3}\s*$", re.I)
_END = re.compile(
    r"^\s*(?:\*{3,}\s*$|passed,?\s+(?:approved\s+)?(?:and\s+)?adopted\b|approved\s+and\s+adopted\b"
    r"|adopted\s+(?:this|on)\b|it\s+is\s+hereby\s+certified\b"
    r"|i,?\s.{0,120}?\bhereby\s+certify\b|end\s+of\s+(?:conditions|exhibit)\b"
    r"|(?:now,?\s+therefore,?\s+)?be\s+it\s+(?:further\s+)?resolved\b|ayes\s*:"
    # a decision letter's closing: the appeal notice, the signature, a certification block
    r"|(?:this|the)\s+(?:decision|action|approval|determination)\s+may\s+be\s+appealed\b"
    r"|(?:appeal\s+(?:period|rights)|certification)\s*:?\s*$|sincerely\b|respectfully\b)",
    re.I,
)
_STARS = re.compile(r"\s*\*{3,}.*$")


def resolution_title(lines: list[str], before: int) -> tuple[str, bool]:
    idx = [i for i in range(min(before, len(lines))) if _TITLE.match(lines[i])]
    if not idx:
        idx = [i for i, line in enumerate(lines) if _TITLE.match(line)]
    if not idx:
        idx = [i for i in range(min(before, len(lines))) if _TITLE_NO.match(lines[i])]
    if not idx:
        # A decision letter: its subject line ("RE: Minor Use Permit MUP-25-0044 ...").
        subject = next((m for line in lines[:before] if (m := _SUBJECT.match(line))), None)
        if subject:
            return subject.group(1).strip(), True
        return (lines[0] if lines else ""), False
    i = idx[-1] if idx[-1] < before else idx[0]
    parts = [lines[i]]
    for line in lines[i + 1 : i + 9]:
        if _TITLE_STOP.match(line) or not caps(line) or _COA_HEADING.match(line):
            break
        parts.append(line)
    return " ".join(parts), True


def conditions_lines(lines: list[str], start: int, end: int) -> list[str]:
    """The lines of the conditions section without its heading and "EXHIBIT A" lines."""
    return [
        line
        for line in lines[start:end]
        if not (_COA_HEADING.match(line) or _EXHIBIT_ONLY.match(line))
    ]


def conditions_bounds(lines: list[str]) -> tuple[int, int, bool]:
    """(first line of the conditions, line after the last, found a start)."""
    first_title = next((i for i, line in enumerate(lines) if _TITLE.match(line)), 0)
    start = None
    for i in range(first_title, len(lines)):
        if _COA_HEADING.match(lines[i]) or _COA_INTRO.search(lines[i]):
            start = i + 1
            break
        # An introduction wrapped by a PDF or OCR: "... subject to the conditions" / "below:"
        wrapped = i > first_title and lines[i].endswith(":") and len(lines[i]) < 40
        if wrapped and _COA_INTRO.search(f"{lines[i - 1]} {lines[i]}"):
            start = i + 1
            break
    found = start is not None
    if start is None:
        start = first_title
    end = len(lines)
    for i in range(start, len(lines)):
        if _END.match(lines[i]):
            end = i
            break
        if _STARS.search(lines[i]) and not lines[i].startswith("*"):
            lines[i] = _STARS.sub("", lines[i])  # "... Alder Avenue. *****" closes the list
            end = i + 1
            break
    return start, end, found


_INITIALISM_END = re.compile(r"(?:^|\s)(?:[A-Z]\.){2,}$")  # "... meeting the U.S." + "EPA Tier 2"


def join_wrapped(lines: list[str], styles: frozenset[str] = frozenset({"num", "cno"})) -> list[str]:
    """A line that ends mid-sentence continues on the next (page breaks, PDF wraps)."""
    numbered = "num" not in styles
    out: list[str] = []
    for line in lines:
        if out:
            prev = out[-1]
            if (
                (prev[-1] not in TERMINAL or _INITIALISM_END.search(prev))
                and not starts_with_label(line, styles)
                and heading_shape(prev, numbered) is None
                and heading_shape(line, numbered) is None
            ):
                out[-1] = f"{prev} {line}"
                continue
        out.append(line)
    return out


# ------------------------------------------------------------------ adoption date

_ADOPTION_LINE = re.compile(
    r"^\s*(?:passed|approved|adopted|it\s+is\s+hereby\s+certified|i,?\s.{0,120}?\b"
    r"hereby\s+certify|date\s+of\s+(?:decision|approval|action|adoption)|(?:decision|approval|"
    r"action|adoption)\s+date|dated?\s*:)",
    re.I,
)
_MONTH_NAMES = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
)
_ADOPTION_DATE = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+day\s+of\s+(?P<month>{_MONTH_NAMES}),?\s+"
    rf"(?P<year>\d{{4}})|(?P<date>{_MONTH_NAMES}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2})",
    re.I,
)


def adoption_date(lines: Sequence[str], start: int = 0, end: int = 0) -> str | None:
    """The adoption (or decision) date from the adoption block or certification, ISO: the
    one right after the conditions first, then the nearest before them (a decision letter's
    date), so a council packet with other resolutions gives this one's date."""
    from rules.conditions.time_limits import iso_date

    order = [*range(end, min(len(lines), end + 60)), *range(min(start, len(lines)) - 1, -1, -1)]
    for i in order:
        line = lines[i]
        if not _ADOPTION_LINE.match(line):
            continue
        m = _ADOPTION_DATE.search(" ".join(lines[i : i + 2])[:300])
        if not m:
            continue
        if m.group("date"):
            found = iso_date(m.group("date"))
        else:
            found = iso_date(f"{m.group('month')} {m.group('day')} {m.group('year')}")
        if found:
            return found
    return None
