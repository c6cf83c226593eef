"""The administrative record of one deadline, as a city attorney files it: one PDF per
wireless shot clock, permit clock or project, holding the timeline (every event as
recorded, by whom and when), every notice as it was sent with its delivery record, the
ledger explaining each date with its citation and the readings of contested rules, and
the verification of the audit chain (projects) or the digest of the recorded events
(clocks, whose events are stored once each by event id)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select

from models.database import session_factory
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    ConditionRow,
    Notice,
    PermitClockRow,
    PermitEventRow,
    Project,
)
from notices.vocabulary import CATEGORY_LABELS, EVENT_LABELS, PERMIT_STATUS_LABELS, STATUS_LABELS
from reports.audit import verify_database
from reports.common import jurisdiction_name, now_iso, render, sort_audit


class RecordNotFound(ValueError):
    """No clock or project with that id in the read model."""


@dataclass
class TimelineLine:
    date: str
    event: str
    detail: str
    recorded_by: str
    recorded_at: str


@dataclass
class SentNotice:
    key: str
    kind: str
    subject: str
    to: str
    cc: str
    message_id: str
    created_at: str
    delivery_state: str
    transport: str
    location: str
    attempts: int
    delivered_at: str
    last_error: str
    body: str


@dataclass
class AdministrativeRecord:
    kind: str  # "wireless shot clock", "permit clock", "project"
    subject_id: str
    title: str
    jurisdiction_name: str
    facts: list[tuple[str, str]]
    timeline: list[TimelineLine]
    ledger: list[dict[str, Any]]
    readings: list[tuple[str, str, str]]  # reading, date, status
    notices: list[SentNotice]
    verification: list[str]  # sentences
    intact: bool
    generated_at: str = field(default_factory=now_iso)


def _instant(value: datetime | None) -> str:
    return value.replace(microsecond=0).isoformat() if value else ""


def _notices(db: Any, subject_ids: list[str]) -> list[SentNotice]:
    rows = db.scalars(
        select(Notice)
        .where(Notice.application_id.in_(subject_ids))
        .order_by(Notice.created_at, Notice.notice_key)
    )
    return [
        SentNotice(
            key=n.notice_key,
            kind=n.kind.replace("_", " "),
            subject=n.subject,
            to=", ".join(n.to_addrs or []),
            cc=", ".join(n.cc_addrs or []),
            message_id=n.message_id,
            created_at=_instant(n.created_at),
            delivery_state=n.delivery_state,
            transport=n.transport,
            location=n.location,
            attempts=n.attempts,
            delivered_at=_instant(n.delivered_at),
            last_error=n.last_error,
            body=n.body_text,
        )
        for n in rows
    ]


def _events_digest(rows: list[tuple[str, str, str, Any]]) -> str:
    text = json.dumps(rows, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _detail(payload: dict[str, Any]) -> str:
    skip = {"type", "date", "id", "event_id"}
    parts = []
    for key, value in (payload or {}).items():
        if key in skip or value in (None, "", [], {}):
            continue
        if key == "items" and isinstance(value, list):
            value = "; ".join(
                str(i.get("text", i)) if isinstance(i, dict) else str(i) for i in value
            )
        parts.append(f"{key.replace('_', ' ')}: {value}")
    return "; ".join(parts)


def _clock_verification(count: int, digest: str) -> list[str]:
    return [
        f"{count} event(s) are recorded for this clock, each once by its event id (a retried "
        "activity or a replayed workflow cannot add a second).",
        f"SHA-256 of the events as recorded (date, type, payload, recorded by): {digest}. "
        "Note it: a later record of the same clock with another digest was changed.",
    ]


def _project_verification(engine: Engine, project_id: str) -> tuple[list[str], bool]:
    chain = verify_database(engine, project_id)
    if chain.intact:
        return [
            f"The audit chain of project {project_id} holds: {chain.entries} entries, each "
            "hashed with the one before (SHA-256), none missing, none changed.",
            f"Head of the chain: {chain.head or '(empty)'}.",
        ], True
    return [f"The audit chain of project {project_id} does NOT hold: {chain.first_break}."], False


def readings_of(clock: dict[str, Any], date_key: str) -> list[tuple[str, str, str]]:
    out = [("the literal reading", str(clock.get(date_key) or ""), str(clock.get("status", "")))]
    for alt in clock.get("alternatives") or []:
        out.append(
            (
                str(alt.get("reading", "")),
                str(alt.get(date_key) or alt.get("final") or alt.get("due_date") or ""),
                str(alt.get("status", "")),
            )
        )
    if clock.get("conservative_date"):
        out.append(
            (
                f"conservative: {clock.get('conservative_reading') or 'the earliest of these'}",
                str(clock["conservative_date"]),
                str(clock.get("conservative_status", "")),
            )
        )
    return out


def shot_clock_record(engine: Engine, application_id: str) -> AdministrativeRecord:
    with session_factory(engine)() as db:
        app = db.get(Application, application_id)
        if app is None:
            raise RecordNotFound(f"no wireless application {application_id!r}")
        events = list(
            db.scalars(
                select(ClockEventRow)
                .where(ClockEventRow.application_id == application_id)
                .order_by(ClockEventRow.date, ClockEventRow.id)
            )
        )
        notices = _notices(db, [application_id])
    clock = app.clock or {}
    digest = _events_digest([(e.date, e.type, e.recorded_by, e.payload) for e in events])
    return AdministrativeRecord(
        kind="wireless shot clock",
        subject_id=application_id,
        title=f"Wireless application {application_id}",
        jurisdiction_name=jurisdiction_name(app.jurisdiction),
        facts=[
            ("Application", application_id),
            ("Category", CATEGORY_LABELS.get(app.category, app.category)),
            ("Site", app.site_address),
            ("Applicant", f"{app.applicant_name} {app.applicant_email}".strip()),
            ("Planner", app.planner_email),
            ("Status", STATUS_LABELS.get(app.status, app.status)),
            ("Shot clock date", app.shot_clock_date or ""),
            ("Conservative date", app.conservative_date or ""),
            ("Days tolled", str(app.tolled_days)),
            ("Judicial review deadline", app.judicial_review_deadline or ""),
            ("Rule pack", str((clock.get("rules") or {}).get("rule_pack", ""))),
        ],
        timeline=[
            TimelineLine(
                e.date,
                EVENT_LABELS.get(e.type, e.type.replace("_", " ")),
                "; ".join(p for p in (_detail(e.payload), e.note) if p),
                e.recorded_by,
                _instant(e.recorded_at),
            )
            for e in events
        ],
        ledger=list(clock.get("ledger") or []),
        readings=readings_of(clock, "shot_clock_date"),
        notices=notices,
        verification=_clock_verification(len(events), digest),
        intact=True,
    )


def permit_clock_record(engine: Engine, clock_id: str) -> AdministrativeRecord:
    with session_factory(engine)() as db:
        row = db.get(PermitClockRow, clock_id)
        if row is None:
            raise RecordNotFound(f"no permit clock {clock_id!r}")
        events = list(
            db.scalars(
                select(PermitEventRow)
                .where(PermitEventRow.clock_id == clock_id)
                .order_by(PermitEventRow.date, PermitEventRow.id)
            )
        )
        notices = _notices(db, [clock_id])
    clock = row.clock or {}
    digest = _events_digest([(e.date, e.type, e.recorded_by, e.payload) for e in events])
    verification = _clock_verification(len(events), digest)
    intact = True
    if row.project_id:
        more, intact = _project_verification(engine, row.project_id)
        verification += more
    ledger = list(clock.get("ledger") or [])
    for chained in clock.get("next") or []:
        ledger += [{**line, "rule": line.get("rule", "")} for line in chained.get("ledger") or []]
    return AdministrativeRecord(
        kind="permit clock",
        subject_id=clock_id,
        title=row.title or f"Permit clock {clock_id}",
        jurisdiction_name=jurisdiction_name(row.jurisdiction),
        facts=[
            ("Clock", clock_id),
            ("Rule", f"{row.rule} ({row.citation})"),
            ("Rule version", row.rule_version + (" — provisional" if row.provisional else "")),
            ("Site", row.site_address),
            ("Applicant", f"{row.applicant_name} {row.applicant_email}".strip()),
            ("Staff", row.staff_email),
            ("Status", PERMIT_STATUS_LABELS.get(row.status, row.status)),
            ("Due date", row.due_date or ""),
            ("Conservative date", row.conservative_date or ""),
            ("Consequence", str(clock.get("consequence_text") or row.consequence)),
            ("Project", f"{row.project_id} condition {row.condition_number or ''}".strip())
            if row.project_id
            else ("Project", ""),
        ],
        timeline=[
            TimelineLine(
                e.date,
                e.type.replace("_", " "),
                "; ".join(p for p in (_detail(e.payload), e.note) if p),
                e.recorded_by,
                _instant(e.recorded_at),
            )
            for e in events
        ],
        ledger=ledger,
        readings=readings_of(clock, "due_date"),
        notices=notices,
        verification=verification,
        intact=intact,
    )


def project_record(engine: Engine, project_id: str) -> AdministrativeRecord:
    with session_factory(engine)() as db:
        project = db.get(Project, project_id)
        if project is None:
            raise RecordNotFound(f"no project {project_id!r}")
        audit = sort_audit(db.scalars(select(AuditRow).where(AuditRow.project_id == project_id)))
        conditions = db.scalar(
            select(ConditionRow.id).where(ConditionRow.project_id == project_id).limit(1)
        )
        notices = _notices(db, [project_id])
    verification, intact = _project_verification(engine, project_id)
    signoffs = [s for s in project.signoffs or [] if isinstance(s, dict)]
    return AdministrativeRecord(
        kind="project",
        subject_id=project_id,
        title=project.name,
        jurisdiction_name=jurisdiction_name(project.jurisdiction),
        facts=[
            ("Project", project_id),
            ("Resolution", project.resolution_title),
            ("Approved on", project.approved_on or ""),
            ("Applicant", f"{project.applicant_name} {project.applicant_email}".strip()),
            ("Project manager", project.project_manager_email),
            ("Open conditions", str(project.open_conditions)),
            ("Next milestone", (project.next_milestone or "").replace("_", " ")),
            ("Milestones signed off", ", ".join(str(s.get("milestone")) for s in signoffs)),
            ("Conditions on record", "yes" if conditions else "none"),
        ],
        timeline=[
            TimelineLine(
                e.at[:10],
                e.action.replace("_", " ")
                + (f" (condition {e.condition_number})" if e.condition_number else ""),
                "; ".join(
                    p
                    for p in (e.reason, _detail(e.details or {}), f"entry {e.seq}" if e.seq else "")
                    if p
                ),
                f"{e.actor} ({e.role.replace('_', ' ')})",
                e.at,
            )
            for e in audit
        ],
        ledger=[],
        readings=[],
        notices=notices,
        verification=verification,
        intact=intact,
    )


def render_html(record: AdministrativeRecord) -> str:
    return render("record.html.j2", record=record)


def to_pdf(record: AdministrativeRecord) -> bytes:
    from reports.pdf import html_to_pdf

    return html_to_pdf(
        render_html(record), title=f"Administrative record: {record.title} ({record.subject_id})"
    )
