"""Activities that keep the permit-clock read model current (permit_clocks and
permit_clock_events). Upserts keyed by stable ids: a retried activity writes no second row."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from temporalio import activity

from activities.records import event_insert, insert_event_once
from models.database import dialect_insert as _insert
from models.database import session_factory
from models.permit_clock import PermitClockRecord, PermitEventRecord
from models.schema import PermitClockRow, PermitEventRow


def chained(clock: dict[str, Any]) -> list[dict[str, Any]]:
    out = [clock]
    for one in clock.get("next") or []:
        out.extend(chained(one))
    return out


def next_deadline(clock: dict[str, Any]) -> str | None:
    """The earliest conservative date among the clocks still to be met."""
    dates = [
        c["conservative_date"]
        for c in chained(clock)
        if c.get("conservative_date") and c.get("status") in ("running", "paused", "lapsed")
    ]
    return min(dates) if dates else None


def permit_clock_columns(clock: dict[str, Any]) -> dict[str, Any]:
    """The permit_clocks columns read off a computed clock."""
    return {
        "rule": clock.get("rule") or "",
        "citation": (clock.get("citation") or "")[:300],
        "rule_version": str(clock.get("rule_version") or "")[:80],
        "provisional": bool(clock.get("provisional")),
        "status": clock.get("status") or "awaiting_start",
        "conservative_status": clock.get("conservative_status") or "",
        "consequence": clock.get("consequence") or "",
        "start_date": clock.get("start_date"),
        "due_date": clock.get("due_date"),
        "conservative_date": clock.get("conservative_date"),
        "next_deadline": next_deadline(clock),
        "hard_stop": clock.get("hard_stop"),
        "clock": clock,
    }


class PermitClockRecords:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = session_factory(engine)

    @activity.defn
    def record_permit_clock(self, rec: PermitClockRecord) -> None:
        info = rec.info
        now = datetime.now(UTC)
        values: dict[str, Any] = {
            "workflow_id": rec.workflow_id,
            "jurisdiction": info.calendar.jurisdiction,
            "title": info.title,
            "site_address": info.site_address,
            "companion_id": info.companion_id,
            "project_id": info.project_id or None,
            "condition_number": info.condition_number or None,
            "applicant_name": info.contacts.applicant_name,
            "applicant_email": info.contacts.applicant_email,
            "staff_email": info.contacts.staff_email,
            **permit_clock_columns(rec.clock),
            "escalated": rec.escalated,
            "updated_at": now,
        }
        table = PermitClockRow.__table__
        stmt = _insert(self._engine, table).values(clock_id=info.clock_id, created_at=now, **values)
        stmt = stmt.on_conflict_do_update(index_elements=[table.c.clock_id], set_=values)
        # The opening's events are written with it (one transaction, one local activity).
        events = [
            event_insert(self._engine, PermitEventRow.__table__, "clock_id", info.clock_id, e)
            for e in rec.events
        ]
        with self._sessions.begin() as session:
            session.execute(stmt)
            for event in events:
                session.execute(event)

    @activity.defn
    def record_permit_event(self, rec: PermitEventRecord) -> None:
        insert_event_once(
            self._engine,
            self._sessions,
            PermitEventRow.__table__,
            "clock_id",
            rec.clock_id,
            rec.event,
        )
