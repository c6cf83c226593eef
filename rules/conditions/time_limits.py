"""Time limits written into conditions (reference conditions.md §8).

"This approval shall expire twenty-four (24) months from the date of approval unless ...",
"valid for a term of five (5) years", "a limited term ending December 31, 2027", "within 30
days of invoice", "one extension of up to twelve (12) months". Pure: text in, a list of
time limits in the §8 shape out:

    {"kind": "expiry", "months": 24, "anchor": "approval",
     "extensions": {"count": 1, "months": 12}, "text": "shall expire ..."}

`kind` is expiry (the approval ends unless exercised), term (a use's fixed life), until (an
end date, "until": "2027-12-31"), due (an act within a period) or review (revision 3: a
recurring review, "at six months, at one year and then annually": `at_months` [6, 12] and
`every_months` 12, a series of clocks). The period is `days` or
`months`; years count as 12 months each and weeks as 7 days. `anchor` is the starting event
in the condition's words, with "adoption", "the effective date" and "this approval" read as
`approval` (the resolution's adoption date, which the project knows at import).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from rules.conditions.gates import search_text

_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile(r"\s+")

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "a": 1, "an": 1, "single": 1,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_WORD_NUMBER = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four"
    r"|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|(?:one |a )?hundred(?: (?:and )?\w+)?)"
)
# "twenty-four (24)", "24", "twenty-four", "(24)", "a" (as in "a one-year term" only via unit)
NUMBER = rf"(?:{_WORD_NUMBER}\s*\(\s*\d{{1,4}}\s*\)|\d{{1,4}}|{_WORD_NUMBER})"
_UNIT = r"(?:calendar |business |working )?(?P<unit>days?|weeks?|months?|years?)"
_PERIOD = rf"(?P<n>{NUMBER})[- ]{_UNIT}"

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}  # fmt: skip
_DATE = (
    r"(?P<date>(?:january|february|march|april|may|june|july|august|september|october"
    r"|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.? "
    r"\d{1,2}(?:st|nd|rd|th)?,? \d{4}"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4})"
)

# Anchors: the event a period counts from, in the condition's words.
_ANCHOR = (
    r"(?:(?:from|after|following|of|beginning on|commencing on|starting on)\s+)"
    r"(?:the\s+)?(?:(?:date|day|effective date)\s+(?:of|on which)\s+)?(?:the\s+)?(?:city'?s?\s+)?"
    r"(?:(?:this|said|such|its|final|written|first)\s+)?(?P<anchor>[a-z][a-z'-]*)"
)
_APPROVAL = re.compile(
    r"^(?:this approval|approval|adoption|resolution|effective date|project approval"
    r"|approval of (?:this|the)|final approval|the approval|action|decision|this (?:permit|use"
    r" permit|entitlement))"
)
_ANCHOR_WORDS = {
    "invoice": "invoice", "invoicing": "invoice", "billing": "invoice", "notice": "notice",
    "notification": "notice", "notified": "notice", "request": "request",
    "recordation": "recordation", "recording": "recordation", "issuance": "issuance",
    "occupancy": "occupancy", "completion": "completion", "acceptance": "acceptance",
    "receipt": "receipt", "demand": "demand", "written": "notice", "certificate": "occupancy",
    "commencement": "commencement", "installation": "installation", "discovery": "discovery",
}  # fmt: skip

_EXPIRY = [
    re.compile(
        r"\b(?:shall|will|to)\s+(?:automatically\s+)?(?:expire|lapse|become null and void"
        rf"|become void|terminate|be null and void|be void)\b[^.;]{{0,40}}?\b{_PERIOD}\s+{_ANCHOR}"
    ),
    re.compile(
        rf"\b(?:expires?|lapses?|becomes? (?:null and )?void)\s+(?:in\s+)?{_PERIOD}\s+{_ANCHOR}"
    ),
    re.compile(rf"\bvalid\s+for\s+(?:a period of\s+)?{_PERIOD}\s+{_ANCHOR}"),
    re.compile(
        rf"\bwithin\s+{_PERIOD}\s+{_ANCHOR}(?=[^.;]{{0,80}}?\b(?:or|otherwise)\b[^.;]{{0,40}}"
        r"\b(?:expire|lapse|null and void|become void)\b)"
    ),
]
_TERM = [
    re.compile(
        rf"\b(?:for\s+)?(?:a|an)\s+(?:limited\s+|initial\s+|fixed\s+)?term\s+of\s+{_PERIOD}"
    ),
    re.compile(rf"\bvalid\s+for\s+(?:a period of\s+)?{_PERIOD}"),
    re.compile(
        rf"\b(?:permitted|allowed|authorized|approved)\s+for\s+(?:a period of\s+)?{_PERIOD}"
    ),
]
_UNTIL = [
    re.compile(rf"\b(?:limited\s+)?term\s+(?:ending|expiring)\s+(?:on\s+)?{_DATE}"),
    re.compile(
        r"\b(?:expire|expires|terminate|terminates|end|ends|valid)\s+(?:on|until|through)\s+"
        rf"(?:or before\s+)?{_DATE}"
    ),
    re.compile(rf"\buntil\s+{_DATE}"),
]
_DUE = [re.compile(rf"\bwithin\s+{_PERIOD}\s+{_ANCHOR}")]
# Revision 3: "null and void if not ... within N years", "shall be exercised within two
# calendar years" (from approval unless the words name another start).
_EXPIRY += [
    re.compile(
        r"\b(?:null and void|void|expire|lapse|terminate)\s+(?:if|unless)\b[^.;]{0,140}?"
        rf"\bwithin\s+{_PERIOD}(?:\s+{_ANCHOR})?"
    ),
    re.compile(
        r"\b(?:exercised|commenced|vested|utilized|inaugurated|established)\b[^.;]{0,80}?"
        rf"\bwithin\s+{_PERIOD}(?:\s+{_ANCHOR})?"
    ),
]
# "within two calendar years" with no start named: from the approval (months, years).
_DUE_BARE = re.compile(rf"\bwithin\s+{_PERIOD}(?!\s+(?:from|after|following|of|beginning))")
# "for one year following acceptance of the public improvements": a period that starts at a
# milestone, anchored on that milestone's key.
_FOLLOWING = re.compile(
    rf"\bfor\s+(?:a period of\s+|a minimum of\s+|at least\s+)?{_PERIOD}\s+"
    r"(?:following|after|from)\s+(?:the\s+)?(?:date of\s+)?(?:the\s+)?(?:city'?s\s+)?"
    r"(?P<ms>acceptance of (?:the\s+)?(?:public\s+)?improvements|(?:issuance of (?:the\s+|a\s+)?)?"
    r"(?:final\s+)?certificate of occupancy|occupancy|final inspection|recordation of (?:the\s+)?"
    r"(?:final|parcel) map|completion of (?:construction|(?:the\s+)?(?:public\s+)?improvements))"
)
_MILESTONE_ANCHORS = (
    ("acceptance", "acceptance_of_improvements"),
    ("completion of the", "acceptance_of_improvements"),
    ("completion of public", "acceptance_of_improvements"),
    ("completion of improvements", "acceptance_of_improvements"),
    ("completion of construction", "final_inspection"),
    ("final inspection", "final_inspection"),
    ("recordation", "final_map"),
)
# Recurring reviews: "reviewed at six months, at one year and then annually".
_REVIEW_WORD = re.compile(
    r"\b(?:review(?:s|ed)?|report(?:s|ed)?|inspect(?:s|ed|ions?)?|monitor(?:s|ed|ing)?"
    r"|evaluat(?:e|ed|ion)|audit(?:s|ed)?|check-?ins?)\b"
)
_PERIOD_RE = re.compile(rf"\b{_PERIOD}")
_AT = re.compile(rf"\bat\s+(?:the\s+)?(?:end of\s+)?(?:(?:first|initial)\s+)?{_PERIOD}")
_EVERY = re.compile(
    rf"\b(?:annually|yearly|every year|each year|once a year|every\s+{_PERIOD}"
    r"|(?P<adj>quarterly|semi-?annually|biannually|monthly))\b"
)
_EVERY_MONTHS = {
    "quarterly": 3,
    "semiannually": 6,
    "semi-annually": 6,
    "biannually": 6,
    "monthly": 1,
}
_EXTENSION = re.compile(
    rf"\b(?P<count>{NUMBER}|one|two|three|a|an)?\s*(?:additional\s+)?"
    rf"(?:(?P<each>{NUMBER})[- ](?P<eunit>months?|years?)\s+)?(?:time\s+)?extensions?\b"
    rf"(?:[^.;]{{0,40}}?\b(?:of\s+)?(?:up\s+to\s+|not\s+to\s+exceed\s+|no more than\s+)?"
    rf"(?P<n>{NUMBER})[- ](?P<unit>months?|years?))?"
    rf"|\bextended\s+(?:once\s+)?(?:by\s+|for\s+)?(?:up\s+to\s+)?(?:(?P<count2>{NUMBER})\s+"
    rf"(?:additional\s+)?(?:times?|periods?\s+of\s+)?)?(?:up\s+to\s+|an additional\s+)?"
    rf"(?P<n2>{NUMBER})[- ](?:additional\s+)?(?P<unit2>months?|years?)"
)


_ANY_PERIOD = re.compile(
    r"\b(?:days?|weeks?|months?|years?|until|ending|expiring|annually|yearly|quarterly)\b"
)


def word_number(text: str) -> int | None:
    """24 for "twenty-four (24)", "24", "twenty-four" or "twenty four"; None otherwise."""
    s = text.strip().lower()
    m = re.search(r"\(\s*(\d{1,4})\s*\)", s)
    if m:
        return int(m.group(1))
    if s.isdigit():
        return int(s)
    total = 0
    for word in re.split(r"[\s-]+", s.replace(" and ", " ")):
        if word in _UNITS:
            total += _UNITS[word]
        elif word in _TENS:
            total += _TENS[word]
        elif word == "hundred":
            total = max(total, 1) * 100
        elif word:
            return None
    return total


def _period(n_text: str, unit: str) -> dict[str, int]:
    n = word_number(n_text) or 0
    if unit.startswith("year"):
        return {"months": 12 * n}
    if unit.startswith("month"):
        return {"months": n}
    if unit.startswith("week"):
        return {"days": 7 * n}
    return {"days": n}


def _anchor(words: str | None) -> str | None:
    if not words:
        return None
    w = words.strip().lower()
    if _APPROVAL.match(w) or w.startswith(("approval", "adoption", "effective")):
        return "approval"
    first = w.split()[0]
    return _ANCHOR_WORDS.get(first, first)


def iso_date(text: str) -> str | None:
    """ "December 31, 2027", "Dec. 31st 2027", "2027-12-31" or "12/31/2027" as ISO; None if
    it is no date."""
    text = text.strip()
    t = re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", text.lower().replace(",", " ").replace(".", " "))
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})$", text)
    try:
        if m:
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        m = re.match(r"(\d{1,2})/(\d{1,2})/(\d{4})$", text)
        if m:
            return date(int(m[3]), int(m[1]), int(m[2])).isoformat()
        parts = t.split()
        day = int(re.sub(r"\D", "", parts[1]))
        return date(int(parts[2]), _MONTHS[parts[0]], day).isoformat()
    except (ValueError, KeyError, IndexError):
        return None


def _extensions(s: str) -> dict[str, int | None] | None:
    if "exten" not in s:
        return None
    m = _EXTENSION.search(s)
    if not m:
        return None
    if m.group("n2"):
        count = word_number(m.group("count2")) if m.group("count2") else 1
        months = _period(m.group("n2"), m.group("unit2")).get("months")
        return {"count": count, "months": months}
    count_text = m.group("count")
    count = word_number(count_text) if count_text else None
    months = None
    if m.group("each"):
        months = _period(m.group("each"), m.group("eunit")).get("months")
    elif m.group("n"):
        months = _period(m.group("n"), m.group("unit")).get("months")
    if count is None and months is None:
        return None
    return {"count": count if count is not None else 1, "months": months}


def _sentence(s: str, printed: str, start: int, end: int) -> str:
    """The matched words as printed, extended to the end of their clause (for `text`)."""
    stop = re.search(r"[.;]", s[end:])
    tail_end = end + stop.start() if stop else len(s)
    tail = s[end:tail_end]
    if len(tail) > 80 or re.search(r"\bunless\b|\bprovided\b|,\s*(?:and|or)\b", tail):
        tail_end = end
    return printed[start:tail_end].strip(" ,")


def find_time_limits(text: str) -> list[dict[str, Any]]:
    """Every time limit the words state, in the order they appear (§8 shape)."""
    s = search_text(text)
    if not _ANY_PERIOD.search(s):
        return []  # most conditions state no period: one cheap look instead of eleven
    printed = _SPACES.sub(" ", _DASHES.sub("-", text)).strip()
    if len(printed) != len(s):  # a character whose lower case is longer: quote lower case
        printed = s
    found: list[tuple[int, dict[str, Any]]] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    def add(m: re.Match[str], kind: str, values: dict[str, Any]) -> None:
        taken.append((m.start(), m.end()))
        sentence_end = s.find(".", m.end())
        rest = s[m.start() : sentence_end if sentence_end >= 0 else len(s)]
        # An extension offered in the same or the next sentence belongs to this limit.
        following = s[m.start() : m.start() + len(rest) + 200]
        limit: dict[str, Any] = {"kind": kind, **values}
        limit["extensions"] = _extensions(following) if kind in ("expiry", "term") else None
        limit["text"] = _sentence(s, printed, m.start(), m.end())
        found.append((m.start(), limit))

    for kind, patterns in (("until", _UNTIL), ("expiry", _EXPIRY), ("term", _TERM), ("due", _DUE)):
        for pattern in patterns:
            for m in pattern.finditer(s):
                if not free(m):
                    continue
                if kind == "until":
                    iso = iso_date(m.group("date"))
                    if iso:
                        add(m, kind, {"until": iso, "anchor": None})
                    continue
                period = _period(m.group("n"), m.group("unit"))
                groups = m.groupdict()
                anchor = _anchor(groups.get("anchor")) if kind != "term" else "approval"
                if kind == "expiry" and anchor is None:
                    anchor = "approval"  # "null and void if not exercised within two years"
                add(m, kind, {**period, "anchor": anchor})
    for m in _FOLLOWING.finditer(s):
        if free(m):
            period = _period(m.group("n"), m.group("unit"))
            ms = m.group("ms")
            anchor = next((key for words, key in _MILESTONE_ANCHORS if words in ms), "occupancy")
            add(m, "term", {**period, "anchor": anchor})
    for m in _DUE_BARE.finditer(s):
        if free(m) and not m.group("unit").startswith(("day", "week")):
            add(m, "due", {**_period(m.group("n"), m.group("unit")), "anchor": "approval"})
    found.extend(_reviews(s, printed, taken))
    return [limit for _, limit in sorted(found, key=lambda x: x[0])]


def _reviews(
    s: str, printed: str, taken: list[tuple[int, int]]
) -> list[tuple[int, dict[str, Any]]]:
    """Recurring reviews, one per sentence that names a review and when it recurs."""
    out: list[tuple[int, dict[str, Any]]] = []
    start = 0
    for sentence in re.split(r"(?<=[.;])\s", s):
        begin, start = start, start + len(sentence) + 1
        if not _REVIEW_WORD.search(sentence):
            continue
        at: list[int | None] = []
        first = _AT.search(sentence)
        if first:
            # "at six months, at one year and then annually": the fixed ones up to "then".
            window = re.split(
                r"\b(?:then|thereafter|every|annually|each)\b", sentence[first.start() :]
            )[0]
            at = [
                _period(m.group("n"), m.group("unit")).get("months")
                for m in _PERIOD_RE.finditer(window[:160])
                if m.group("unit").startswith(("month", "year"))
            ]
        at_months = sorted({a for a in at if a})
        every = _EVERY.search(sentence)
        if not at_months and not every:
            continue
        if any(a <= begin < b or begin <= a < begin + len(sentence) for a, b in taken):
            continue  # the sentence's period is already another limit
        every_months: int | None = None
        if every:
            if every.group("adj"):
                every_months = _EVERY_MONTHS.get(every.group("adj").replace("-", ""), 12)
            elif every.group("n"):
                every_months = _period(every.group("n"), every.group("unit")).get("months")
            else:
                every_months = 12
        anchor_m = re.search(rf"\b{_ANCHOR}", sentence)
        anchor = _anchor(anchor_m.group("anchor")) if anchor_m else "approval"
        limit: dict[str, Any] = {
            "kind": "review",
            "months": at_months[0] if at_months else every_months,
            "anchor": anchor if anchor in ("approval", "occupancy", "issuance") else "approval",
            "at_months": at_months,
            "every_months": every_months,
            "extensions": None,
            "text": printed[begin : begin + len(sentence)].strip(" .;"),
        }
        out.append((begin, limit))
    return out


def review_dates(limit: dict[str, Any], horizon_months: int = 60) -> list[int]:
    """The months after its anchor at which a recurring review falls: the fixed ones, then
    every `every_months` up to `horizon_months` (five years) after the anchor."""
    months = sorted({int(m) for m in limit.get("at_months") or [] if m})
    every = limit.get("every_months")
    if every:
        n = (months[-1] if months else 0) + int(every)
        while n <= horizon_months:
            months.append(n)
            n += int(every)
    return months


def describe(limit: dict[str, Any]) -> str:
    """One line for people: "expires 24 months after approval (1 extension of 12 months)"."""
    kind = limit.get("kind")
    if kind == "until":
        return f"until {limit.get('until')}"
    if limit.get("months") is not None:
        n, unit = limit["months"], "month"
    else:
        n, unit = limit.get("days") or 0, "day"
    period = f"{n} {unit}{'s' if n != 1 else ''}"
    anchor = limit.get("anchor") or "an event not named"
    if kind == "review":
        at = ", ".join(str(m) for m in limit.get("at_months") or [])
        line = f"reviews at {at} months after {anchor}" if at else f"reviews after {anchor}"
        every = limit.get("every_months")
        return f"{line}, then every {every} months" if every else line
    verb = {"expiry": "expires", "term": "term of", "due": "due within"}.get(str(kind), str(kind))
    line = f"{verb} {period} after {anchor}"
    if kind == "term" and limit.get("anchor") in (None, "approval"):
        line = f"{verb} {period}"
    ext = limit.get("extensions")
    if ext:
        count = ext.get("count") or 1
        months = ext.get("months")
        each = f" of {months} months" if months else ""
        line += f" ({count} extension{'s' if count != 1 else ''}{each})"
    return line


class TimeLimitSyntaxError(ValueError):
    """A corrected time limit that cannot be read; the message shows the form to use."""


KINDS = ("expiry", "term", "until", "due", "review")
_COMPACT = re.compile(
    r"^(?P<kind>expiry|term|due)\s+(?P<n>\d{1,4})\s+(?P<unit>days?|months?|years?)"
    r"(?:\s+(?:after|from)\s+(?P<anchor>[a-z][a-z_-]*))?"
    r"(?:\s*\+\s*(?P<count>\d{1,2})\s*[x\u00d7]\s*(?P<each>\d{1,3})\s*months?)?$"
    r"|^until\s+(?P<until>\d{4}-\d{2}-\d{2})$"
    r"|^review(?:\s+at\s+(?P<at>\d{1,3}(?:\s*,\s*\d{1,3})*)\s+months?)?"
    r"(?:\s+(?:after|from)\s+(?P<ranchor>[a-z][a-z_-]*))?"
    r"(?:\s+then\s+every\s+(?P<every>\d{1,3})\s+months?)?$",
    re.I,
)
COMPACT_FORM = (
    "'expiry 24 months after approval +1x12 months', 'term 60 months', "
    "'due 30 days after invoice', 'until 2027-12-31', 'review at 6,12 months after approval "
    "then every 12 months' (several separated by ';', 'none' for none)"
)


def compact(limit: dict[str, Any]) -> str:
    """The short form staff read and correct: "expiry 24 months after approval +1x12 months"."""
    if limit.get("kind") == "until":
        return f"until {limit.get('until')}"
    if limit.get("kind") == "review":
        at = ",".join(str(m) for m in limit.get("at_months") or [])
        out = "review" + (f" at {at} months" if at else "")
        out += f" after {limit.get('anchor') or 'approval'}"
        every = limit.get("every_months")
        return out + (f" then every {every} months" if every else "")
    if limit.get("months") is not None:
        period = f"{limit['months']} months"
    else:
        period = f"{limit.get('days') or 0} days"
    out = f"{limit.get('kind')} {period}"
    if limit.get("anchor") and (limit.get("kind") != "term" or limit["anchor"] != "approval"):
        out += f" after {limit['anchor']}"
    ext = limit.get("extensions")
    if ext and ext.get("months"):
        out += f" +{ext.get('count') or 1}x{ext['months']} months"
    return out


def parse_compact(text: str, previous: list[dict[str, Any]] = ()) -> list[dict[str, Any]]:  # type: ignore[assignment]
    """Time limits from their short forms (see COMPACT_FORM); a limit that is unchanged keeps
    the words it was read from, a new one says it was entered by staff."""
    text = text.strip()
    if not text or text.lower() in ("none", "-"):
        return []
    kept = {compact(p): p for p in previous}
    out: list[dict[str, Any]] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        m = _COMPACT.match(" ".join(part.split()))
        if not m:
            raise TimeLimitSyntaxError(f"cannot read the time limit {part!r}; write {COMPACT_FORM}")
        limit: dict[str, Any]
        if part.lower().startswith("review"):
            at = [int(x) for x in re.split(r"\s*,\s*", m.group("at") or "") if x]
            every = int(m.group("every")) if m.group("every") else None
            if not at and not every:
                raise TimeLimitSyntaxError(f"{part!r}: say when ('review at 6,12 months ...')")
            limit = {
                "kind": "review",
                "months": at[0] if at else every,
                "anchor": (m.group("ranchor") or "approval").lower(),
                "at_months": at,
                "every_months": every,
                "extensions": None,
            }
        elif m.group("until"):
            try:
                until = date.fromisoformat(m.group("until")).isoformat()
            except ValueError:
                raise TimeLimitSyntaxError(f"{m.group('until')!r} is not a date") from None
            limit = {"kind": "until", "until": until, "anchor": None, "extensions": None}
        else:
            kind = m.group("kind").lower()
            period = _period(m.group("n"), m.group("unit").lower())
            anchor = (m.group("anchor") or "").lower() or ("approval" if kind == "term" else None)
            if kind in ("expiry", "due") and not anchor:
                raise TimeLimitSyntaxError(
                    f"{part!r}: say what it counts from ('... after approval')"
                )
            ext = None
            if m.group("count"):
                ext = {"count": int(m.group("count")), "months": int(m.group("each"))}
            limit = {"kind": kind, **period, "anchor": anchor, "extensions": ext}
        same = kept.get(compact(limit))
        limit["text"] = same["text"] if same else "entered by staff at import"
        out.append(limit)
    return out


def add_months(start: date, months: int) -> date:
    """The same day of the month `months` later, clamped to the month's end (permit-clocks.md
    §2 `months`: 2024-02-29 + 12 months is 2025-02-28)."""
    month0 = start.month - 1 + months
    year, month = start.year + month0 // 12, month0 % 12 + 1
    following = date(year + (month == 12), month % 12 + 1, 1)
    last = (following - timedelta(days=1)).day
    return date(year, month, min(start.day, last))


def ends_on(limit: dict[str, Any], anchor_date: str | None = None) -> str | None:
    """When the limit runs out, if its anchor's date is known: months by the `months`
    convention, days counted from the day after the anchor. Expirations and terms do not
    roll; a `due` date on a weekend or holiday may move to the next business day under
    CCP 12, so this is the earliest reading."""
    if limit.get("kind") == "until":
        return limit.get("until")
    anchor = anchor_date or limit.get("anchor_date")
    if not anchor:
        return None
    try:
        start = date.fromisoformat(str(anchor))
    except ValueError:
        return None
    if limit.get("months") is not None:
        return add_months(start, int(limit["months"])).isoformat()
    if limit.get("days") is not None:
        return (start + timedelta(days=int(limit["days"]))).isoformat()
    return None
