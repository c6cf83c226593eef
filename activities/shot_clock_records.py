"""Activities that keep the read model (applications, clock events) current.

Workflows are the source of truth; these writes are upserts keyed by stable ids, so a
retried activity never writes a second row.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from temporalio import activity

from activities.clock_rows import ClockRows, ClockTables
from models.schema import Application, ClockEventRow
from models.shot_clock import ApplicationRecord, EventRecord

# A shot clock's row is its application's; its events refer to it by application_id.
TABLES = ClockTables(Application.__table__, ClockEventRow.__table__, "application_id")


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
    first_close, last_close = open_window_closes(clock)
    return {
        "status": clock.get("status") or "awaiting_submission",
        "start_date": clock.get("start_date"),
        "shot_clock_date": clock.get("shot_clock_date"),
        "conservative_date": clock.get("conservative_date"),
        "conservative_status": clock.get("conservative_status") or clock.get("status"),
        "tolled_days": int(clock.get("tolled_days") or 0),
        "reset_on": clock.get("reset_on"),
        "judicial_review_deadline": clock.get("judicial_review_deadline"),
        "notice_window_closes": first_close,
        "notice_window_last_closes": last_close,
        "clock": clock,
    }


class ShotClockRecords:
    def __init__(self, engine: Engine) -> None:
        self._rows = ClockRows(engine, TABLES)

    @activity.defn
    def record_application(self, rec: ApplicationRecord) -> None:
        app = rec.application
        clock = rec.clock
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
        }
        self._rows.record_clock(app.application_id, values, rec.events)

    @activity.defn
    def record_event(self, rec: EventRecord) -> None:
        self._rows.record_event(rec.application_id, rec.event)
