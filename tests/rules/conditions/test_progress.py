"""Milestone progress and the most urgent milestone (pure)."""

from __future__ import annotations

from models.conditions import CLEARED, OPEN, WAIVED, ConditionSpec, ConditionState
from rules.conditions.progress import milestone_progress, most_urgent

ORDER = ["final_design_review", "improvement_plans", "grading_permit", "during_construction"]


def state(number: str, gates: list[str], status: str = OPEN, kind: str = "requirement"):
    spec = ConditionSpec(
        number=number,
        code=None,
        department="PLANNING",
        section=None,
        text=f"Condition {number}",
        gates=gates,
        gate_source="explicit",
        kind=kind,
    )
    return ConditionState(spec=spec, department_key="planning", status=status)


CONDITIONS = [
    state("1", ["final_design_review"]),
    state("2", ["final_design_review"]),
    state("3", ["improvement_plans"]),
    state("4", ["improvement_plans"], CLEARED),
    state("5", ["improvement_plans"], WAIVED),
    state("6", ["improvement_plans"], kind="advisory"),
    state("7", ["improvement_plans"], kind="conditional"),  # not triggered: not in force
    state("8", ["grading_permit", "during_construction"], CLEARED),
]


def test_progress_counts_conditions_in_force_and_their_blockers() -> None:
    progress = {p.milestone: p for p in milestone_progress(ORDER, CONDITIONS, {}, [])}
    plans = progress["improvement_plans"]
    assert (plans.gated, plans.resolved, plans.blockers) == (3, 2, 1)
    assert progress["final_design_review"].blockers == 2
    assert progress["grading_permit"].ready
    assert progress["during_construction"].monitored
    assert not progress["during_construction"].ready
    assert list(progress) == ORDER


def test_the_earliest_target_is_most_urgent_not_the_first_in_order() -> None:
    targets = {"improvement_plans": "2026-12-22"}
    progress = milestone_progress(ORDER, CONDITIONS, targets, [])
    urgent = most_urgent(progress)
    assert urgent is not None and urgent.milestone == "improvement_plans"
    assert urgent.target == "2026-12-22"
    # Two targets: the earlier wins whatever the order.
    progress = milestone_progress(
        ORDER, CONDITIONS, {**targets, "grading_permit": "2026-12-10"}, []
    )
    assert most_urgent(progress).milestone == "grading_permit"  # type: ignore[union-attr]


def test_without_targets_the_resolution_order_decides_and_signed_ones_drop_out() -> None:
    progress = milestone_progress(ORDER, CONDITIONS, {}, [])
    assert most_urgent(progress).milestone == "final_design_review"  # type: ignore[union-attr]
    progress = milestone_progress(ORDER, CONDITIONS, {}, ["final_design_review"])
    assert most_urgent(progress).milestone == "improvement_plans"  # type: ignore[union-attr]
    everything = ["final_design_review", "improvement_plans", "grading_permit"]
    assert most_urgent(milestone_progress(ORDER, CONDITIONS, {}, everything)) is None
