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
from rules.packs import Jurisdiction


class CorrectionError(ValueError):
    """A correction given at import names an unknown condition, gate, kind or department."""


def milestone_keys() -> list[str]:
    return [m if isinstance(m, str) else m.key for m in gates.MILESTONES]


def apply_corrections(
    parsed: ParsedResolution, corrections: Mapping[str, Mapping[str, str]]
) -> tuple[list[str], dict[str, str]]:
    """Apply staff corrections before import ({number: {"gates"|"kind"|"department": value}}).

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
            else:
                raise CorrectionError(f"--set {number}.{name}: only gates, kind or department")
    return notes, departments


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
) -> ProjectInput:
    overrides = dict(department_overrides or {})
    conditions = [
        ConditionState(
            spec=replace(spec, gates=list(spec.gates), related=list(spec.related)),
            department_key=overrides.get(spec.number) or _department(spec),
        )
        for spec in parsed.conditions
    ]
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
