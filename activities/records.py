"""Activities that keep the read model (applications, clock events) current.

Workflows are the source of truth; these writes are upserts keyed by stable ids, so a
retried activity never writes a second row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Insert, Table
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from models.database import dialect_insert as _insert
from models.database import session_factory
from models.permit_clock import PermitEvent
from models.schema import Application, ClockEventRow
from models.shot_clock import ApplicationRecord, ClockEvent, EventRecord


def open_window_closes(clock: dict[str, Any]) -> tuple[str | None, str | None]:
    """The earliest and the latest closing day among the clock's open notice windows."""
    closes = [
        w["closes"]
        for w in clock.get("notice_windows") or []
        if w.get("state") == "open" and w.get("closes")
    ]
    return (min(closes), max(closes)) if closes else (None, None)


def clock_columns(clock: dict[str, Any]) -> dict[str, Any]:
    """The applications columns read off a computed clock (also used by bench seeding)."""
    return {
        "status": clock.get("status") or "awaiting_submission",
        "start_date": clock.get("start_date"),
        "shot_clock_date": clock.get("shot_clock_date"),
        "conservative_date": clock.get("conservative_date"),
        "conservative_status": clock.get("conservative_status") or clock.get("status"),
        "tolled_days": int(clock.get("tolled_days") or 0),
        "reset_on": clock.get("reset_on"),
        "judicial_review_deadline": clock.get("judicial_review_deadline"),
        "notice_window_closes": open_window_closes(clock)[0],
        "notice_window_last_closes": open_window_closes(clock)[1],
        "clock": clock,
    }


def event_insert(
    engine: Engine,
    table: Table,
    owner_column: str,
    owner_id: str,
    event: ClockEvent | PermitEvent,
) -> Insert:
    """The statement that inserts a clock's event row keyed by (owner, event_id), doing
    nothing when the row exists: a retried activity inserts nothing the second time."""
    if not event.event_id:
        # Without an id every event would collide on the same key and be dropped.
        raise ApplicationError(
            f"event {event.type} on {event.date} for {owner_id} has no event_id",
            type="MissingEventId",
            non_retryable=True,
        )
    return (
        _insert(engine, table)
        .values(
            {
                owner_column: owner_id,
                "event_id": event.event_id,
                "type": event.type,
                "date": event.date,
                "payload": event.to_contract(),
                "recorded_by": event.recorded_by,
                "note": event.note,
                "recorded_at": datetime.now(UTC),
            }
        )
        .on_conflict_do_nothing(index_elements=[table.c[owner_column], table.c.event_id])
    )


def insert_event_once(
    engine: Engine,
    sessions: sessionmaker[Session],
    table: Table,
    owner_column: str,
    owner_id: str,
    event: ClockEvent | PermitEvent,
) -> None:
    """Insert one event row in its own transaction (see `event_insert`)."""
    stmt = event_insert(engine, table, owner_column, owner_id, event)
    with sessions.begin() as session:
        session.execute(stmt)


class ClockRecords:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = session_factory(engine)

    @activity.defn
    def record_application(self, rec: ApplicationRecord) -> None:
        app = rec.application
        clock = rec.clock
        now = datetime.now(UTC)
        values: dict[str, Any] = {
            "workflow_id": rec.workflow_id,
            "jurisdiction": app.calendar.jurisdiction,
            "state": app.calendar.state,
            # A batch has no single category of its own: the computed clock names it.
            "category": app.category or clock.get("category") or "batch",
            "batch": list(app.batch),
            "site_address": app.site_address,
            "description": app.description,
            "applicant_name": app.contacts.applicant_name,
            "applicant_email": app.contacts.applicant_email,
            "planner_email": app.contacts.planner_email,
            "supervisor_email": app.contacts.supervisor_email,
            "attorney_email": app.contacts.attorney_email,
            **clock_columns(clock),
            "risk_flagged": rec.risk_flagged,
            "updated_at": now,
        }
        table = Application.__table__
        stmt = _insert(self._engine, table).values(
            application_id=app.application_id, created_at=now, **values
        )
        # One statement, so two workers racing on the same id cannot both insert;
        # created_at is left out of the update so it keeps the first write's time.
        stmt = stmt.on_conflict_do_update(index_elements=[table.c.application_id], set_=values)
        # A clock's opening records its events with it: one transaction, one local
        # activity (each local activity costs a replay of the clock an activation).
        events = [
            event_insert(
                self._engine, ClockEventRow.__table__, "application_id", app.application_id, e
            )
            for e in rec.events
        ]
        with self._sessions.begin() as session:
            session.execute(stmt)
            for event in events:
                session.execute(event)

    @activity.defn
    def record_event(self, rec: EventRecord) -> None:
        insert_event_once(
            self._engine,
            self._sessions,
            ClockEventRow.__table__,
            "application_id",
            rec.application_id,
            rec.event,
        )
