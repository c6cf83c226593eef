"""Closure days an administrator adds for a whole jurisdiction, stored before they reach
any clock (shot-clocks.md 8.10): the opening path reads them so a clock opened later
starts with them, and the fan-out records which clocks it reached."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from models.schema import ClosureDay


def stored_closures(sessions: sessionmaker[Session], jurisdiction: str) -> list[tuple[str, str]]:
    """(ISO date, reason) of every closure day stored for the jurisdiction, by date."""
    with sessions() as session:
        rows = session.execute(
            select(ClosureDay.date, ClosureDay.reason)
            .where(ClosureDay.jurisdiction == jurisdiction)
            .order_by(ClosureDay.date)
        ).all()
    return [(day, reason or "") for day, reason in rows]


def store_closure(
    sessions: sessionmaker[Session], jurisdiction: str, day: str, reason: str, added_by: str
) -> bool:
    """Store a closure day; False when the jurisdiction already has it (nothing changed)."""
    try:
        with sessions.begin() as session:
            session.add(
                ClosureDay(
                    jurisdiction=jurisdiction,
                    date=day,
                    reason=reason[:300],
                    added_by=added_by,
                    added_at=datetime.now(UTC),
                    applications=[],
                )
            )
    except IntegrityError:
        return False
    return True


def record_fan_out(
    sessions: sessionmaker[Session], jurisdiction: str, day: str, application_ids: list[str]
) -> None:
    """Which open clocks the closure day was sent to."""
    with sessions.begin() as session:
        session.execute(
            update(ClosureDay)
            .where(ClosureDay.jurisdiction == jurisdiction, ClosureDay.date == day)
            .values(applications=sorted(application_ids))
        )
