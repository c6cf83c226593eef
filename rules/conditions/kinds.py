"""What kind of obligation a condition is (reference conditions.md §4).

Precedence, first match wins, on the condition's own words:

1. advisory     "should", "shall consider", "may consider", "encouraged", "may, at its
                option", "recommendation that", with no
                mandatory word besides "shall consider" (a condition that also says "shall"
                or "must" is not advisory: it would never block, so be sure)
2. seasonal     a date window ("between February 1 and August 31", "before October 1st")
                or a named season ("nesting season", "rainy season"); a window that turns on
                an "if" is still seasonal, because the window is what the engine computes
3. event        discovery or encounter ("in the event", "if ... are discovered/encountered")
4. waivable     "shall not be required if", "shall not apply if", "may be waived", "unless"
                (not "unless otherwise ...", which is boilerplate)
5. conditional  a trigger at the start ("If requested ...", "If the property ..."), "upon
                request", "if ... then"
6. recurring    while work is under way or on a period: "during construction", "at all
                times", "daily", construction hours
7. requirement  otherwise

When the own words say requirement, the sub-items may still make the condition seasonal,
event or recurring (BIO-3's window and NOI-2's hours are in sub-items A); never advisory,
waivable or conditional, since a "Consider ..." or "If ..." sub-item does not make the whole
list optional. Quoted sub-items are text to print on plans, not obligations, and are skipped.
Last, a requirement gated only by during_construction is recurring."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rules.conditions.gates import search_text

REQUIREMENT = "requirement"
CONDITIONAL = "conditional"
WAIVABLE = "waivable"
ADVISORY = "advisory"
RECURRING = "recurring"
EVENT = "event"
SEASONAL = "seasonal"


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?\b"

_ADVISORY = _any(
    r"\bshould\b",
    r"\bshall consider\b",
    r"^consider\b",
    r"\bencouraged\b",
    r"\brecommendations? (?:that|to)\b",
    r"\b(?:is|are) recommended (?:that|to)\b",
    r"\bit is recommended\b",
    # §7: an option or an invitation is not an obligation
    r"\bmay,? at (?:its|his|her|their|the (?:applicant|developer|owner)'s) (?:sole )?"
    r"(?:option|discretion|election)\b",
    r"\b(?:may|might|could|to) (?:wish to )?consider\b",
)
_MANDATORY = re.compile(r"\b(?:shall(?! consider)|must|(?:is|are|be) required)\b")

_SEASONAL = _any(
    rf"\b(?:between|from) {_MONTH} {_DAY}(?: \([^)]*\))? "
    rf"(?:and|to|through|until|-) {_MONTH} {_DAY}",
    rf"\b{_MONTH} {_DAY} ?(?:-|to|through) ?{_MONTH} {_DAY}",
    # A deadline by month and day with no year is a yearly window ("before October 1st").
    rf"\b(?:before|prior to|by|after|no later than) {_MONTH} {_DAY}(?!,? ?\d{{4}})",
    r"\b(?:nesting|breeding|rainy|wet|storm|dry|fire|hibernation) season\b",
)
_EVENT = _any(
    r"\bin the event\b",
    r"\b(?:is|are|be|been) (?:inadvertently |accidentally |unexpectedly )?"
    r"(?:discovered|encountered|unearthed|uncovered)\b",
    r"\bdiscovery of\b",
    r"\b(?:if|where|should|when)\b[^.]{0,120}\b(?:discovered|encountered|unearthed|uncovered)\b",
)
_WAIVABLE = _any(
    r"\bshall not be required (?:if|when|where|provided)\b",
    r"\b(?:is|are|shall be|will be) (?:not required|waived) (?:if|when|where|provided)\b",
    r"\bmay be waived\b",
    r"\bunless\b(?! otherwise)",
    # §7: "This condition shall not apply if ..." -- an exception in the condition itself
    r"\b(?:shall|does|will) not apply (?:if|when|where|provided|in the event|to any)\b",
    r"\b(?:is|are|shall be) exempt(?:ed)? (?:from this condition )?(?:if|when|where|provided)\b",
)
_CONDITIONAL = _any(
    r"^(?:if|should|in the event|upon (?:the )?request|when requested)\b",
    r"\bif requested\b",
    r"\bupon (?:the )?request\b",
    r"\bif\b[^.]{0,150}\bthen\b",
)
_RECURRING = _any(
    r"^during\b",
    r"(?<!before or )\bduring (?:the |any |all )?(?:project )?(?:grading and )?construction\b",
    r"\bconstruction period\b",
    r"\bthroughout (?:the )?(?:entire )?(?:duration|course) of (?:the )?construction\b",
    r"\bat all times\b",
    r"\b(?:daily|weekly|monthly)\b",
    r"\b(?:once|twice|two times|three times|\d+ times) (?:per|a|each) (?:day|week|month)\b",
    r"\beach (?:day|week|work ?day)\b",
    r"\bhours of \d",
    r"\bconstruction hours\b",
    r"\bon a regular basis\b",
    r"\bcontinuously\b",
)

# A leading mitigation code or capitals title ("AQ-1:", "APPEAL PERIOD:") is not words.
_LEAD = re.compile(
    r"^\s*(?:[A-Z]{2,5}\s*-\s*\d{1,2}[a-z]?\s*[:.]\s*)?(?:[A-Z][A-Z &/'-]{2,40}[:.]\s+)?"
)
_QUOTED = re.compile(r"^\s*[\"\u201c\u201d']")


def _own_kind(s: str) -> str:
    if _ADVISORY.search(s) and not _MANDATORY.search(s):
        return ADVISORY
    if _SEASONAL.search(s):
        return SEASONAL
    if _EVENT.search(s):
        return EVENT
    if _WAIVABLE.search(s):
        return WAIVABLE
    if _CONDITIONAL.search(s):
        return CONDITIONAL
    if _RECURRING.search(s):
        return RECURRING
    return REQUIREMENT


def _sub_kind(texts: Iterable[str]) -> str:
    subs = [search_text(t) for t in texts if t and not _QUOTED.match(t)]
    for kind, pattern in ((SEASONAL, _SEASONAL), (EVENT, _EVENT), (RECURRING, _RECURRING)):
        if any(pattern.search(s) for s in subs):
            return kind
    return REQUIREMENT


def classify_kind(
    text: str,
    code: str | None = None,
    *,
    sub_texts: Sequence[str] = (),
    gates: Sequence[str] = (),
) -> str:
    """One of models.conditions.KINDS for a condition's own text; `sub_texts` are its
    sub-items' texts (any depth) and `gates` its gates, both optional. See the module
    docstring for the precedence."""
    s = search_text(_LEAD.sub("", text, count=1))
    if code:
        s = re.sub(rf"^{re.escape(search_text(code))}\s*[:.]?\s*", "", s)
    kind = _own_kind(s)
    if kind == REQUIREMENT and sub_texts:
        kind = _sub_kind(sub_texts)
    if kind == REQUIREMENT and gates and set(gates) == {"during_construction"}:
        kind = RECURRING
    return kind


_KIND_PATTERNS = {
    ADVISORY: _ADVISORY,
    SEASONAL: _SEASONAL,
    EVENT: _EVENT,
    WAIVABLE: _WAIVABLE,
    CONDITIONAL: _CONDITIONAL,
    RECURRING: _RECURRING,
}


def kind_words(kind: str, text: str, sub_texts: Sequence[str] = ()) -> str | None:
    """The words that made a condition `kind` (its own words first, then its sub-items'),
    or None for a requirement or a kind set by its gates."""
    pattern = _KIND_PATTERNS.get(kind)
    if pattern is None:
        return None
    for candidate in (_LEAD.sub("", text, count=1), *sub_texts):
        m = pattern.search(search_text(candidate))
        if m:
            return m.group(0).strip()
    return None
