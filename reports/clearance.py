"""Milestone clearance: for each milestone in order, how many conditions gate it, how
many are resolved, what still blocks it (and whose it is), and who signed it off."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine

from notices.vocabulary import milestone_label
from reports.common import (
    ProjectReport,
    condition_state,
    department_name,
    is_resolved,
    load_project,
    milestone_sequence,
    render,
    write_csv,
)
from rules.conditions.full_text import full_text
from rules.conditions.lifecycle import MONITORED_GATES, blocks
from rules.conditions.progress import next_milestone_of

CSV_COLUMNS = (
    "project",
    "milestone",
    "number",
    "code",
    "department",  # who clears it, by its name (not the heading as printed)
    "kind",
    "status",
    "gate_source",
    "milestone_label",
    "blocking",
    "department_heading",  # the heading as printed in the resolution
    "text",  # the condition's words, so the sheet can be read on its own
)


@dataclass
class ConditionLine:
    number: str
    code: str | None
    department: str  # the heading as printed in the resolution
    department_key: str
    department_name: str  # who clears it
    kind: str
    status: str
    gate_source: str
    text: str
    blocking: bool


@dataclass
class MilestoneLine:
    key: str
    label: str
    monitored: bool  # during construction / ongoing: watched, never signed off
    total: int
    resolved: int
    open: int  # not resolved; includes advisory and dormant conditions, which never block
    blockers: list[ConditionLine]
    conditions: list[ConditionLine]
    signed_off_by: str | None = None
    signed_off_at: str | None = None

    @property
    def signed_off(self) -> bool:
        return self.signed_off_by is not None

    @property
    def ready(self) -> bool:
        """Could engineering sign it off now?"""
        return not self.monitored and not self.signed_off and not self.blockers


@dataclass
class MilestoneReport(ProjectReport):
    milestones: list[MilestoneLine] = field(default_factory=list)
    # The project's next milestone as the read model holds it: the one answer the project
    # page, the lists and the digests give (rules.conditions.progress.next_milestone_of).
    next_key: str | None = None

    @property
    def next_milestone(self) -> MilestoneLine | None:
        """The project's next milestone (never a signed-off or monitored one)."""
        return next(
            (
                m
                for m in self.milestones
                if m.key == self.next_key and not m.signed_off and not m.monitored
            ),
            None,
        )


def milestone_clearance(engine: Engine, project_id: str) -> MilestoneReport:
    data = load_project(engine, project_id)
    project = data.project
    signoffs = {
        str(s.get("milestone")): s
        for s in (project.signoffs or [])
        if isinstance(s, dict) and s.get("milestone")
    }
    states = [(row, condition_state(row)) for row in data.conditions]
    gates_in_use = [g for _, state in states for g in state.spec.gates]

    lines: list[MilestoneLine] = []
    for key in milestone_sequence(gates_in_use, signoffs):
        gating = [(row, state) for row, state in states if key in state.spec.gates]
        conditions = [
            ConditionLine(
                number=row.number,
                code=row.code,
                department=row.department,
                department_key=row.department_key,
                department_name=department_name(row.department_key, project),
                kind=row.kind,
                status=row.status,
                gate_source=row.gate_source,
                text=full_text(row.text, row.sub_items),
                blocking=blocks(state, key),
            )
            for row, state in gating
        ]
        resolved = sum(1 for c in conditions if is_resolved(c.status))
        signoff = signoffs.get(key)
        lines.append(
            MilestoneLine(
                key=key,
                label=milestone_label(key),
                monitored=key in MONITORED_GATES,
                total=len(conditions),
                resolved=resolved,
                open=len(conditions) - resolved,
                blockers=[c for c in conditions if c.blocking],
                conditions=conditions,
                signed_off_by=signoff.get("signed_by") if signoff else None,
                signed_off_at=signoff.get("at") if signoff else None,
            )
        )
    # The same answer as the project page and the digests, from the same rule.
    targets = (project.planned or {}).get("milestone_targets") or {}
    upcoming = next_milestone_of(
        milestone_sequence(gates_in_use), [s for _, s in states], targets, list(signoffs)
    )
    return MilestoneReport.for_project(
        project, milestones=lines, next_key=upcoming.milestone if upcoming else None
    )


def render_html(report: MilestoneReport) -> str:
    return render("milestone_clearance.html.j2", report=report)


def to_csv(report: MilestoneReport) -> str:
    """One row per condition per milestone it gates (a condition gating two milestones
    appears twice)."""
    return write_csv(
        CSV_COLUMNS,
        (
            (
                report.project_id,
                m.key,
                c.number,
                c.code,
                c.department_name,
                c.kind,
                c.status,
                c.gate_source,
                m.label,
                "yes" if c.blocking else "no",
                c.department,
                " ".join(c.text.split()),
            )
            for m in report.milestones
            for c in m.conditions
        ),
    )
