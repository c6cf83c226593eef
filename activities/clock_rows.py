"""The read-model writes both kinds of clock share: a clock's row upserted by its id, and
its events inserted once by (clock id, event id). The shot clock (applications,
clock_events) and the permit clock (permit_clocks, permit_clock_events) each say only
which tables and which columns (activities/shot_clock_records.py and
activities/permit_clock_records.py).

Every write is keyed by a stable id, so a retried activity writes no second row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import Engine, FromClause, Insert
from temporalio.exceptions import ApplicationError

from models.database import dialect_insert, session_factory


class RecordedEvent(Protocol):
    """What an event row is made of (models.shot_clock.ClockEvent and
    models.permit_clock.PermitEvent)."""

    type: str
    date: str
    note: str
    recorded_by: str
    event_id: str

    def to_contract(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ClockTables:
    """Where one kind of clock is recorded: its row in `clocks`, keyed by the column
    `key`, and its events in `events`, whose column of the same name refers to it."""

    clocks: FromClause
    events: FromClause
    key: str


def event_insert(
    tables: ClockTables, engine: Engine, clock_id: str, event: RecordedEvent
) -> Insert:
    """The statement that inserts a clock's event row keyed by (clock, event_id), doing
    nothing when the row exists: a retried activity inserts nothing the second time."""
    if not event.event_id:
        # Without an id every event would collide on the same key and be dropped.
        raise ApplicationError(
            f"event {event.type} on {event.date} for {clock_id} has no event_id",
            type="MissingEventId",
            non_retryable=True,
        )
    table = tables.events
    return (
        dialect_insert(engine, table)
        .values(
            {
                tables.key: clock_id,
                "event_id": event.event_id,
                "type": event.type,
                "date": event.date,
                "payload": event.to_contract(),
                "recorded_by": event.recorded_by,
                "note": event.note,
                "recorded_at": datetime.now(UTC),
            }
        )
        .on_conflict_do_nothing(index_elements=[table.c[tables.key], table.c.event_id])
    )


class ClockRows:
    """Writes one kind of clock's rows (`tables`) in the read model."""

    def __init__(self, engine: Engine, tables: ClockTables) -> None:
        self._engine = engine
        self._sessions = session_factory(engine)
        self.tables = tables

    def record_clock(
        self, clock_id: str, values: Mapping[str, Any], events: Iterable[RecordedEvent] = ()
    ) -> None:
        """Upsert the clock's row with `values` (its columns but the key and the times),
        and insert `events` with it in the same transaction (a clock's opening records its
        events with it: one local activity, which each later replay of the clock pays for
        once). An event without an id refuses the whole record."""
        now = datetime.now(UTC)
        columns = {**values, "updated_at": now}
        table = self.tables.clocks
        key = self.tables.key
        # One statement, so two workers racing on the same id cannot both insert;
        # created_at is left out of the update so it keeps the first write's time.
        upsert = (
            dialect_insert(self._engine, table)
            .values({key: clock_id, "created_at": now, **columns})
            .on_conflict_do_update(index_elements=[table.c[key]], set_=columns)
        )
        inserts = [event_insert(self.tables, self._engine, clock_id, e) for e in events]
        with self._sessions.begin() as session:
            session.execute(upsert)
            for insert in inserts:
                session.execute(insert)

    def record_event(self, clock_id: str, event: RecordedEvent) -> None:
        """Insert one event row in its own transaction (see `event_insert`)."""
        insert = event_insert(self.tables, self._engine, clock_id, event)
        with self._sessions.begin() as session:
            session.execute(insert)
