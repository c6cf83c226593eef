"""Read a resolution's conditions of approval into ConditionSpecs (reference conditions.md §6).

`parse_resolution` is pure: text in, ParsedResolution out. `extract_text` is the only I/O
(a .txt file, or a PDF through pypdf).

The steps, each built from rules that hold across cities rather than from one city's lines:

1. Normalise: drop PDF page markers wherever they sit ("301 of 403", "293 of403", "Page 3
   of 9"; a "N of M" counts as a marker when its total M recurs or it says "Page"), bare page
   numbers, and running headers/footers (a short line repeated on every page).
2. Find the resolution title ("RESOLUTION OF ...") and the conditions section: a heading
   "CONDITIONS OF APPROVAL" (optionally "EXHIBIT A -"), or a sentence that ends in ":" and
   introduces conditions "below" / "following". It ends at the certification or adoption
   block ("IT IS HEREBY CERTIFIED", "PASSED AND ADOPTED", "*****", "END OF CONDITIONS").
3. Join wrapped lines (a line that ends mid-sentence continues on the next).
4. Headings are short title-case or capitals lines without a closing period. Capitals
   headings naming a department (data: departments.keywords) start a department; headings
   naming a milestone ("PRIOR TO ISSUANCE OF BUILDING PERMITS", "During Construction
   Operations ...") and title-case headings are sections. A heading must be followed by
   conditions or by more headings, never directly by sub-items; one ending in ":" must be
   followed by a condition (this keeps "IMPORTANT NOTICE TO ...:" inside condition 25).
   Text after a heading and before its first condition is its preamble. A sentence that
   ends in ":", names a milestone and is followed by a condition ("The following shall be
   satisfied prior to issuance of a building permit:") is a preamble even between
   conditions: it starts a new part of the section instead of ending the condition above.
5. Conditions are numbered "N." or "Condition No. N". A number is a condition only when it
   is the next in sequence (previous + 1), at a line start or right after a sentence end;
   so "Highway 116. This", "Section 505.2. No" and "Chapter 8. Water" stay text. A jump of
   a few numbers, or a repeat, is accepted at a line start after a finished sentence, with
   a warning.
6. Sub-items: "A.", "a.", "1)", "(a)", "(1)", "(A)", bullets, and "1." inside conditions
   numbered "Condition No. N". A new style nests one level deeper; a style already open
   continues its list only with its next label (B after A), so "U.S." or "Exhibit C." are
   not items. A paragraph without a label continues the deepest open item.
7. Gates (§2): the condition's own words win ("explicit"); else the section in force (the
   last heading or preamble in the department that states one, so "Improvement Plans" and
   its preamble cover the subsections under it until a heading names another milestone);
   else the department's preamble ("department"); else words in its sub-items (quoted plan
   notes excluded) ("explicit"); else ["unspecified"] ("none"). When the own words name
   only monitored periods (during construction, ongoing), the inherited milestone is kept
   too, so an erosion control plan that must also stay on site still holds the grading
   permit (not for event or conditional conditions, which sleep until their trigger).
8. Kinds: rules.conditions.kinds. Related: the same mitigation code, or a substantive
   sentence that two conditions (and no third) share near-verbatim.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from models.conditions import ConditionSpec, ParsedResolution, SubItem
from rules.conditions.gates import DEFAULT, UNSPECIFIED, MilestoneSet, search_text
from rules.conditions.kinds import CONDITIONAL, EVENT, classify_kind
from rules.conditions.lifecycle import DEPARTMENTS, department_of_official
from rules.conditions.time_limits import find_time_limits

# ------------------------------------------------------------------ normalisation

_MARKER = re.compile(r"(?<![\w.,/$%-])(page\s+)?(\d{1,4})\s*of\s*(\d{1,4})(?![\w%/-]|[.,]\d)", re.I)
_BARE_PAGE = re.compile(r"^\s*(?:(?:page\s+)?\d{1,4}|[-\u2013]\s*\d{1,4}\s*[-\u2013])\s*$", re.I)
_HEADERISH = re.compile(r"\b(?:page|resolution|exhibit|ordinance|attachment|conditions)\b", re.I)
_MULTISPACE = re.compile(r"[ \t\u00a0]+")


def _strip_markers(text: str) -> list[str]:
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


def _drop_running_lines(lines: list[str]) -> list[str]:
    """Remove running headers/footers: a short line printed on several pages."""
    counts = Counter(lines)
    running = {
        line
        for line, n in counts.items()
        if len(line) <= 100
        and not _starts_with_label(line)
        and (n >= 3 or (n >= 2 and _HEADERISH.search(line) and re.search(r"\d", line)))
    }
    return [line for line in lines if line not in running]


# ------------------------------------------------------------------ labels

_TERMINAL = ".:;!?)]\"'\u201d\u2019*"
_BULLETS = "\u2022\u00b7\u25aa\u25e6\u25cf\u25a0\uf0b7"
_ROMAN_LOWER = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")
_LABEL = re.compile(
    r"(?P<cno>(?i:condition|coa)\s*(?i:no\.?|number|\#)\s*(?P<cn>\d{1,3})\b\s*[.:)\u2013\u2014-]?)(?=\s)"
    r"|(?P<cnc>(?i:condition)\s+(?P<cncv>\d{1,3})\s*[.:])(?=\s)"
    r"|(?P<dec>(?P<decp>\d{1,2}(?:\.\d{1,3})?)\.(?P<decv>\d{1,3})\.?)(?=\s+\S)"
    r"|(?P<alnum>(?P<alnp>[A-Z])[.\-\u2013](?P<alnv>\d{1,3})\.?)(?=\s+\S)"
    r"|(?P<pfx>(?P<pfxp>[A-Z]{2,6})(?P<pfxs>[\-\u2013]| )(?P<pfxv>\d{1,3})[.:]?)(?=\s+\S)"
    r"|(?P<num>(?P<n>\d{1,3})\.)(?=\s+\S)"
    r"|(?P<np>(?P<npv>\d{1,2})\))(?=\s)"
    r"|(?P<ro>\(?(?P<rov>ii|iii|iv|vi|vii|viii|ix|xi|xii)[.)])(?=\s)"
    r"|(?P<up>(?P<upv>[A-Z])\.)(?=\s)"
    r"|(?P<lo>(?P<lov>[a-z])\.)(?=\s)"
    r"|(?P<pl>\((?P<plv>[a-z])\))(?=\s)"
    r"|(?P<pu>\((?P<puv>[A-Z])\))(?=\s)"
    r"|(?P<pn>\((?P<pnv>\d{1,2})\))(?=\s)"
    rf"|(?P<bu>[{_BULLETS}])(?=\s)"
)
_STYLES = (
    "cno",
    "cnc",
    "dec",
    "alnum",
    "pfx",
    "num",
    "np",
    "ro",
    "up",
    "lo",
    "pl",
    "pu",
    "pn",
    "bu",
)
# Styles that can number a condition; which one does is decided per document (_number_style).
CONDITION_STYLES = frozenset({"cno", "num", "dec", "alnum", "pfx", "np", "pn"})
# Prefixes that number conditions ("COA-1", "COA 1") besides the department prefixes of
# rules/data/departments.json ("PL-3", "ENG-12", "FIRE-2").
_CONDITION_PREFIXES = frozenset({"COA", "COND", "CA", "CC", "SC"})
_DASH_BULLET = re.compile(r"^[-\u2013]\s+(?=\S)")
_CODE = re.compile(
    r"^\s*\(?\s*(?:(?:Mitigation\s+Measure|MM)\s*)?(?P<p>[A-Z]{2,5})\s*-\s*(?P<n>\d{1,2}[a-z]?)\s*\)?"
    r"\s*[:.\u2013\u2014-]\s*"
)


@dataclass(frozen=True)
class _Cand:
    start: int
    end: int
    style: str  # cno | dec | decd | alnum | pfx | num | np | ro | up | lo | pl | pu | pn | bu | nd
    value: int  # ordinal (A=1, a=1, 1=1, ii=2); 0 for bullets
    label: str  # as printed, without closing punctuation ("A", "1", "COA-1", "1.2", "•")
    at_start: bool
    after_colon: bool
    series: str = ""  # what the value counts within: "COA", "A" (A.1), "2" (2.1), ""
    inline: bool = False  # mid-sentence, as in "shall (a) submit ... (b) pay ..."


_INLINE_STYLES = frozenset({"pl", "pn", "ro", "pu"})


@lru_cache(maxsize=8192)
def _candidates(line: str) -> tuple[_Cand, ...]:
    """Label-shaped tokens at a line start or right after a sentence end (bullets anywhere;
    "(a)", "(1)", "ii." mid-sentence as inline candidates)."""
    out: list[_Cand] = []
    m0 = _DASH_BULLET.match(line)
    if m0:
        out.append(_Cand(0, m0.end(), "bu", 0, "-", True, False))
    for m in _LABEL.finditer(line):
        start = m.start()
        before = line[:start].rstrip()
        at_start = not before
        if not at_start and not line[start - 1].isspace():
            continue
        style = next(k for k in _STYLES if m.group(k))
        inline = False
        if not at_start and style != "bu" and before[-1] not in _TERMINAL:
            if style not in _INLINE_STYLES and not (style == "lo" and m.group("lov") == "i"):
                continue
            inline = True
        series = ""
        if style in ("cno", "cnc"):
            value = int(m.group("cn") or m.group("cncv"))
            label, style = str(value), "cno"
        elif style == "dec":
            series, value = m.group("decp"), int(m.group("decv"))
            label = m.group("dec").rstrip(".")
            if "." in series:
                style = "decd"  # "1.1.2": an item of condition 1.1
        elif style == "alnum":
            series, value = m.group("alnp"), int(m.group("alnv"))
            label = m.group("alnum").rstrip(".")
        elif style == "pfx":
            series, value = m.group("pfxp"), int(m.group("pfxv"))
            if series not in _CONDITION_PREFIXES and series not in department_prefixes():
                continue
            if m.group("pfxs") == " " and series not in _CONDITION_PREFIXES:
                continue
            label = m.group("pfx").rstrip(".:")
        elif style == "num":
            value, label = int(m.group("n")), m.group("n")
        elif style in ("np", "pn"):
            label = m.group(style + "v")
            value = int(label)
        elif style == "ro":
            label = m.group("rov")
            value = _ROMAN_LOWER.index(label) + 1
        elif style == "bu":
            value, label = 0, m.group("bu")
        else:
            label = m.group(style + "v")
            value = ord(label.lower()) - ord("a") + 1
            if style in ("lo", "pl") and label == "i" and re.search(r"\s\(?ii[.)]\s", line[start:]):
                style, value = "ro", 1  # "i. ... ii. ...": roman, not the ninth letter
            elif inline and style not in _INLINE_STYLES:
                continue
        out.append(
            _Cand(
                start, m.end(), style, value, label, at_start, before.endswith(":"), series, inline
            )
        )
    return tuple(out)


@lru_cache(maxsize=1)
def department_prefixes() -> dict[str, str]:
    """Numbering prefix -> department key ("ENG" -> "engineering"), from the data."""
    from rules.conditions.lifecycle import department_prefixes as data

    return data()  # imported here: lifecycle is data-heavy and the cache keeps one copy


_COMPOUND = frozenset({"dec", "decd", "alnum", "pfx"})


def _starts_with_label(line: str, styles: frozenset[str] = frozenset()) -> bool:
    """A label starts the line. "14.36", "A.1", "PL-3" count only where they number the
    conditions (`styles`), so "Chapter\n14.36 Erosion ..." stays one sentence elsewhere."""
    c = _candidates(line)
    if not (c and c[0].at_start):
        return False
    if c[0].style in _COMPOUND:
        return c[0].style in styles or (c[0].style == "decd" and "dec" in styles)
    return True


def _starts_with_condition(line: str, styles: frozenset[str] = frozenset({"num", "cno"})) -> bool:
    c = _candidates(line)
    return bool(c) and c[0].at_start and c[0].style in styles


def _has_condition_label(line: str, styles: frozenset[str] = frozenset({"num", "cno"})) -> bool:
    return any(c.style in styles and not c.inline for c in _candidates(line))


# ------------------------------------------------------------------ headings

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
_PHONE = re.compile(
    r"\s*(?:[-\u2013\u2014|,:]\s*)?(?:(?:phone|tel\.?|telephone|ph\.?)\s*:?\s*)?"
    r"\(?\b\d{3}\)?[\s.-]*\d{3}[\s.-]\d{4}\b.*$",
    re.I,
)
_MILESTONE_OPENER = re.compile(
    r"^(?:prior to|before|during|after|upon|at the time of|until)\b", re.I
)


def _caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) / len(letters) >= 0.85


def _heading_label(line: str, numbered: bool = False) -> re.Match[str] | None:
    """The letter, roman or (where conditions are not numbered "N.") section number in front
    of a capitals heading ("A. GENERAL", "II. PLANNING", "3. ENGINEERING")."""
    m = _LETTERED.match(line) or (_NUMBERED.match(line) if numbered else None)
    if m and _caps(line[m.end() :]) and len(line) - m.end() >= 6:
        return m
    return None


def _heading_shape(line: str, numbered: bool = False) -> str | None:
    """The heading text if the line is shaped like a heading, else None (no lookahead)."""
    m = _heading_label(line, numbered)
    body = line[m.end() :] if m else line
    if body is line and _starts_with_label(line):
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


def _clean_heading(text: str) -> str:
    text = _PHONE.sub("", text).strip()
    return text.rstrip(" :-\u2013\u2014|,").strip()


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


def _title(lines: list[str], before: int) -> tuple[str, bool]:
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
        if _TITLE_STOP.match(line) or not _caps(line) or _COA_HEADING.match(line):
            break
        parts.append(line)
    return " ".join(parts), True


def _section_bounds(lines: list[str]) -> tuple[int, int, bool]:
    """(first line of the conditions, line after the last, found a start)."""
    first_title = next((i for i, line in enumerate(lines) if _TITLE.match(line)), 0)
    start = None
    for i in range(first_title, len(lines)):
        if _COA_HEADING.match(lines[i]) or _COA_INTRO.search(lines[i]):
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


def _join_wrapped(
    lines: list[str], styles: frozenset[str] = frozenset({"num", "cno"})
) -> list[str]:
    """A line that ends mid-sentence continues on the next (page breaks, PDF wraps)."""
    numbered = "num" not in styles
    out: list[str] = []
    for line in lines:
        if out:
            prev = out[-1]
            if (
                (prev[-1] not in _TERMINAL or _INITIALISM_END.search(prev))
                and not _starts_with_label(line, styles)
                and _heading_shape(prev, numbered) is None
                and _heading_shape(line, numbered) is None
            ):
                out[-1] = f"{prev} {line}"
                continue
        out.append(line)
    return out


def _classify_headings(
    lines: list[str], ms: MilestoneSet, styles: frozenset[str] = frozenset({"num", "cno"})
) -> list[str | None]:
    """'department', 'section' or None per line, with the lookahead checks of step 4."""
    numbered = "num" not in styles
    shapes = [_heading_shape(line, numbered) for line in lines]
    kinds: list[str | None] = [None] * len(lines)
    have_department = False
    for i, body in enumerate(shapes):
        if body is None:
            if _is_preamble_sentence(lines, i, ms, styles):
                kinds[i] = "preamble"
            continue
        if body.endswith(":") and not (
            i + 1 < len(lines) and _starts_with_condition(lines[i + 1], styles)
        ):
            continue
        # Followed, after any preamble, by a condition or another heading; a sub-item first
        # means the line is text inside a condition ("Specifically;", a table caption).
        ok = False
        for j in range(i + 1, len(lines)):
            if shapes[j] is not None or _has_condition_label(lines[j], styles):
                ok = True
                break
            if _starts_with_label(lines[j], styles):
                break
        if ok:
            kinds[i] = _heading_kind(body, ms, have_department)
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
        and _starts_with_condition(lines[i + 1], styles)
        and not _starts_with_label(line)
        and (i == 0 or lines[i - 1][-1] in _TERMINAL)
        and bool(ms.detect(line))
    )


def _heading_kind(body: str, ms: MilestoneSet, have_department: bool) -> str:
    """A department (who clears: a division, district or agency, often with a phone line), or
    a section: a milestone section gives its gate, a topic section ("GENERAL") none."""
    text = body.lower()
    if _MILESTONE_OPENER.match(body) and ms.detect(body, heading=True):
        return "section"
    if _is_topic(body):
        return "section"
    if _PHONE.search(body):
        return "department"
    if ms.detect(body, heading=True) and not _STRONG_DEPARTMENT.search(body):
        return "section"  # "GRADING PERMIT", "Final Map Requirements"
    if _caps(body):
        if any(re.search(rf"\b{re.escape(k)}", text) for k in ms.department_keywords):
            return "department"
        return "section"
    if _STRONG_DEPARTMENT.search(body):
        return "department"
    return "section"


def _is_topic(body: str) -> bool:
    words = [w for w in re.split(r"[\s/,:()\-\u2013\u2014]+", body.lower()) if w]
    return bool(words) and all(w in _TOPIC_WORDS for w in words)


# ------------------------------------------------------------------ building conditions

_QUOTES = '"\u201c\u201d'


@dataclass
class _Item:
    label: str
    paras: list[list[str]] = field(default_factory=list)
    children: list[_Item] = field(default_factory=list)
    quoted: bool = False  # a note to print on the plans, not an obligation

    def add(self, text: str, new_para: bool) -> None:
        text = text.strip()
        if not text:
            return
        if new_para or not self.paras:
            self.paras.append([text])
        else:
            self.paras[-1].append(text)

    @property
    def text(self) -> str:
        return "\n".join(" ".join(p) for p in self.paras)

    def to_sub_item(self) -> SubItem:
        return SubItem(self.label, self.text, [c.to_sub_item() for c in self.children])

    def obligation_texts(self) -> Iterable[str]:
        """Texts of the sub-items below, skipping quoted notes and everything under them."""
        for child in self.children:
            if child.quoted:
                continue
            yield child.text
            yield from child.obligation_texts()


@dataclass
class _Cond:
    number: str
    value: int
    code: str | None
    department: str | None
    section: str | None
    inherited: list[str]
    inherited_source: str
    root: _Item
    stack: list[tuple[str, int, _Item]] = field(default_factory=list)
    series: str = ""
    label: str = ""  # the number as printed, before any "(2)" for a repeat

    @property
    def target(self) -> _Item:
        return self.stack[-1][2] if self.stack else self.root


def _number_style(lines: Sequence[str]) -> frozenset[str]:
    """The label styles that number conditions in this document, from the labels that start
    its lines: "Condition No. N" (then "1." numbers sub-items), "COA-1" / "PL-3", "A.1" /
    "A-1", "1.1" (then "1." numbers sections), "N.", "N)" or "(N)"."""
    counts = Counter(c.style for line in lines for c in _candidates(line)[:1] if c.at_start)
    if counts["cno"] >= 3 and counts["cno"] >= counts["num"]:
        return frozenset({"cno"})
    for style in ("pfx", "alnum", "dec"):
        if counts[style] >= 2 and counts[style] >= counts["num"]:
            return frozenset({style, "cno"})
    if not counts["num"]:
        for style in ("np", "pn", "pfx", "alnum", "dec"):
            if counts[style]:
                return frozenset({style, "cno"})
    return frozenset({"num", "cno"})


class _Builder:
    """Walks the joined lines of the conditions section once, keeping the heading context."""

    def __init__(
        self,
        ms: MilestoneSet,
        lines: Sequence[str],
        warnings: list[str],
        styles: frozenset[str] = frozenset({"num", "cno"}),
    ) -> None:
        self.ms = ms
        self.warnings = warnings
        self.styles = styles
        self.numbered_headings = "num" not in styles
        # Where every condition-shaped number sits, to tell a gap from a stray number.
        self.later: dict[tuple[str, int], list[tuple[int, int]]] = {}
        for i, line in enumerate(lines):
            for c in _candidates(line):
                if c.style in styles and not c.inline:
                    self.later.setdefault((c.series, c.value), []).append((i, c.start))
        self.conditions: list[_Cond] = []
        self.last_in_series: dict[str, int] = {}
        self.in_section = 0  # conditions under the current section heading
        self.current: _Cond | None = None
        self.department: str | None = None
        self.department_gates: list[str] = []
        self.global_gates: list[str] = []
        self.section: str | None = None
        self.section_gates: list[str] = []
        self.heading_gates: list[str] = []
        self.preamble_target = "global"
        self.preamble: list[str] = []

    # -- headings and preambles

    def department_heading(self, name: str) -> None:
        self.current = None
        self.department = name
        self.department_gates = self.ms.default_for_department(name)
        self.section, self.section_gates, self.heading_gates = None, [], []
        self.preamble_target, self.preamble = "department", []

    def section_heading(self, name: str, top_level: bool = False, labelled: bool = False) -> None:
        """A milestone section gives its gate; a topic section none. A capitals heading is a
        top-level section (it ends the gate of the section before); a title-case one is a
        subsection and keeps it ("Improvement Plans" covers "General Requirements"). A
        lettered or numbered one ("B. PRIOR TO OCCUPANCY") stands beside the departments."""
        # "General Requirements" after the conditions of "Prior to Release of the Performance
        # Bond" is that section's sibling: a topic, under no milestone.
        sibling = _is_topic(name) and bool(self.heading_gates) and self.in_section > 0
        self.current = None
        self.section = name
        self.heading_gates = self.ms.detect(name, heading=True)
        self.in_section = 0
        if labelled:
            self.department, self.department_gates = None, []
        if self.heading_gates or top_level or sibling:
            self.section_gates = list(self.heading_gates)
        self.preamble_target, self.preamble = "section", []

    def section_preamble(self, text: str) -> None:
        """A preamble sentence between conditions starts a new unnamed part of the section."""
        self.current = None
        self.heading_gates = []
        self.preamble_target, self.preamble = "section", []
        self.add_preamble(text)

    def add_preamble(self, text: str) -> None:
        self.preamble.append(text.strip())
        gates = self.ms.detect(" ".join(self.preamble))
        if not gates:
            return
        if self.preamble_target == "department":
            self.department_gates = gates
        elif self.preamble_target == "section":
            self.section_gates = self.ms.ordered([*self.heading_gates, *gates])
        else:
            self.global_gates = gates

    # -- labels

    def _condition_ok(
        self, c: _Cand, line_no: int, prev_terminal: bool, rest: str
    ) -> tuple[bool, str | None]:
        if c.style not in self.styles or c.inline:
            return False, None
        n = c.value
        if not self.conditions:
            if c.at_start or n == 1:
                return True, None if n == 1 else f"Conditions start at number {c.label}, not 1"
            return False, None
        last = self.last_in_series.get(c.series)
        if last is None:
            # A new series ("ENG-1" after "PL-4", "B.1", "2.1") starts at 1 or goes on counting.
            ok = c.at_start and n in (1, self.conditions[-1].value + 1)
            return ok, None
        if n == last + 1:
            return True, None
        # A jump or a repeat only at a line start after a finished sentence, never mid-text.
        if not (c.at_start and prev_terminal and rest[:1].isupper()):
            return False, None
        if last + 1 < n <= last + 5:
            if any(p > (line_no, c.start) for p in self.later.get((c.series, last + 1), [])):
                return False, None
            lead = c.label[: len(c.label) - len(str(n))]
            missing = f"{lead}{last + 1}" if n == last + 2 else f"{lead}{last + 1}-{lead}{n - 1}"
            return (
                True,
                f"Condition numbering skips from {lead}{last} to {c.label} (missing {missing})",
            )
        if n == last:
            return True, (
                f"Condition number {c.label} is printed twice; "
                f"the second is listed as {c.label} (2)"
            )
        return False, None

    def _open_condition(self, c: _Cand, line: str) -> int:
        n = c.value
        repeats = sum(1 for x in self.conditions if x.label == c.label)
        number = c.label if not repeats else f"{c.label} ({repeats + 1})"
        self.last_in_series[c.series] = n
        self.in_section += 1
        if self.section_gates:
            inherited, source = list(self.section_gates), "section"
        elif self.department_gates:
            inherited, source = list(self.department_gates), "department"
        elif self.global_gates:
            inherited, source = list(self.global_gates), "department"
        else:
            inherited, source = [], "none"
        cond = _Cond(
            number,
            n,
            None,
            self.department,
            self.section,
            inherited,
            source,
            _Item(number),
            series=c.series,
            label=c.label,
        )
        end = c.end
        m = _CODE.match(line[end:])
        if m:
            # "UTI -3:" and "UTI-1:The" are the same code shape; print it one way.
            cond.code = f"{m.group('p')}-{m.group('n')}"
            end += m.end()
        self.conditions.append(cond)
        self.current = cond
        return end

    def _sub_ok(self, c: _Cand) -> bool:
        assert self.current is not None
        stack = self.current.stack
        depth = next((d for d, (style, _, _) in enumerate(stack) if style == c.style), None)
        if depth is not None:
            return c.style == "bu" or c.value == stack[depth][1] + 1
        # A new list starts at its first label, mid-line only right after a colon or as an
        # inline run ("shall (a) submit ... (b) pay ...", checked by the caller).
        return c.style == "bu" or (c.value == 1 and (c.at_start or c.after_colon or c.inline))

    def _open_sub_item(self, c: _Cand) -> _Item:
        assert self.current is not None
        stack = self.current.stack
        depth = next((d for d, (style, _, _) in enumerate(stack) if style == c.style), None)
        if depth is not None:
            del stack[depth:]
        item = _Item(c.label)
        self.current.target.children.append(item)
        stack.append((c.style, c.value, item))
        return item

    def _emit(self, text: str, new_para: bool) -> None:
        if not text.strip():
            return
        if self.current is None:
            self.add_preamble(text)
        else:
            self.current.target.add(text, new_para)

    def process(self, line: str, line_no: int, prev_terminal: bool) -> None:
        pos, first = 0, True
        cands = _candidates(line)
        for c in cands:
            if c.start < pos:
                continue
            rest = line[c.end :].lstrip()
            if c.value == 1 and not (c.at_start or c.after_colon) and c.style != "bu":
                # Mid-line, a list starts only as a run with its second label in the same line
                # ("shall (a) submit ... (b) pay ...", "...; i. no sound; ii. doors closed").
                run = any(x.style == c.style and x.value == 2 and x.start > c.start for x in cands)
                if c.inline and not run:
                    continue  # "(a)" alone mid-sentence is a reference, not a list
                if run and c.style not in self.styles:
                    c = replace(c, inline=True)
            if c.style in self.styles or c.style in ("num", "dec", "alnum", "pfx"):
                ok, warning = self._condition_ok(c, line_no, prev_terminal, rest)
                if ok:
                    self._emit(line[pos : c.start], first)
                    if warning:
                        self.warnings.append(warning)
                    pos, first = self._open_condition(c, line), False
                    continue
                if c.style in ("cno", "dec", "alnum", "pfx"):
                    continue
                if c.style == "num":
                    if not c.at_start or self.current is None:
                        continue
                    c = _Cand(c.start, c.end, "nd", c.value, c.label, c.at_start, c.after_colon)
            if self.current is not None and self._sub_ok(c):
                self._emit(line[pos : c.start], first)
                self._open_sub_item(c).quoted = rest[:1] in _QUOTES
                pos, first = c.end, False
        self._emit(line[pos:], first)

    def run(self, lines: Sequence[str], kinds: Sequence[str | None]) -> None:
        prev_terminal = True
        for i, line in enumerate(lines):
            kind = kinds[i]
            if kind == "preamble":
                # Before any condition it is the heading's preamble as usual; after one it
                # would otherwise be read as that condition's last sentence.
                if self.current is not None:
                    self.section_preamble(line)
                else:
                    self.add_preamble(line)
                prev_terminal = True
                continue
            if kind is not None:
                body = _heading_shape(line, self.numbered_headings) or line
                name = _clean_heading(body)
                if kind == "department":
                    self.department_heading(name)
                else:
                    labelled = _heading_label(line, self.numbered_headings) is not None
                    self.section_heading(name, top_level=_caps(body), labelled=labelled)
                prev_terminal = True
                continue
            self.process(line, i, prev_terminal)
            prev_terminal = line[-1] in _TERMINAL

    # -- results

    def spec(self, cond: _Cond) -> ConditionSpec:
        ms = self.ms
        own = cond.root.text
        sub_texts = [t for t in cond.root.obligation_texts() if t]
        found = ms.find(own)
        if found:
            gates, source = list(found), "explicit"
            period = ms.period_keys
            # Only monitored periods in its words: keep the inherited milestone too, unless
            # the condition sleeps until an event (a discovery during construction does not
            # hold the grading permit).
            dormant = classify_kind(own, cond.code) in (EVENT, CONDITIONAL)
            if (
                set(gates) <= period
                and cond.inherited
                and not set(cond.inherited) <= period
                and not dormant
                and not ms.follows(own)
            ):
                gates = ms.ordered([*cond.inherited, *gates])
        elif cond.inherited:
            gates, source = list(cond.inherited), cond.inherited_source
        else:
            found = {}
            for text in sub_texts:
                for key, assumed in ms.find(text).items():
                    found[key] = found.get(key, True) and assumed
            found = {k: found[k] for k in ms.ordered(found)}
            if found:
                gates, source = list(found), "explicit"
            else:
                gates, source = [UNSPECIFIED], "none"
        for key, assumed in found.items():
            if assumed:
                self.warnings.append(
                    f"Condition {cond.number}: gate {key} assumed from words that do not name "
                    "the permit or milestone outright; confirm"
                )
        if len(own.split()) < 5 and not cond.root.children:
            self.warnings.append(f"Condition {cond.number}: very short ({own!r}); check the parse")
        department = cond.department
        if department is None:
            # No department heading: a prefix names it ("ENG-12"), or the words do ("to the
            # satisfaction of the City Engineer").
            key = department_prefixes().get(cond.series) or department_of_official(own)
            department = DEPARTMENTS.get(key) if key else None
        return ConditionSpec(
            number=cond.number,
            code=cond.code,
            department=department,
            section=cond.section,
            text=own,
            gates=gates,
            gate_source=source,
            kind=classify_kind(own, cond.code, sub_texts=sub_texts, gates=gates),
            sub_items=[c.to_sub_item() for c in cond.root.children],
            time_limits=find_time_limits(" ".join([own, *sub_texts])),
        )


# ------------------------------------------------------------------ duplicates

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_MIN_DISTINCT = 4  # distinctive words a shared sentence needs
_COMMON_SHARE = 0.08  # a word in this share of the conditions is not distinctive


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text) if len(w) >= 3)


def _link_related(specs: list[ConditionSpec], warnings: list[str]) -> None:
    """Link the same mitigation code, and two conditions that share a sentence: every
    distinctive word of the shorter sentence is in the longer (words used by many conditions,
    such as "review and approval by the City Engineer", do not count), and no third condition
    shares it (boilerplate links nothing). A changed subject ("storm drain" against "sewer")
    leaves a word out, so templated sentences about different things stay apart."""
    links: dict[str, set[str]] = {s.number: set() for s in specs}
    by_code: dict[str, list[str]] = {}
    for s in specs:
        if s.code:
            by_code.setdefault(s.code, []).append(s.number)
    for numbers in by_code.values():
        for a in numbers:
            links[a].update(n for n in numbers if n != a)

    split = {
        s.number: [
            _words(x)
            for x in _SENTENCE_END.split(search_text(s.text))
            if not x.rstrip().endswith(":")  # a list's introduction, not its content
        ]
        for s in specs
    }
    df = Counter(w for sentences in split.values() for w in frozenset().union(*sentences))
    common = max(4, _COMMON_SHARE * len(specs))
    sentences: list[tuple[str, frozenset[str]]] = []
    index: dict[str, set[int]] = {}
    for number, parts in split.items():
        for words in parts:
            distinct = frozenset(w for w in words if df[w] < common)
            if len(distinct) >= _MIN_DISTINCT:
                for w in distinct:
                    index.setdefault(w, set()).add(len(sentences))
                sentences.append((number, distinct))

    pairs: set[tuple[str, str]] = set()
    for number, words in sentences:
        holding = set.intersection(*(index[w] for w in words))  # sentences holding all of it
        sharing = set.union(*(index[w] for w in words))
        held = {i for i in sharing if sentences[i][1] <= words}  # sentences it holds
        others = {sentences[i][0] for i in holding | held} - {number}
        if len(others) == 1:
            other = next(iter(others))
            if other not in links[number]:
                pairs.add(tuple(sorted((number, other), key=_key)))  # type: ignore[arg-type]
    for a, b in sorted(pairs, key=lambda p: (_key(p[0]), _key(p[1]))):
        links[a].add(b)
        links[b].add(a)
        warnings.append(f"Conditions {a} and {b} look like the same obligation; linked as related")
    for s in specs:
        s.related = sorted(links[s.number], key=_key)


def _key(number: str) -> tuple[int, str]:
    m = re.match(r"\d+", number)
    return (int(m.group(0)) if m else 0, number)


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


def _adopted(lines: Sequence[str], start: int = 0, end: int = 0) -> str | None:
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


# ------------------------------------------------------------------ public API


def parse_resolution(text: str, milestones: MilestoneSet | None = None) -> ParsedResolution:
    """Parse a resolution's text into its numbered conditions (reference conditions.md §6)."""
    ms = milestones or DEFAULT
    warnings: list[str] = []
    lines = _strip_markers(text)
    start, end, found = _section_bounds(lines)
    title, has_title = _title(lines, start)
    if not has_title:
        warnings.append("No 'RESOLUTION OF ...' title found; the first line is used")
    if not found:
        warnings.append(
            "No 'Conditions of Approval' heading or introduction found; the whole text was read"
        )
    region = [
        line
        for line in lines[start:end]
        if not (_COA_HEADING.match(line) or _EXHIBIT_ONLY.match(line))
    ]
    region = _drop_running_lines(region)
    styles = _number_style(region)
    region = _join_wrapped(region, styles)
    builder = _Builder(ms, region, warnings, styles)
    builder.run(region, _classify_headings(region, ms, styles))
    if not builder.conditions:
        warnings.append("No numbered conditions found")
    specs = [builder.spec(c) for c in builder.conditions]
    _link_related(specs, warnings)
    by_number = {s.number: s for s in specs}
    for s in specs:
        if s.gates == [UNSPECIFIED]:
            hint = next(
                (
                    f"; related condition {r} is gated {', '.join(by_number[r].gates)}"
                    for r in s.related
                    if by_number[r].gates != [UNSPECIFIED]
                ),
                "",
            )
            warnings.append(
                f"Condition {s.number}: no milestone in its words, section or department; "
                f"listed as unspecified{hint}"
            )
    return ParsedResolution(
        title=title, conditions=specs, warnings=warnings, adopted=_adopted(lines, start, end)
    )


class ResolutionError(ValueError):
    """The file is no resolution this parser can read; the message is one line for the user."""


PageProgress = Callable[[int, int], None]  # (pages read, pages in all)


def extract_text(path: str | Path, progress: PageProgress | None = None) -> str:
    """The text of a resolution file: plain text as is, a PDF through pypdf (page by page).
    Raises OSError when the file cannot be read and ValueError when it is not text or PDF."""
    return text_of(Path(path).read_bytes(), Path(path).name, progress)


def text_of(data: bytes, filename: str = "", progress: PageProgress | None = None) -> str:
    """extract_text for bytes already read (an upload); `filename` only for its suffix."""
    if data.lstrip()[:5] == b"%PDF-":
        return _pdf_text(data, progress)
    if filename.lower().endswith(".pdf"):
        raise ValueError("not a PDF (no %PDF header)")
    if b"\x00" in data[:4096]:
        raise ValueError("not a text or PDF file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _pdf_text(data: bytes, progress: PageProgress | None = None) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ValueError("the PDF is encrypted")
        total = len(reader.pages)
        pages = []
        for i, page in enumerate(reader.pages, start=1):
            pages.append(page.extract_text() or "")
            if progress is not None:
                progress(i, total)
    except (PyPdfError, KeyError, TypeError, AttributeError, IndexError, ValueError) as err:
        raise ValueError(f"not a readable PDF ({err})") from None
    return "\n".join(pages)


def read_resolution(
    data: bytes,
    filename: str = "",
    milestones: MilestoneSet | None = None,
    progress: PageProgress | None = None,
) -> ParsedResolution:
    """Text or PDF bytes to a parse with at least one condition, or ResolutionError saying in
    one line what is wrong: an unreadable file or PDF, a PDF without text (scanned), a text
    that is not a resolution, or a resolution in which no condition was found."""
    try:
        text = text_of(data, filename, progress)
    except ValueError as err:
        raise ResolutionError(f"cannot read the file: {err}") from None
    if not text.strip():
        raise ResolutionError("no text found in the file (a scanned PDF needs OCR first)")
    parsed = parse_resolution(text, milestones)
    if parsed.conditions:
        return parsed
    lines = _strip_markers(text)
    _, _, has_heading = _section_bounds(lines)
    _, has_title = _title(lines, len(lines))
    if not (has_heading or has_title):
        raise ResolutionError(
            "not a resolution: no 'RESOLUTION ...' title, no 'Conditions of Approval' heading "
            "and no numbered conditions"
        )
    raise ResolutionError(
        "no conditions found: no numbered condition (1., COA-1, A.1, 1.1, PL-3, "
        "Condition No. 5 ...) in the resolution"
    )
