"""The audit log of a project, oldest first, as CSV or JSON: every action with who,
when, in which role, on which condition, and why; each entry with its place in the
project's hash chain, so `verify_export` (and `clearance audit verify`) can show that an
export, or the database, is as written (rules/audit_chain.py)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Engine, select

from models.conditions import AuditEvent
from models.database import session_factory
from models.schema import AuditRow
from reports.common import (
    FORMULA_START,
    city_time,
    jurisdiction_name,
    load_project,
    now_iso,
    render,
    write_csv,
)
from rules.audit_chain import ChainEntry, ChainReport, verify

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
    "seq",
    "prev_hash",
    "entry_hash",
)
# What an export writes: the columns above (all a verification needs) and, after the ISO
# instant, the same instant as the city reads it (a person reads that one; the chain
# hashes the ISO one).
EXPORT_COLUMNS = (*CSV_COLUMNS[:2], "at_city_time", *CSV_COLUMNS[2:])


@dataclass
class ExportedEvent(AuditEvent):
    """An audit event with its link in the chain."""

    seq: int | None = None
    prev_hash: str = ""
    entry_hash: str = ""


@dataclass
class AuditExport:
    project_id: str
    project_name: str
    generated_at: str
    events: list[ExportedEvent] = field(default_factory=list)
    jurisdiction: str = ""
    jurisdiction_name: str = ""


def audit_log(engine: Engine, project_id: str) -> AuditExport:
    data = load_project(engine, project_id, audit=True)
    return AuditExport(
        project_id=data.project.project_id,
        project_name=data.project.name,
        generated_at=now_iso(),
        jurisdiction=data.project.jurisdiction,
        jurisdiction_name=jurisdiction_name(data.project.jurisdiction),
        events=[
            ExportedEvent(
                audit_id=row.audit_id,
                at=row.at,
                actor=row.actor,
                role=row.role,
                action=row.action,
                condition_number=row.condition_number,
                reason=row.reason or "",
                details=dict(row.details or {}),
                seq=row.seq,
                prev_hash=row.prev_hash or "",
                entry_hash=row.entry_hash or "",
            )
            for row in data.audit
        ],
    )


def to_csv(export: AuditExport) -> str:
    """One row per event; `details` is compact JSON with sorted keys; `at` is ISO (UTC as
    stored) and `at_city_time` the same instant in the city's time."""
    return write_csv(
        EXPORT_COLUMNS,
        (
            (
                export.project_id,
                e.at,
                city_time(e.at, export.jurisdiction),
                e.audit_id,
                e.actor,
                e.role,
                e.action,
                e.condition_number,
                e.reason,
                json.dumps(e.details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                if e.details
                else "",
                e.seq,
                e.prev_hash,
                e.entry_hash,
            )
            for e in export.events
        ),
    )


def render_html(export: AuditExport) -> str:
    """The audit log as a page, every time in the city's time."""
    return render("audit_log.html.j2", report=export)


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


# -- verification --------------------------------------------------------------------------


class NotAnAuditExport(ValueError):
    """The text is neither a JSON nor a CSV audit export; the message says what is wrong."""


def _entry(project_id: str, values: dict[str, Any]) -> ChainEntry:
    seq = values.get("seq")
    return ChainEntry(
        project_id=project_id,
        seq=int(seq) if seq not in (None, "") else None,
        audit_id=str(values.get("audit_id") or ""),
        at=str(values.get("at") or ""),
        actor=str(values.get("actor") or ""),
        role=str(values.get("role") or ""),
        action=str(values.get("action") or ""),
        condition_number=values.get("condition_number") or None,
        reason=str(values.get("reason") or ""),
        details=values.get("details") or {},
        prev_hash=str(values.get("prev_hash") or ""),
        entry_hash=str(values.get("entry_hash") or ""),
    )


def _json_entries(text: str) -> list[ChainEntry]:
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise NotAnAuditExport("a JSON audit export has a project_id and a list of events")
    project_id = str(data.get("project_id") or "")
    return [_entry(project_id, dict(e)) for e in data["events"] if isinstance(e, dict)]


def _unescape(value: str) -> str:
    """Undo write_csv's guard against spreadsheet formulas (a leading apostrophe)."""
    if value.startswith("'") and value[1:].startswith(FORMULA_START):
        return value[1:]
    return value


def _csv_entries(text: str) -> tuple[list[ChainEntry], dict[str, list[ChainEntry]]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    missing = [c for c in CSV_COLUMNS if rows and c not in rows[0]]
    if not rows or missing:
        raise NotAnAuditExport(
            "not a CSV audit export: it needs the columns " + ", ".join(CSV_COLUMNS)
        )
    entries, alternatives = [], {}
    for row in rows:
        try:
            details = json.loads(row["details"]) if row["details"] else {}
        except json.JSONDecodeError:
            details = {"unreadable": row["details"]}
        values: dict[str, Any] = {**row, "details": details}
        entry = _entry(row["project"], values)
        entries.append(entry)
        # A cell starting with an apostrophe is either escaped by the export or typed
        # that way; the hash decides which.
        unescaped = {k: _unescape(v) if isinstance(v, str) else v for k, v in values.items()}
        if unescaped != values:
            alternatives[entry.audit_id] = [_entry(_unescape(row["project"]), unescaped)]
    return entries, alternatives


def verify_export(text: str) -> ChainReport:
    """Check an export (JSON or CSV, as `to_json`/`to_csv` wrote it)."""
    if text.lstrip().startswith("{"):
        try:
            return verify(_json_entries(text))
        except json.JSONDecodeError as err:
            raise NotAnAuditExport(f"the JSON does not parse: {err}") from None
    entries, alternatives = _csv_entries(text)
    return verify(entries, alternatives)


def verify_database(engine: Engine, project_id: str) -> ChainReport:
    """Check the audit log as stored, for one project."""
    with session_factory(engine)() as session:
        rows = list(session.scalars(select(AuditRow).where(AuditRow.project_id == project_id)))
    return verify(
        _entry(
            project_id,
            {
                "seq": r.seq,
                "audit_id": r.audit_id,
                "at": r.at,
                "actor": r.actor,
                "role": r.role,
                "action": r.action,
                "condition_number": r.condition_number,
                "reason": r.reason,
                "details": r.details,
                "prev_hash": r.prev_hash,
                "entry_hash": r.entry_hash,
            },
        )
        for r in rows
    )


def projects_with_audit(engine: Engine) -> list[str]:
    with session_factory(engine)() as session:
        return sorted(session.scalars(select(AuditRow.project_id).distinct()))
