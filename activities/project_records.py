"""Keep the projects read model current: the project row, every condition as it stands,
and the audit log. Upserts by stable keys, so a retried activity writes no second row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Engine, Table, select, update
from sqlalchemy.orm import Session
from temporalio import activity

from models.conditions import AuditEvent, ProjectRecord
from models.database import dialect_insert, session_factory
from models.schema import AuditRow, ConditionRow, Project
from reports.common import condition_state, milestone_sequence
from rules.audit_chain import GENESIS, link
from rules.conditions.progress import MilestoneProgress, milestone_progress, most_urgent


class ProjectRecords:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = session_factory(engine)

    @activity.defn
    def record_project(self, rec: ProjectRecord) -> None:
        info = rec.info
        now = datetime.now(UTC)
        values: dict[str, Any] = {
            "workflow_id": rec.workflow_id,
            "name": info.name,
            "jurisdiction": info.jurisdiction,
            "resolution_title": info.resolution_title,
            "applicant_name": info.applicant_name,
            "applicant_email": info.applicant_email,
            "project_manager_email": info.project_manager_email,
            "next_milestone": rec.next_milestone,
            "next_milestone_blockers": rec.next_milestone_blockers,
            "open_conditions": rec.open_conditions,
            "digests_paused": rec.digests_paused,
            "planned": rec.planned,
            "signoffs": [asdict(s) for s in rec.signoffs],
            "departments": [asdict(d) for d in info.departments],
            "approved_on": info.approved_on,
            "updated_at": now,
        }
        project = Project.__table__
        conditions = ConditionRow.__table__
        with self._sessions.begin() as session:
            session.execute(
                dialect_insert(self._engine, project)
                .values(project_id=info.project_id, created_at=now, **values)
                .on_conflict_do_update(index_elements=[project.c.project_id], set_=values)
            )
            if rec.conditions:
                rows = [
                    condition_row(info.project_id, position, c)
                    for position, c in zip(rec.positions, rec.conditions, strict=True)
                ]
                stmt = dialect_insert(self._engine, conditions).values(rows)
                stmt = stmt.on_conflict_do_update(
                    index_elements=[conditions.c.project_id, conditions.c.number],
                    set_={
                        col: stmt.excluded[col]
                        for col in rows[0]
                        if col not in ("project_id", "number")
                    },
                )
                session.execute(stmt)
            # Progress is judged on every condition as it now stands in the table (only the
            # changed ones travelled), so the inboxes can rank projects without loading them.
            stored = session.scalars(
                select(ConditionRow).where(ConditionRow.project_id == info.project_id)
            ).all()
            states = [condition_state(r) for r in stored]
            session.execute(
                update(Project)
                .where(Project.project_id == info.project_id)
                .values(
                    **progress_columns(
                        info.milestones,
                        states,
                        rec.planned,
                        [s.milestone for s in rec.signoffs],
                    )
                )
            )
            if rec.audit:
                append_audit(session, info.project_id, rec.audit)


def append_audit(session: Session, project_id: str, events: Sequence[AuditEvent]) -> None:
    """Append the entries not yet stored to the project's hash chain (rules/audit_chain.py).
    Called after the project row's upsert in the same transaction, which holds that row's
    lock: two writers for one project take turns, so the chain never forks (and the unique
    (project, seq) index would refuse it if they did not)."""
    # A mapped class's __table__ is typed as a FromClause; this one is a Table.
    audit = cast(Table, AuditRow.__table__)
    ids = [a.audit_id for a in events]
    stored = set(
        session.scalars(
            select(audit.c.audit_id).where(
                audit.c.project_id == project_id, audit.c.audit_id.in_(ids)
            )
        )
    )
    fresh = [a for a in events if a.audit_id not in stored]
    if not fresh:
        return
    last = session.execute(
        select(audit.c.seq, audit.c.entry_hash)
        .where(audit.c.project_id == project_id, audit.c.seq.is_not(None))
        .order_by(audit.c.seq.desc())
        .limit(1)
    ).first()
    rows: list[dict[str, Any]] = [
        {
            "project_id": project_id,
            "audit_id": a.audit_id,
            "at": a.at,
            "actor": a.actor,
            "role": a.role,
            "action": a.action,
            "condition_number": a.condition_number,
            "reason": a.reason,
            "details": a.details,
        }
        for a in fresh
    ]
    chained = link(last.entry_hash if last else GENESIS, (last.seq + 1) if last else 1, rows)
    for row, (seq, prev_hash, digest) in zip(rows, chained, strict=True):
        row.update(seq=seq, prev_hash=prev_hash, entry_hash=digest)
    session.execute(audit.insert().values(rows))


def condition_row(project_id: str, position: int, c: Any) -> dict[str, Any]:
    """The conditions columns for one condition state (also used by bench seeding)."""
    spec = c.spec
    return {
        "project_id": project_id,
        "number": spec.number,
        "position": position,
        "code": spec.code,
        "department": spec.department or "",
        "department_key": c.department_key,
        "section": spec.section,
        "text": spec.text,
        "gates": list(spec.gates),
        "gate_source": spec.gate_source,
        "kind": spec.kind,
        "status": c.status,
        "triggered": c.triggered,
        "submitted_at": c.submitted_at,
        "resolution_reason": c.resolution_reason,
        "evidence": [asdict(e) for e in c.evidence],
        "comments": [asdict(m) for m in c.comments],
        "sub_items": [asdict(s) for s in spec.sub_items],
        "related": list(spec.related),
        "time_limits": [dict(t) for t in spec.time_limits],
        "page": spec.page,
        "confidence": spec.confidence,
        "department_source": spec.department_source,
        "parse_evidence": dict(spec.evidence),
        "owner_email": c.owner_email or None,
    }


def progress_columns(
    milestones: list[str], states: list[Any], planned: dict[str, Any], signed_off: list[str]
) -> dict[str, Any]:
    """The project columns that say where its milestones stand (also used by bench
    seeding): each milestone's progress, and the most urgent one as the next milestone."""
    order = milestone_sequence([g for c in states for g in c.spec.gates], milestones)
    targets = (planned or {}).get("milestone_targets") or {}
    progress: list[MilestoneProgress] = milestone_progress(order, states, targets, signed_off)
    urgent = most_urgent(progress)
    return {
        "milestones": [p.to_json() for p in progress],
        "next_milestone": urgent.milestone if urgent else None,
        "next_milestone_blockers": urgent.blockers if urgent else 0,
        "urgent_target": urgent.target if urgent else None,
        "signoff_ready": sum(1 for p in progress if p.ready),
    }
