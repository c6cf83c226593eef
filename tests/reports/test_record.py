"""The administrative record PDF of one clock or project, read back with pypdf as a city
attorney would read it: the timeline, every notice as sent with its delivery record, the
ledger with its citations and the readings, and the audit chain's verification (a changed
entry is reported as a break)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader
from sqlalchemy import Engine, update

from models.database import make_engine, session_factory
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    Notice,
    PermitClockRow,
    PermitEventRow,
    Project,
)
from reports import record
from rules.audit_chain import GENESIS, link
from rules.shot_clock.engine import compute_json

NOW = datetime(2026, 12, 1, 17, tzinfo=UTC)
EVENTS = [
    {"type": "submitted", "date": "2026-11-02"},
    {
        "type": "incomplete_notice",
        "date": "2026-11-10",
        "items": [{"id": "A", "text": "RF emissions report", "rule": "CMC 17.44.070(A)"}],
    },
]


def _notice(subject_id: str, key: str, kind: str, state: str) -> Notice:
    return Notice(
        notice_key=key,
        application_id=subject_id,
        kind=kind,
        subject=f"{kind.replace('_', ' ').capitalize()}: {subject_id}",
        to_addrs=["site@carrier.example"],
        cc_addrs=["planner@cotati.example"],
        message_id=f"<{key}@clearance>",
        body_text=f"Dear applicant,\nThe {kind} for {subject_id}.\n",
        body_html="<p>html</p>",
        delivery_state=state,
        transport="smtp",
        location="",
        attempts=1 if state == "delivered" else 3,
        last_error="" if state == "delivered" else "connection refused",
        created_at=NOW,
        delivered_at=NOW if state == "delivered" else None,
    )


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    clock = compute_json({"category": "macro_collocation", "state": "CA", "events": EVENTS})
    audit = [
        {
            "project_id": "PRJ-1",
            "audit_id": f"{n:06d}",
            "at": f"2026-11-0{n}T17:00:00+00:00",
            "actor": "pm@cotati.example",
            "role": "project_manager",
            "action": action,
            "condition_number": number,
            "reason": reason,
            "details": {},
        }
        for n, (action, number, reason) in enumerate(
            [("imported", None, "Resolution 2026-07"), ("triggered", "12", "Grading begins")],
            start=1,
        )
    ]
    with session_factory(engine).begin() as db:
        db.add(
            Application(
                application_id="APP-1",
                workflow_id="shot-clock-APP-1",
                jurisdiction="cotati",
                category="macro_collocation",
                status=clock["status"],
                shot_clock_date=clock["shot_clock_date"],
                conservative_date=clock["conservative_date"],
                tolled_days=clock["tolled_days"],
                clock=clock,
                site_address="8 Old Redwood Hwy",
                planner_email="planner@cotati.example",
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.add(
            Project(
                project_id="PRJ-1",
                workflow_id="project-PRJ-1",
                name="Birch Lane",
                jurisdiction="cotati",
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.add(
            PermitClockRow(
                clock_id="PSA-1",
                workflow_id="permit-clock-PSA-1",
                jurisdiction="cotati",
                rule="ca_psa_completeness",
                citation="Gov. Code 65943(a)",
                status="running",
                title="Birch Lane completeness",
                project_id="PRJ-1",
                clock={
                    "due_date": "2026-12-02",
                    "status": "running",
                    "ledger": [
                        {
                            "date": "2026-11-02",
                            "event": "application_received",
                            "effect": "starts the 30-day completeness review",
                            "days": 30,
                            "rule": "Gov. Code 65943(a)",
                        }
                    ],
                },
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.flush()
        for i, event in enumerate(EVENTS):
            db.add(
                ClockEventRow(
                    application_id="APP-1",
                    event_id=f"e{i}",
                    type=event["type"],
                    date=event["date"],
                    payload=event,
                    recorded_by="planner@cotati.example",
                    recorded_at=NOW,
                )
            )
        db.add(
            PermitEventRow(
                clock_id="PSA-1",
                event_id="e0",
                type="application_received",
                date="2026-11-02",
                payload={},
                recorded_by="planner@cotati.example",
                recorded_at=NOW,
            )
        )
        db.add(_notice("APP-1", "incompleteness:e1", "incompleteness_notice", "delivered"))
        db.add(_notice("APP-1", "reminder:2026-12-01", "reminder", "failed"))
        for entry, (seq, prev, digest) in zip(audit, link(GENESIS, 1, audit), strict=True):
            db.add(AuditRow(**entry, seq=seq, prev_hash=prev, entry_hash=digest))
    yield engine
    engine.dispose()


def text_of(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)


def test_a_shot_clocks_record(engine: Engine) -> None:
    text = text_of(record.to_pdf(record.shot_clock_record(engine, "APP-1")))
    assert "Administrative record" in text and "APP-1" in text
    # The timeline, the ledger with its citations, the readings.
    assert "incompleteness notice" in text and "RF emissions report" in text
    assert "47 CFR 1.6003" in text and "the literal reading" in text
    # Every notice as sent, with its delivery record.
    assert "Incompleteness notice: APP-1" in text and "Dear applicant" in text
    assert "delivered by smtp, 1 attempt(s)" in text
    assert "failed by smtp, 3 attempt(s)" in text and "connection refused" in text
    assert "2 event(s) are recorded for this clock" in text and "SHA-256" in text


def test_a_permit_clocks_record_carries_its_projects_chain(engine: Engine) -> None:
    text = text_of(record.to_pdf(record.permit_clock_record(engine, "PSA-1")))
    assert "Gov. Code 65943(a)" in text and "starts the 30-day completeness review" in text
    assert "The audit chain of project PRJ-1 holds: 2 entries" in text


def test_a_projects_record_and_a_broken_chain(engine: Engine) -> None:
    text = text_of(record.to_pdf(record.project_record(engine, "PRJ-1")))
    assert "Birch Lane" in text and "Grading begins" in text and "holds: 2 entries" in text
    with session_factory(engine).begin() as db:
        db.execute(update(AuditRow).where(AuditRow.seq == 2).values(reason="Grading later"))
    broken = record.project_record(engine, "PRJ-1")
    assert not broken.intact
    assert "does NOT hold: entry 2" in text_of(record.to_pdf(broken))


def test_an_unknown_record_is_named(engine: Engine) -> None:
    with pytest.raises(record.RecordNotFound, match="no wireless application 'NOPE'"):
        record.shot_clock_record(engine, "NOPE")
