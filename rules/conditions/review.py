"""What a reviewer needs beside each parsed condition (step 9 of rules.conditions.parser):
the page its words start on, the warnings about it, and how sure the parse is.

Confidence, from what the parse itself shows (never from a guess about the city):

- low: no milestone was found (`unspecified`) and no time limit either; the number sits
  right after a gap or a number printed twice (the condition may hold the missing one);
  the first condition is not number 1 (a preamble may have swallowed it); the text is
  very short; or the words look like OCR noise (many tokens that are not words).
- medium: its number was read from OCR damage ("l4." as 14); no milestone but a time
  limit (an expiry or a term is what matters there); a gate was assumed from
  words that do not name the milestone outright; or any other warning names it.
- high: otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from models.conditions import ConditionSpec

HIGH, MEDIUM, LOW = "high", "medium", "low"
CONFIDENCE_ORDER = {LOW: 0, MEDIUM: 1, HIGH: 2}

_UNKNOWN_GATE = re.compile(
    r"\b(?:prior to|before|upon|after|following|at the time of|no later than|concurrent with"
    r"|in conjunction with)\s+(?:the\s+|any\s+|a\s+)?[^.,;:()]{3,70}",
    re.I,
)
_WORD = re.compile(r"^[A-Za-z][a-z'\u2019-]*[a-z]$|^[A-Z]{2,}$|^[a-z]$|^\d[\d,./%-]*$|^[A-Z]$")


def unknown_gate_phrase(spec: ConditionSpec) -> str | None:
    """The words that look like a milestone the vocabulary lacks ("prior to the start of
    operations"), quoted in the warning so staff see why it is unspecified; not the start
    of one of its time limits ("for one year following acceptance ...")."""
    limits = " ".join(str(t.get("text") or "") for t in spec.time_limits).lower()
    for m in _UNKNOWN_GATE.finditer(" ".join(spec.text.split())):
        phrase = " ".join(m.group(0).split()[:9])
        if phrase.lower() not in limits:
            return phrase
    return None


def _pages_of(specs: Sequence[ConditionSpec], pages: Sequence[str]) -> None:
    """Each condition's page: where its first words are found, searching forward from the
    condition before (page markers and joins do not change the words themselves)."""
    norm = [" ".join(p.split()) for p in pages]
    page, offset = 0, 0
    for spec in specs:
        words = spec.text.split()
        found = None
        for size in (10, 5, 2):
            needle = " ".join(words[:size])
            if not needle:
                break
            for i in range(page, len(norm)):
                at = norm[i].find(needle, offset if i == page else 0)
                if at >= 0:
                    found = (i, at)
                    break
            if found:
                break
        if found:
            page, offset = found[0], found[1] + 1
        spec.page = page + 1


def _garbled(text: str) -> bool:
    tokens = [t.strip(".,;:()\"'!?") for t in text.split()]
    tokens = [t for t in tokens if t]
    if len(tokens) < 6:
        return False
    odd = sum(1 for t in tokens if not _WORD.match(t))
    return odd > 0.3 * len(tokens)


def review(
    specs: Sequence[ConditionSpec],
    pages: Sequence[str],
    warnings: list[str],
    repaired: Mapping[str, tuple[str, bool]],
    placed: Sequence[tuple[int, str]],
) -> None:
    """Set each condition's page, warnings, evidence of a rewritten number and confidence;
    give the warnings raised at a condition its page (documents of several pages)."""
    _pages_of(specs, pages)
    by_number = {s.number: s for s in specs}
    gap_at: set[str] = set()
    for index, number in placed:
        spec = by_number.get(number)
        if spec is None:
            continue
        gap_at.add(number)
        if len(pages) > 1 and spec.page:
            warnings[index] = f"{warnings[index]}, page {spec.page}"
        spec.warnings.append(warnings[index])
    for w in warnings:
        m = re.match(r"Condition (\S+(?: \(\d+\))?):", w)
        if m and m.group(1) in by_number and w not in by_number[m.group(1)].warnings:
            by_number[m.group(1)].warnings.append(w)
    for spec in specs:
        printed = repaired.get(spec.number)
        damaged = bool(printed and printed[1])
        if printed:
            spec.evidence["number"] = printed[0]
        if damaged:
            spec.warnings.append(
                f"Condition {spec.number}: number read as {spec.number} from "
                f"{printed[0]!r} (damaged by OCR) by its place in the sequence"  # type: ignore[index]
            )
        low = (
            (spec.gates == ["unspecified"] and not spec.time_limits)
            or spec.number in gap_at
            or len(spec.text.split()) < 5
            and not spec.sub_items
            or _garbled(spec.text)
        )
        if low:
            spec.confidence = LOW
        elif damaged or spec.warnings or spec.gates == ["unspecified"]:
            spec.confidence = MEDIUM
        else:
            spec.confidence = HIGH


def review_order(specs: Sequence[ConditionSpec]) -> list[ConditionSpec]:
    """Low-confidence and warned conditions first (in document order within each level):
    the order the web review lists them in."""
    return sorted(
        specs,
        key=lambda s: (CONFIDENCE_ORDER.get(s.confidence, 2), 0 if s.warnings else 1),
    )
