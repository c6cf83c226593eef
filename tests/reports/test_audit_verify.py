"""`clearance audit verify` on exports and on the database: an export as written verifies;
a tampered one (an edited reason, a removed row) is caught and the first broken link is
named; entries appended later continue the chain; a migrated database's old entries are
chained in the order they were written."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from sqlalchemy import Engine, text

from activities.project_records import append_audit
from models.conditions import AuditEvent
from models.database import alembic_config, make_engine, session_factory, upgrade_schema
from models.schema import Project
from reports import audit
from tests.cli.runner import assert_one_line_error, clean_env, clearance

PID = "P-AUDIT"


def event(n: int, reason: str = "", details: dict | None = None) -> AuditEvent:
    return AuditEvent(
        audit_id=f"{n:06d}",
        at=f"2027-01-{n:02d}T09:00:00-08:00",
        actor="pm@city.example",
        role="project_manager",
        action="condition.review",
        condition_number=str(n) if n > 1 else None,
        reason=reason or f"reviewed item {n}",
        details=details if details is not None else {"to": "cleared"},
    )


def seeded(database_url: str) -> Engine:
    engine = make_engine(database_url)
    now = datetime(2027, 1, 1, tzinfo=UTC)
    with session_factory(engine).begin() as s:
        s.add(
            Project(
                project_id=PID,
                workflow_id=f"project-{PID}",
                name="Audit test",
                jurisdiction="cotati",
                created_at=now,
                updated_at=now,
            )
        )
        s.flush()
        append_audit(s, PID, [event(1, details={}), event(2), event(3, '=HYPERLINK("x")')])
    with session_factory(engine).begin() as s:
        # A retried sync repeats entry 3: it is not appended twice, and 4, 5 continue the chain.
        append_audit(s, PID, [event(3, '=HYPERLINK("x")'), event(4), event(5, "-5 days")])
    return engine


def run_verify(*args: str, database_url: str) -> object:
    return clearance(
        "audit", "verify", *args, env=clean_env({"CLEARANCE_DATABASE_URL": database_url})
    )


def test_exports_as_written_verify(database_url: str, tmp_path: Path) -> None:
    engine = seeded(database_url)
    export = audit.audit_log(engine, PID)
    assert [e.seq for e in export.events] == [1, 2, 3, 4, 5]
    for name, body in (("a.json", audit.to_json(export)), ("a.csv", audit.to_csv(export))):
        path = tmp_path / name
        path.write_text(body)
        result = run_verify(str(path), database_url=database_url)
        assert result.returncode == 0, result
        assert "intact, 5 entries, head " + export.events[-1].entry_hash in result.stdout


def test_a_tampered_json_export_is_caught(database_url: str, tmp_path: Path) -> None:
    engine = seeded(database_url)
    data = json.loads(audit.to_json(audit.audit_log(engine, PID)))
    data["events"][2]["reason"] = "approved without comment"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    result = run_verify(str(path), database_url=database_url)
    assert result.returncode == 1, result
    assert "BROKEN at entry 3 (audit id 000003): its content does not match its hash" in (
        result.stdout
    )
    assert_one_line_error(result, 1, "the audit chain is broken")


def test_a_csv_export_with_a_row_removed_is_caught(database_url: str, tmp_path: Path) -> None:
    engine = seeded(database_url)
    lines = audit.to_csv(audit.audit_log(engine, PID)).splitlines(keepends=True)
    path = tmp_path / "cut.csv"
    path.write_text("".join(lines[:2] + lines[3:]))  # header, entry 1, (no 2), 3, 4, 5
    result = run_verify(str(path), database_url=database_url)
    assert result.returncode == 1, result
    assert "BROKEN at entry 3 (audit id 000003): expected entry 2 here: an entry was removed" in (
        result.stdout
    )


def test_the_database_is_verified_and_an_edited_row_is_named(database_url: str) -> None:
    engine = seeded(database_url)
    intact = run_verify("--project", PID, database_url=database_url)
    assert intact.returncode == 0 and "intact, 5 entries" in intact.stdout, intact
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE audit_log SET actor = 'someone@else' WHERE audit_id = '000004'")
        )
    broken = run_verify(database_url=database_url)
    assert broken.returncode == 1, broken
    assert f"project {PID}: BROKEN at entry 4 (audit id 000004)" in broken.stdout


def test_not_an_export_is_one_clear_line(database_url: str, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    result = run_verify(str(path), database_url=database_url)
    assert_one_line_error(result, 2, "not a CSV audit export")


def test_upgrading_chains_existing_entries_in_the_order_written(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0001")
        for n in (1, 2, 3):
            e = event(n)
            connection.execute(
                text(
                    "INSERT INTO audit_log (project_id, audit_id, at, actor, role, action, "
                    "condition_number, reason, details) VALUES "
                    "(:p, :a, :at, :actor, :role, :action, :c, :r, :d)"
                ),
                {
                    "p": PID,
                    "a": e.audit_id,
                    "at": e.at,
                    "actor": e.actor,
                    "role": e.role,
                    "action": e.action,
                    "c": e.condition_number,
                    "r": e.reason,
                    "d": json.dumps(e.details),
                },
            )
    upgrade_schema(engine)
    report = audit.verify_database(engine, PID)
    assert report.intact and report.entries == 3
    with session_factory(engine).begin() as s:
        append_audit(s, PID, [event(4)])
    assert audit.verify_database(engine, PID).entries == 4
    assert audit.verify_database(engine, PID).intact
