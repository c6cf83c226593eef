"""How far each milestone of a project has come, and which one is most urgent: pure.

The most urgent milestone is the one with the earliest target date that is not signed
off; milestones without a target follow, in the resolution's order. (A milestone due in
20 days with 25 blockers needs attention before one with 2 blockers and no date.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from models.conditions import RESOLVED_STATUSES, ConditionState
from rules.conditions.lifecycle import DORMANT_KINDS, MONITORED_GATES, blocks


@dataclass(frozen=True)
class MilestoneProgress:
    milestone: str
    gated: int  # conditions in force that gate it (not advisory, not dormant)
    resolved: int  # of those, how many are cleared, waived, not applicable...
    blockers: int  # conditions that stop its sign-off now
    target: str | None  # planned target date (ISO), if the project manager set one
    signed_off: bool
    monitored: bool  # during construction / ongoing: tracked, never signed off

    @property
    def ready(self) -> bool:
        """Nothing blocks it and nobody has signed it off yet."""
        return not self.signed_off and not self.monitored and self.gated > 0 and not self.blockers

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _in_force(c: ConditionState) -> bool:
    return c.spec.kind != "advisory" and not (c.spec.kind in DORMANT_KINDS and not c.triggered)


def milestone_progress(
    order: Sequence[str],
    conditions: Sequence[ConditionState],
    targets: Mapping[str, str],
    signed_off: Iterable[str],
) -> list[MilestoneProgress]:
    """Each milestone that some condition gates, in `order` (unknown gates last)."""
    done = set(signed_off)
    gates = {g for c in conditions for g in c.spec.gates}
    ordered = [m for m in order if m in gates] + sorted(gates - set(order))
    out = []
    for m in ordered:
        gating = [c for c in conditions if m in c.spec.gates and _in_force(c)]
        out.append(
            MilestoneProgress(
                milestone=m,
                gated=len(gating),
                resolved=sum(1 for c in gating if c.status in RESOLVED_STATUSES),
                blockers=sum(1 for c in conditions if blocks(c, m)),
                target=targets.get(m) or None,
                signed_off=m in done,
                monitored=m in MONITORED_GATES,
            )
        )
    return out


def most_urgent(progress: Sequence[MilestoneProgress]) -> MilestoneProgress | None:
    """The milestone to work on first: earliest target, then resolution order."""
    open_ = [
        p
        for p in progress
        if not p.signed_off and not p.monitored and p.gated and p.milestone != "unspecified"
    ]
    dated = sorted((p for p in open_ if p.target), key=lambda p: p.target or "")
    if dated:
        return dated[0]
    return open_[0] if open_ else None


def next_milestone_of(
    milestones: Sequence[str],
    conditions: Sequence[ConditionState],
    targets: Mapping[str, str],
    signed_off: Iterable[str],
) -> MilestoneProgress | None:
    """The one answer to "which milestone next" (the project page, the lists, the report,
    the applicant's digest): the most urgent milestone with conditions gating it, in the
    project's milestone order (`milestones`), gates it does not name after them."""
    gates = list(dict.fromkeys(g for c in conditions for g in c.spec.gates))
    order = [m for m in milestones if m in gates]
    order += [g for g in gates if g not in milestones and g != "unspecified"]
    return most_urgent(milestone_progress(order, conditions, targets, signed_off))
