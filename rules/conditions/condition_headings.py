"""Headings of the conditions section (step 4 of rules.conditions.parser): what is shaped
like a heading, which headings name a department and which a section (a milestone or a
topic), and the preamble sentences that introduce conditions with a milestone."""

from __future__ import annotations

import re

from rules.conditions.condition_labels import (
    TERMINAL,
    has_condition_label,
    starts_with_condition,
    starts_with_label,
)
from rules.conditions.gates import MilestoneSet

# Words a title-case heading leaves in lower case.
_SMALL_WORDS = "a an the and or of to in for on at by with from as per vs via into nor but its"
_SMALL = frozenset(_SMALL_WORDS.split())
_URL = re.compile(r"https?://|www\.", re.I)
_SENTENCE_INSIDE = re.compile(r"[a-z]{2,}\. [A-Z]")
_LETTERED = re.compile(r"^(?:[A-Z]|[IVX]{1,4})\.\s+(?=[A-Z])")
# "1. GENERAL", "2.0 PLANNING": a section number, where conditions are not numbered "N."
_NUMBERED = re.compile(r"^\d{1,2}(?:\.0)?\.?\s+(?=[A-Z])")
# Topic sections: they name a subject, neither who clears the condition nor when.
_TOPIC_WORDS = frozenset(
    re.split(
        r"\s+",
        "general standard special operational operating ongoing miscellaneous administrative "
        "other additional project project-specific site-specific specific permanent continuing "
        "use uses conditions condition requirements provisions of approval and & the "
        "applicable all phase phases",
    )
)
_STRONG_DEPARTMENT = re.compile(
    r"\b(?:department|division|district|agency|bureau|office|commission|authority|services)\b",
    re.I,
)
PHONE = re.compile(
    r"\s*(?:[-\u2013\u2014|,:]\s*)?(?:(?:phone|tel\.?|telephone|ph\.?)\s*:?\s*)?"
    r"\(?\b\d{3}\)?[\s.-]*\d{3}[\s.-]\d{4}\b.*$",
    re.I,
)
_MILESTONE_OPENER = re.compile(
    r"^(?:prior to|before|during|after|upon|at the time of|until)\b", re.I
)


def section_heading(line: str) -> bool:
    """A heading that orders the conditions under it ("PRIOR TO OCCUPANCY", "GENERAL"):
    a resolution repeats these under each department, and none is a running header."""
    body = line.strip().rstrip(":")
    return bool(body) and (bool(_MILESTONE_OPENER.match(body)) or is_topic(body))


def caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) / len(letters) >= 0.85


def heading_label(line: str, numbered: bool = False) -> re.Match[str] | None:
    """The letter, roman or (where conditions are not numbered "N.") section number in front
    of a capitals heading ("A. GENERAL", "II. PLANNING", "3. ENGINEERING")."""
    m = _LETTERED.match(line) or (_NUMBERED.match(line) if numbered else None)
    if m and caps(line[m.end() :]) and len(line) - m.end() >= 6:
        return m
    return None


def heading_shape(line: str, numbered: bool = False) -> str | None:
    """The heading text if the line is shaped like a heading, else None (no lookahead)."""
    m = heading_label(line, numbered)
    body = line[m.end() :] if m else line
    if body is line and starts_with_label(line):
        return None
    if not (2 <= len(body) <= 150) or len(body.split()) > 20:
        return None
    if not body[0].isupper() or body[-1] in ".,;" or _URL.search(body):
        return None
    if _SENTENCE_INSIDE.search(body):
        return None
    words = [w.strip("()[],:;&\"'\u201c\u201d") for w in re.split(r"[\s/]+", body)]
    words = [w for w in words if any(c.isalpha() for c in w)]
    if not words:
        return None
    for w in words:
        first = next(c for c in w if c.isalpha())
        if not first.isupper() and w.lower() not in _SMALL:
            return None
    return body


def clean_heading(text: str) -> str:
    text = PHONE.sub("", text).strip()
    return text.rstrip(" :-\u2013\u2014|,").strip()


def classify_headings(
    lines: list[str], ms: MilestoneSet, styles: frozenset[str] = frozenset({"num", "cno"})
) -> list[str | None]:
    """'department', 'section' or None per line, with the lookahead checks of step 4."""
    numbered = "num" not in styles
    shapes = [heading_shape(line, numbered) for line in lines]
    kinds: list[str | None] = [None] * len(lines)
    have_department = False
    for i, body in enumerate(shapes):
        if body is None:
            if _is_preamble_sentence(lines, i, ms, styles):
                kinds[i] = "preamble"
            continue
        if body.endswith(":") and not (
            i + 1 < len(lines) and starts_with_condition(lines[i + 1], styles)
        ):
            continue
        # Followed, after any preamble, by a condition or another heading; a sub-item first
        # means the line is text inside a condition ("Specifically;", a table caption).
        ok = False
        for j in range(i + 1, len(lines)):
            if shapes[j] is not None or has_condition_label(lines[j], styles):
                ok = True
                break
            if starts_with_label(lines[j], styles):
                break
        if ok:
            kinds[i] = heading_kind(body, ms, have_department)
            have_department = have_department or kinds[i] == "department"
    return kinds


def _is_preamble_sentence(
    lines: list[str], i: int, ms: MilestoneSet, styles: frozenset[str] = frozenset({"num", "cno"})
) -> bool:
    """A sentence that introduces the conditions after it with a milestone ("The following
    shall be satisfied prior to issuance of a building permit:"): it starts a sentence,
    carries no label, ends with a colon, names a milestone and is followed by a condition."""
    line = lines[i]
    return (
        line.endswith(":")
        and i + 1 < len(lines)
        and starts_with_condition(lines[i + 1], styles)
        and not starts_with_label(line)
        and (i == 0 or lines[i - 1][-1] in TERMINAL)
        and bool(ms.detect(line))
    )


def heading_kind(body: str, ms: MilestoneSet, have_department: bool) -> str:
    """A department (who clears: a division, district or agency, often with a phone line), or
    a section: a milestone section gives its gate, a topic section ("GENERAL") none."""
    text = body.lower()
    if _MILESTONE_OPENER.match(body) and ms.detect(body, heading=True):
        return "section"
    if is_topic(body):
        return "section"
    if PHONE.search(body):
        return "department"
    if ms.detect(body, heading=True) and not _STRONG_DEPARTMENT.search(body):
        return "section"  # "GRADING PERMIT", "Final Map Requirements"
    if caps(body):
        if any(re.search(rf"\b{re.escape(k)}", text) for k in ms.department_keywords):
            return "department"
        return "section"
    if _STRONG_DEPARTMENT.search(body):
        return "department"
    return "section"


def is_topic(body: str) -> bool:
    words = [w for w in re.split(r"[\s/,:()\-\u2013\u2014]+", body.lower()) if w]
    return bool(words) and all(w in _TOPIC_WORDS for w in words)
