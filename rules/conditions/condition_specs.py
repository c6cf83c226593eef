"""From an outlined condition to its ConditionSpec: its gates (step 7 of
rules.conditions.parser), department, kind and time limits, with the words that set each
(`evidence`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models.conditions import ConditionSpec
from rules.conditions.condition_labels import department_prefixes
from rules.conditions.condition_outline import OutlineCondition
from rules.conditions.department_words import department_in_words
from rules.conditions.gates import UNSPECIFIED, MilestoneSet
from rules.conditions.kinds import (
    CONDITIONAL,
    EVENT,
    RECURRING,
    REQUIREMENT,
    classify_kind,
    kind_words,
)
from rules.conditions.lifecycle import DEPARTMENTS
from rules.conditions.time_limits import find_time_limits


def condition_spec(
    cond: OutlineCondition,
    ms: MilestoneSet,
    warnings: list[str],
    aliases: Mapping[str, str] | None = None,
) -> ConditionSpec:
    """The condition as the parse contract gives it; doubtful gates and very short texts
    are added to `warnings`. `aliases` are the jurisdiction's names of its departments."""
    own = cond.root.text
    sub_texts = [t for t in cond.root.obligation_texts() if t]
    gates, source, found = _gates(cond, own, sub_texts, ms)
    for key, assumed in found.items():
        if assumed:
            warnings.append(
                f"Condition {cond.number}: gate {key} assumed from words that do not name "
                "the permit or milestone outright; confirm"
            )
    if len(own.split()) < 5 and not cond.root.children:
        warnings.append(f"Condition {cond.number}: very short ({own!r}); check the parse")
    department, department_source, department_words = _department(cond, own, aliases)
    kind = classify_kind(own, cond.code, sub_texts=sub_texts, gates=gates)
    limits = find_time_limits(" ".join([own, *sub_texts]))
    if kind == REQUIREMENT and any(t.get("kind") == "review" for t in limits):
        kind = RECURRING  # reviewed at set times: periodic check-ins
    evidence: dict[str, Any] = {"number": cond.label or cond.number}
    if source == "explicit":
        phrases = {**_sub_phrases(sub_texts, ms), **ms.phrases(own)}
        said = dict.fromkeys(phrases[g] for g in gates if g in phrases)  # one phrase, once
        evidence["gates"] = "; ".join(said) or None
    elif source in ("section", "department"):
        evidence["gates"] = f"{source}: {cond.section or cond.department or 'preamble'}"
    if department_words:
        evidence["department"] = department_words
    words = kind_words(kind, own, sub_texts)
    if words:
        evidence["kind"] = words
    if limits:
        evidence["time_limits"] = [str(t.get("text") or "") for t in limits]
    return ConditionSpec(
        number=cond.number,
        code=cond.code,
        department=department,
        section=cond.section,
        text=own,
        gates=gates,
        gate_source=source,
        kind=kind,
        sub_items=[c.to_sub_item() for c in cond.root.children],
        time_limits=limits,
        department_source=department_source,
        evidence={k: v for k, v in evidence.items() if v},
    )


def _sub_phrases(sub_texts: list[str], ms: MilestoneSet) -> dict[str, str]:
    out: dict[str, str] = {}
    for text in sub_texts:
        for key, phrase in ms.phrases(text).items():
            out.setdefault(key, phrase)
    return out


def _gates(
    cond: OutlineCondition, own: str, sub_texts: list[str], ms: MilestoneSet
) -> tuple[list[str], str, dict[str, bool]]:
    """(gates, gate source, the milestones found in words, each True when only assumed):
    the condition's own words, else what it inherits from its section or department, else
    the words of its sub-items, else unspecified."""
    found = ms.find(own)
    if found:
        gates = list(found)
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
        return gates, "explicit", found
    if cond.inherited:
        return list(cond.inherited), cond.inherited_source, {}
    in_items: dict[str, bool] = {}
    for text in sub_texts:
        for key, assumed in ms.find(text).items():
            in_items[key] = in_items.get(key, True) and assumed
    in_items = {k: in_items[k] for k in ms.ordered(in_items)}
    if in_items:
        return list(in_items), "explicit", in_items
    return [UNSPECIFIED], "none", {}


def _department(
    cond: OutlineCondition, own: str, aliases: Mapping[str, str] | None
) -> tuple[str | None, str | None, str | None]:
    """(department, where it came from, the words): the department heading in force; without
    one, a prefix names it ("ENG-12"), or the condition's own words name the reviewer or the
    recipient ("to the satisfaction of the Police Department", "submitted to the Planning
    Division for review")."""
    if cond.department is not None:
        return cond.department, "heading", f"heading: {cond.department}"
    key = department_prefixes().get(cond.series)
    if key:
        return DEPARTMENTS.get(key), "prefix", f"prefix: {cond.label or cond.number}"
    found = department_in_words(own, aliases)
    if found and found[0] in DEPARTMENTS:
        return DEPARTMENTS[found[0]], "text", found[1]
    return None, None, None
