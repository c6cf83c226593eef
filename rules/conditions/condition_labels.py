"""Labels that number conditions and sub-items (steps 5 and 6 of rules.conditions.parser):
"N.", "Condition No. N", "COA-1", "PL-3", "A.1", "1.1", "A.", "(a)", "ii.", bullets; where
they sit in a line, and which styles number the conditions of a document."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

TERMINAL = ".:;!?)]\"'\u201d\u2019*"
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
# Prefixes that number conditions ("COA-1", "COA 1") besides the department prefixes of
# rules/data/departments.json ("PL-3", "ENG-12", "FIRE-2").
_CONDITION_PREFIXES = frozenset({"COA", "COND", "CA", "CC", "SC"})
_DASH_BULLET = re.compile(r"^[-\u2013]\s+(?=\S)")


@dataclass(frozen=True)
class Candidate:
    """A label-shaped token in a line; whether it numbers a condition or a sub-item, or is
    text, the outline decides (rules.conditions.condition_outline)."""

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
def candidates(line: str) -> tuple[Candidate, ...]:
    """Label-shaped tokens at a line start or right after a sentence end (bullets anywhere;
    "(a)", "(1)", "ii." mid-sentence as inline candidates)."""
    out: list[Candidate] = []
    m0 = _DASH_BULLET.match(line)
    if m0:
        out.append(Candidate(0, m0.end(), "bu", 0, "-", True, False))
    for m in _LABEL.finditer(line):
        start = m.start()
        before = line[:start].rstrip()
        at_start = not before
        if not at_start and not line[start - 1].isspace():
            continue
        style = next(k for k in _STYLES if m.group(k))
        inline = not at_start and style != "bu" and before[-1] not in TERMINAL
        if inline and style not in _INLINE_STYLES and not (style == "lo" and m.group("lov") == "i"):
            continue
        read = _read_label(m, style, line[start:], inline)
        if read is not None:
            style, value, label, series = read
            after_colon = before.endswith(":")
            out.append(
                Candidate(
                    start, m.end(), style, value, label, at_start, after_colon, series, inline
                )
            )
    return tuple(out)


def _read_label(
    m: re.Match[str], style: str, rest: str, inline: bool
) -> tuple[str, int, str, str] | None:
    """(style, value, label, series) of a label token matched as `style`, or None when it is
    no label there; `rest` is the line from the token on."""
    if style in ("cno", "cnc"):
        value = int(m.group("cn") or m.group("cncv"))
        return "cno", value, str(value), ""
    if style == "dec":
        series = m.group("decp")
        style = "decd" if "." in series else "dec"  # "1.1.2": an item of condition 1.1
        return style, int(m.group("decv")), m.group("dec").rstrip("."), series
    if style == "alnum":
        return style, int(m.group("alnv")), m.group("alnum").rstrip("."), m.group("alnp")
    if style == "pfx":
        return _prefixed(m)
    if style == "num":
        return style, int(m.group("n")), m.group("n"), ""
    if style in ("np", "pn"):
        label = m.group(style + "v")
        return style, int(label), label, ""
    if style == "ro":
        label = m.group("rov")
        return style, _ROMAN_LOWER.index(label) + 1, label, ""
    if style == "bu":
        return style, 0, m.group("bu"), ""
    return _lettered(m, style, rest, inline)


def _prefixed(m: re.Match[str]) -> tuple[str, int, str, str] | None:
    """ "COA-1", "COA 1", "PL-3": a condition prefix, or a department's (never spaced)."""
    series = m.group("pfxp")
    if series not in _CONDITION_PREFIXES and (
        series not in department_prefixes() or m.group("pfxs") == " "
    ):
        return None
    return "pfx", int(m.group("pfxv")), m.group("pfx").rstrip(".:"), series


def _lettered(
    m: re.Match[str], style: str, rest: str, inline: bool
) -> tuple[str, int, str, str] | None:
    """ "A.", "a.", "(a)", "(A)": the letter's ordinal; "i." before "ii." is roman."""
    label = m.group(style + "v")
    if style in ("lo", "pl") and label == "i" and re.search(r"\s\(?ii[.)]\s", rest):
        return "ro", 1, label, ""  # "i. ... ii. ...": roman, not the ninth letter
    if inline and style not in _INLINE_STYLES:
        return None
    return style, ord(label.lower()) - ord("a") + 1, label, ""


@lru_cache(maxsize=1)
def department_prefixes() -> dict[str, str]:
    """Numbering prefix -> department key ("ENG" -> "engineering"), from the data."""
    from rules.conditions.lifecycle import department_prefixes as data

    return data()  # imported here: lifecycle is data-heavy and the cache keeps one copy


_COMPOUND = frozenset({"dec", "decd", "alnum", "pfx"})


def starts_with_label(line: str, styles: frozenset[str] = frozenset()) -> bool:
    """A label starts the line. "14.36", "A.1", "PL-3" count only where they number the
    conditions (`styles`), so "Chapter\n14.36 Erosion ..." stays one sentence elsewhere."""
    c = candidates(line)
    if not (c and c[0].at_start):
        return False
    if c[0].style in _COMPOUND:
        return c[0].style in styles or (c[0].style == "decd" and "dec" in styles)
    return True


def starts_with_condition(line: str, styles: frozenset[str] = frozenset({"num", "cno"})) -> bool:
    c = candidates(line)
    return bool(c) and c[0].at_start and c[0].style in styles


def has_condition_label(line: str, styles: frozenset[str] = frozenset({"num", "cno"})) -> bool:
    return any(c.style in styles and not c.inline for c in candidates(line))


def number_style(lines: Sequence[str]) -> frozenset[str]:
    """The label styles that number conditions in this document, from the labels that start
    its lines: "Condition No. N" (then "1." numbers sub-items), "COA-1" / "PL-3", "A.1" /
    "A-1", "1.1" (then "1." numbers sections), "N.", "N)" or "(N)"."""
    counts = Counter(c.style for line in lines for c in candidates(line)[:1] if c.at_start)
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
