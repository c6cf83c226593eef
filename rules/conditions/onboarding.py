"""Turn a parsed resolution into a new project's starting state (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from models.conditions import (
    ConditionSpec,
    ConditionState,
    DepartmentContact,
    ParsedResolution,
    ProjectInfo,
    ProjectInput,
)
from rules.conditions import gates
from rules.conditions.lifecycle import DEPARTMENTS, department_key
from rules.conditions.time_limits import TimeLimitSyntaxError, compact, parse_compact
from rules.kernel.jurisdictions import Jurisdiction


class CorrectionError(ValueError):
    """A correction given at import names an unknown condition, gate, kind or department."""


def milestone_keys() -> list[str]:
    return [m if isinstance(m, str) else m.key for m in gates.MILESTONES]


def apply_corrections(
    parsed: ParsedResolution, corrections: Mapping[str, Mapping[str, str]]
) -> tuple[list[str], dict[str, str]]:
    """Apply staff corrections before import ({number: {"gates"|"kind"|"department"|
    "time_limits": value}}; time limits in their short form, rules.conditions.time_limits).

    Returns one line per correction for the audit log, and the department overrides
    (the printed heading stays as printed)."""
    from models.conditions import KINDS

    by_number = {c.number: c for c in parsed.conditions}
    notes: list[str] = []
    departments: dict[str, str] = {}
    known_gates = set(milestone_keys()) | {"unspecified"}
    for number, fields in corrections.items():
        spec = by_number.get(number)
        if spec is None:
            raise CorrectionError(f"--set: there is no condition #{number} in the resolution")
        for name, value in fields.items():
            if name == "gates":
                new = [g.strip() for g in value.split(",") if g.strip()]
                unknown = [g for g in new if g not in known_gates]
                if not new or unknown:
                    raise CorrectionError(
                        f"--set {number}.gates: unknown gate(s) {', '.join(unknown) or '(none)'}"
                    )
                notes.append(f"#{number} gates {spec.gates} -> {new}")
                spec.gates = new
                spec.gate_source = "corrected"
            elif name == "kind":
                if value not in KINDS:
                    raise CorrectionError(f"--set {number}.kind: unknown kind {value!r}")
                notes.append(f"#{number} kind {spec.kind} -> {value}")
                spec.kind = value
            elif name == "department":
                if value not in DEPARTMENTS:
                    raise CorrectionError(
                        f"--set {number}.department: unknown department {value!r}"
                    )
                notes.append(f"#{number} department -> {value}")
                departments[number] = value
            elif name == "time_limits":
                try:
                    new_limits = parse_compact(value, spec.time_limits)
                except TimeLimitSyntaxError as err:
                    raise CorrectionError(f"--set {number}.time_limits: {err}") from None
                before = "; ".join(compact(t) for t in spec.time_limits) or "none"
                after = "; ".join(compact(t) for t in new_limits) or "none"
                if before != after:
                    notes.append(f"#{number} time limits {before} -> {after}")
                    spec.time_limits = new_limits
            else:
                raise CorrectionError(
                    f"--set {number}.{name}: only gates, kind, department or time_limits"
                )
    return notes, departments


def with_prefix(parsed: ParsedResolution, prefix: str) -> None:
    """Number a further resolution's conditions apart from the project's ("A-1")."""
    if not prefix:
        return
    for spec in parsed.conditions:
        spec.number = f"{prefix}{spec.number}"
        spec.related = [f"{prefix}{n}" for n in spec.related]


def anchor_dates(spec: ConditionSpec, approved_on: str | None) -> ConditionSpec:
    """The time limits with the date their anchor names, where the import knows it: the
    `approval` is the resolution's adoption. Others are dated when they are recorded."""
    limits = []
    for limit in spec.time_limits:
        limit = dict(limit)
        if limit.get("anchor") == "approval" and approved_on:
            limit["anchor_date"] = approved_on
        limits.append(limit)
    return replace(spec, gates=list(spec.gates), related=list(spec.related), time_limits=limits)


def condition_states(
    parsed: ParsedResolution,
    department_overrides: Mapping[str, str] | None = None,
    approved_on: str | None = None,
) -> list[ConditionState]:
    overrides = dict(department_overrides or {})
    return [
        ConditionState(
            spec=anchor_dates(spec, approved_on),
            department_key=overrides.get(spec.number) or _department(spec),
        )
        for spec in parsed.conditions
    ]


def new_project(
    parsed: ParsedResolution,
    *,
    project_id: str,
    name: str,
    city: Jurisdiction,
    applicant_name: str,
    applicant_email: str,
    project_manager_email: str,
    department_overrides: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
    imported_by: str = "",
    approved_on: str | None = None,
) -> ProjectInput:
    approved_on = approved_on or parsed.adopted
    conditions = condition_states(parsed, department_overrides, approved_on)
    contacts = [
        DepartmentContact(key, DEPARTMENTS[key], reviewer, head)
        for key, (reviewer, head) in city.departments.items()
        if key in DEPARTMENTS
    ]
    info = ProjectInfo(
        project_id=project_id,
        name=name,
        jurisdiction=city.key,
        resolution_title=parsed.title,
        applicant_name=applicant_name,
        applicant_email=applicant_email,
        project_manager_email=project_manager_email,
        departments=contacts,
        review_sla_business_days=city.review_sla_business_days,
        escalation_after_business_days=city.escalation_after_business_days,
        time_zone=city.time_zone,
        state=city.state,
        local_holidays=list(city.local_closures),
        milestones=milestone_keys(),
        approved_on=approved_on,
        digest_weekday=city.reminder_ladder.weekly_digest_weekday,
        target_digest_offsets=list(city.reminder_ladder.target_digest_days_before),
        condition_due_offsets=(
            None
            if city.reminder_ladder.condition_due_days_before is None
            else list(city.reminder_ladder.condition_due_days_before)
        ),
    )
    return ProjectInput(
        info=info,
        conditions=conditions,
        imported_warnings=list(parsed.warnings),
        import_corrections=list(notes),
        imported_by=imported_by,
    )


def _department(spec: ConditionSpec) -> str:
    # A mitigation measure is monitored by the environmental reviewer wherever it is printed.
    if spec.code:
        return "environmental"
    return department_key(spec.department)
