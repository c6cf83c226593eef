"""The audit log of a project, oldest first, as CSV or JSON: every action with who,
when, in which role, on which condition, and why."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from sqlalchemy import Engine

from models.conditions import AuditEvent
from reports.common import load_project, now_iso, write_csv

CSV_COLUMNS = (
    "project",
    "at",
    "audit_id",
    "actor",
    "role",
    "action",
    "condition_number",
    "reason",
    "details",
)


@dataclass
class AuditExport:
    project_id: str
    project_name: str
    generated_at: str
    events: list[AuditEvent] = field(default_factory=list)


def audit_log(engine: Engine, project_id: str) -> AuditExport:
    data = load_project(engine, project_id, audit=True)
    return AuditExport(
        project_id=data.project.project_id,
        project_name=data.project.name,
        generated_at=now_iso(),
        events=[
            AuditEvent(
                audit_id=row.audit_id,
                at=row.at,
                actor=row.actor,
                role=row.role,
                action=row.action,
                condition_number=row.condition_number,
                reason=row.reason or "",
                details=dict(row.details or {}),
            )
            for row in data.audit
        ],
    )


def to_csv(export: AuditExport) -> str:
    """One row per event; `details` is compact JSON with sorted keys."""
    return write_csv(
        CSV_COLUMNS,
        (
            (
                export.project_id,
                e.at,
                e.audit_id,
                e.actor,
                e.role,
                e.action,
                e.condition_number,
                e.reason,
                json.dumps(e.details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                if e.details
                else "",
            )
            for e in export.events
        ),
    )


def to_json(export: AuditExport) -> str:
    return (
        json.dumps(
            {
                "project_id": export.project_id,
                "project_name": export.project_name,
                "generated_at": export.generated_at,
                "events": [asdict(e) for e in export.events],
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
