"""Projects from a caseload file (docs/onboarding.md): one row per condition, grouped by
project, each condition with its current status, evidence date and the date and person
of its clearance (or the reason it was waived), and the project's milestones already
signed off. The project's workflow starts holding that state, with an audit line for
every imported status and sign-off; a sign-off the conditions would refuse live (one
still open gates it) is refused here, naming the row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from actions.caseload_files import RowError, Sheet
from actions.caseload_plan import (
    CaseloadPlan,
    PlannedItem,
    RowRefused,
    city_of,
    row_date,
    today_in,
)
from actions.cities import Cities
from actions.errors import ActionFailed
from actions.fields import check_address
from models.conditions import (
    KINDS,
    OPEN,
    RESOLVED_STATUSES,
    SUBMITTED,
    AuditEvent,
    ConditionSpec,
    Evidence,
    MilestoneSignoff,
    ParsedResolution,
)
from models.workflow_ids import project_workflow_id
from rules.access import Principal
from rules.conditions import lifecycle
from rules.conditions.onboarding import milestone_keys, new_project

STATUSES = (OPEN, SUBMITTED, "in_review", "returned", *sorted(RESOLVED_STATUSES))
_NEEDS_EVIDENCE = (SUBMITTED, "in_review", "returned")
_NEEDS_REASON = ("waived", "not_applicable", "satisfied_by_alternative")
_PROJECT_COLUMNS = (
    "project_name",
    "jurisdiction",
    "approved_on",
    "applicant_name",
    "applicant_email",
    "project_manager_email",
    "signoffs",
)


def plan_projects(
    sheet: Sheet, plan: CaseloadPlan, who: Principal, cities: Cities, now: datetime
) -> None:
    groups: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for number, row in sheet.rows:
        key = row.get("project_id", "")
        if not key:
            plan.errors.append(RowError(number, "project_id", "give the project's number"))
            continue
        groups.setdefault(key, []).append((number, row))
    for project_id, rows in groups.items():
        try:
            item = _project(project_id, rows, who, cities, now, plan.errors)
        except RowRefused as err:
            plan.errors.append(err.error)
            continue
        if item is not None:
            plan.items.append(item)


def _project(
    project_id: str,
    rows: list[tuple[int, dict[str, str]]],
    who: Principal,
    cities: Cities,
    now: datetime,
    errors: list[RowError],
) -> PlannedItem | None:
    first_row = rows[0][0]
    fields: dict[str, tuple[int, str]] = {}
    for number, row in rows:  # a project's own columns: on any of its rows, the same
        for name in _PROJECT_COLUMNS:
            value = row.get(name, "")
            if not value:
                continue
            if name in fields and fields[name][1] != value:
                raise RowRefused(
                    number,
                    name,
                    f"{value!r} differs from row {fields[name][0]} ({fields[name][1]!r})",
                )
            fields.setdefault(name, (number, value))
    given = {name: v for name, (_, v) in fields.items()}
    city = city_of(fields.get("jurisdiction", (first_row, ""))[0], given, cities)
    today = today_in(city, now).isoformat()
    approved_on = None
    if "approved_on" in fields:
        approved_on = row_date(fields["approved_on"][0], "approved_on", given["approved_on"])
        if approved_on > today:
            raise RowRefused(
                fields["approved_on"][0], "approved_on", f"{approved_on} is after today"
            )
    emails = {}
    for name in ("applicant_email", "project_manager_email"):
        emails[name] = _address(fields.get(name, (first_row, ""))[0], name, given.get(name, ""))
    specs: list[ConditionSpec] = []
    states: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    bad_rows = len(errors)
    for number, row in rows:
        try:
            spec, state = _condition(number, row, approved_on, today, who)
        except RowRefused as err:
            errors.append(err.error)
            continue
        if spec.number in seen:
            errors.append(
                RowError(
                    number,
                    "condition_number",
                    f"condition {spec.number} of {project_id} is also on row {seen[spec.number]}",
                )
            )
            continue
        seen[spec.number] = number
        specs.append(spec)
        states[spec.number] = state
    if len(errors) > bad_rows:
        return None  # each bad condition has its own error
    try:
        start = new_project(
            ParsedResolution(
                title=f"{given.get('project_name') or project_id} (imported)",
                conditions=specs,
                adopted=approved_on,
            ),
            project_id=project_id,
            name=given.get("project_name") or project_id,
            city=city,
            applicant_name=given.get("applicant_name", ""),
            applicant_email=emails["applicant_email"],
            project_manager_email=emails["project_manager_email"] or who.email,
            imported_by=who.email,
            approved_on=approved_on,
        )
    except ValueError as err:
        raise RowRefused(first_row, "", str(err)) from None
    history: list[AuditEvent] = []
    for condition in start.conditions:
        state = states[condition.spec.number]
        condition.status = state["status"]
        condition.resolution_reason = state["reason"]
        # A conditional or event condition worked on was triggered (conditions.md §5).
        condition.triggered = state["status"] != OPEN and condition.spec.kind in (
            lifecycle.DORMANT_KINDS
        )
        if state["evidence_date"]:
            condition.submitted_at = _instant(state["evidence_date"])
            condition.evidence.append(
                Evidence(
                    evidence_id=f"I{seen[condition.spec.number]:06d}",
                    description=state["evidence_description"] or "evidence (imported)",
                    filename="",
                    submitted_by=emails["applicant_email"] or who.email,
                    submitted_at=_instant(state["evidence_date"]),
                )
            )
        if condition.status != OPEN:
            history.append(_line(who, "imported_status", condition.spec.number, state))
    signoffs = _signoffs(fields.get("signoffs"), start.conditions, approved_on, today, states)
    for signoff in signoffs:
        start.signoffs.append(signoff)
        history.append(
            AuditEvent(
                audit_id="",
                at="",
                actor=who.email,
                role=who.role,
                action="imported_signoff",
                condition_number=None,
                details={
                    "milestone": signoff.milestone,
                    "on": signoff.at[:10],
                    "by": signoff.signed_by,
                },
            )
        )
    start.history = history
    counts: dict[str, int] = {}
    for condition in start.conditions:
        counts[condition.status] = counts.get(condition.status, 0) + 1
    upcoming = lifecycle.next_milestone(
        start.info.milestones, [s.milestone for s in signoffs], start.conditions
    )
    return PlannedItem(
        kind="projects",
        key=project_id,
        rows=[n for n, _ in rows],
        workflow="ProjectWorkflow",
        workflow_id=project_workflow_id(project_id),
        input=start,
        preview={
            "events": [f"{n}: {s['status']}" for n, s in states.items()],
            "status": ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
            "dates": {"next_milestone": upcoming, "signed_off": [s.milestone for s in signoffs]},
            "skipped_alerts": 0,
        },
    )


def _address(number: int, column: str, text: str) -> str:
    try:
        return check_address(text, column)
    except ActionFailed as err:
        raise RowRefused(number, column, err.message.removeprefix(f"{column}: ")) from None


def _condition(
    number: int, row: dict[str, str], approved_on: str | None, today: str, who: Principal
) -> tuple[ConditionSpec, dict[str, Any]]:
    from rules.conditions.lifecycle import DEPARTMENTS

    label = row.get("condition_number", "")
    if not label:
        raise RowRefused(number, "condition_number", "give the condition's number")
    text = row.get("condition_text", "")
    if not text:
        raise RowRefused(number, "condition_text", "give the condition's text")
    department = row.get("department", "") or "planning"
    if department not in DEPARTMENTS:
        raise RowRefused(
            number, "department", f"{department!r} is not one of {', '.join(DEPARTMENTS)}"
        )
    known = milestone_keys()
    gates = [g.strip() for g in row.get("gates", "").split(",") if g.strip()]
    unknown = [g for g in gates if g not in known]
    if not gates or unknown:
        raise RowRefused(
            number,
            "gates",
            f"{', '.join(unknown) or '(none)'}: give milestones of {', '.join(known)}",
        )
    kind = row.get("kind", "") or "requirement"
    if kind not in KINDS:
        raise RowRefused(number, "kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    status = row.get("status", "")
    if status not in STATUSES:
        raise RowRefused(number, "status", f"{status!r} is not one of {', '.join(STATUSES)}")
    evidence = row.get("evidence_date", "")
    evidence_date = row_date(number, "evidence_date", evidence) if evidence else ""
    if status in _NEEDS_EVIDENCE and not evidence_date:
        raise RowRefused(
            number, "evidence_date", f"a {status} condition has evidence: give its date"
        )
    stated = row.get("status_date", "")
    status_date = row_date(number, "status_date", stated) if stated else ""
    if status in (*RESOLVED_STATUSES, "returned") and not status_date:
        raise RowRefused(number, "status_date", f"give the date the condition was {status}")
    reason = row.get("reason", "")
    if status in _NEEDS_REASON and not reason:
        raise RowRefused(number, "reason", f"a condition {status.replace('_', ' ')} needs a reason")
    order = [
        ("approved_on", approved_on or ""),
        ("evidence_date", evidence_date),
        ("status_date", status_date),
    ]
    dated = [(name, day) for name, day in order if day]
    for (before_name, before), (name, day) in zip(dated, dated[1:], strict=False):
        if day < before:
            raise RowRefused(
                number, name, f"{day} is before the {before_name.replace('_', ' ')} {before}"
            )
    for name, day in dated:
        if day > today:
            raise RowRefused(number, name, f"{day} is in the future (today is {today})")
    by = _address(number, "status_by", row.get("status_by", "")) or who.email
    spec = ConditionSpec(
        number=label,
        code=None,
        department=department,
        section=None,
        text=text,
        gates=gates,
        gate_source="corrected",
        kind=kind,
    )
    return spec, {
        "status": status,
        "evidence_date": evidence_date,
        "evidence_description": row.get("evidence_description", ""),
        "status_date": status_date,
        "by": by,
        "reason": reason,
        "row": number,
    }


def _signoffs(
    cell: tuple[int, str] | None,
    conditions: list[Any],
    approved_on: str | None,
    today: str,
    states: dict[str, dict[str, Any]],
) -> list[MilestoneSignoff]:
    if cell is None:
        return []
    number, text = cell
    out: list[MilestoneSignoff] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        bits = part.split()
        if len(bits) not in (2, 3):
            raise RowRefused(number, "signoffs", f"{part!r}: give milestone YYYY-MM-DD [e-mail]")
        milestone, day = bits[0], row_date(number, "signoffs", bits[1])
        by = _address(number, "signoffs", bits[2]) if len(bits) == 3 else ""
        if milestone not in milestone_keys() or milestone in lifecycle.MONITORED_GATES:
            raise RowRefused(number, "signoffs", f"{milestone!r} is not a milestone signed off")
        if any(s.milestone == milestone for s in out):
            raise RowRefused(number, "signoffs", f"{milestone} is signed off twice")
        if day > today or (approved_on and day < approved_on):
            raise RowRefused(number, "signoffs", f"{milestone} on {day}: outside approval..today")
        blocking = lifecycle.blockers(conditions, milestone)
        if blocking:
            listed = "; ".join(lifecycle.describe(c) for c in blocking)
            raise RowRefused(
                number,
                "signoffs",
                f"{milestone} cannot have been signed off: condition(s) still open: {listed}",
            )
        late = [
            (n, s["status_date"])
            for n, s in states.items()
            if s["status_date"] > day
            and any(milestone in c.spec.gates for c in conditions if c.spec.number == n)
        ]
        if late:
            raise RowRefused(
                number,
                "signoffs",
                f"{milestone} signed off on {day}, before condition {late[0][0]} was "
                f"resolved on {late[0][1]}",
            )
        out.append(MilestoneSignoff(milestone, by or "imported", _instant(day)))
    return out


def _line(who: Principal, action: str, number: str, state: dict[str, Any]) -> AuditEvent:
    return AuditEvent(
        audit_id="",
        at="",
        actor=who.email,
        role=who.role,
        action=action,
        condition_number=number,
        reason=state["reason"],
        details={
            "to": state["status"],
            "on": state["status_date"] or state["evidence_date"],
            "by": state["by"],
            "evidence_date": state["evidence_date"],
        },
    )


def _instant(day: str) -> str:
    """A past day as the instant the workflow records (noon UTC: the same day in every
    US time zone)."""
    return f"{day}T12:00:00+00:00"
