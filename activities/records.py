"""Activities that keep the read model (applications, clock events) current.

Workflows are the source of truth; these writes are upserts keyed by stable ids, so a
retried activity never writes a second row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from models.database import dialect_insert as _insert
from models.database import session_factory
from models.schema import Application, ClockEventRow
from models.shot_clock import ApplicationRecord, EventRecord


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
        "clock": clock,
    }


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
        with self._sessions.begin() as session:
            session.execute(stmt)

    @activity.defn
    def record_event(self, rec: EventRecord) -> None:
        ev = rec.event
        if not ev.event_id:
            # Without an id every event would collide on the same key and be dropped.
            raise ApplicationError(
                f"event {ev.type} on {ev.date} for {rec.application_id} has no event_id",
                type="MissingEventId",
                non_retryable=True,
            )
        table = ClockEventRow.__table__
        stmt = (
            _insert(self._engine, table)
            .values(
                application_id=rec.application_id,
                event_id=ev.event_id,
                type=ev.type,
                date=ev.date,
                payload=ev.to_contract(),
                recorded_by=ev.recorded_by,
                note=ev.note,
                recorded_at=datetime.now(UTC),
            )
            .on_conflict_do_nothing(index_elements=[table.c.application_id, table.c.event_id])
        )
        with self._sessions.begin() as session:
            session.execute(stmt)
