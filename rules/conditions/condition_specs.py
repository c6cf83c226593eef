"""From an outlined condition to its ConditionSpec: its gates (step 7 of
rules.conditions.parser), department, kind and time limits."""

from __future__ import annotations

from models.conditions import ConditionSpec
from rules.conditions.condition_labels import department_prefixes
from rules.conditions.condition_outline import OutlineCondition
from rules.conditions.gates import UNSPECIFIED, MilestoneSet
from rules.conditions.kinds import CONDITIONAL, EVENT, classify_kind
from rules.conditions.lifecycle import DEPARTMENTS, department_of_official
from rules.conditions.time_limits import find_time_limits


def condition_spec(cond: OutlineCondition, ms: MilestoneSet, warnings: list[str]) -> ConditionSpec:
    """The condition as the parse contract gives it; doubtful gates and very short texts
    are added to `warnings`."""
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
    return ConditionSpec(
        number=cond.number,
        code=cond.code,
        department=_department(cond, own),
        section=cond.section,
        text=own,
        gates=gates,
        gate_source=source,
        kind=classify_kind(own, cond.code, sub_texts=sub_texts, gates=gates),
        sub_items=[c.to_sub_item() for c in cond.root.children],
        time_limits=find_time_limits(" ".join([own, *sub_texts])),
    )


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


def _department(cond: OutlineCondition, own: str) -> str | None:
    """The department heading in force; without one, a prefix names it ("ENG-12"), or the
    words do ("to the satisfaction of the City Engineer")."""
    if cond.department is not None:
        return cond.department
    key = department_prefixes().get(cond.series) or department_of_official(own)
    return DEPARTMENTS.get(key) if key else None
