"""Closure days are durable (shot-clocks.md 8.10): stored before they are fanned out, and
a clock opened later freezes them into its calendar."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from models.closures import record_fan_out, store_closure, stored_closures
from models.database import make_engine, session_factory
from models.schema import ClosureDay
from rules.kernel.calendars import LITERAL, CalendarLayers
from rules.kernel.jurisdictions import jurisdiction
from workflows.shot_clock_support import frozen_calendar


def test_a_stored_closure_reaches_a_clock_opened_later(database_url: str) -> None:
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    try:
        assert store_closure(sessions, "cotati", "2026-06-01", "power outage", "admin@city.test")
        assert not store_closure(sessions, "cotati", "2026-06-01", "again", "admin@city.test")
        assert store_closure(sessions, "federal", "2026-06-02", "", "admin@city.test")
        assert stored_closures(sessions, "cotati") == [("2026-06-01", "power outage")]

        snapshot = frozen_calendar(jurisdiction("cotati"), stored_closures(sessions, "cotati"))
        layers = CalendarLayers.from_dict(snapshot.layers)
        assert date(2026, 6, 1) in layers.closure_dates
        assert "power outage" in layers.calendar(LITERAL).closure_reason(date(2026, 6, 1))
        assert date(2026, 12, 24) in layers.closure_dates  # the file's own closures too
        assert snapshot.pack_data is not None and snapshot.pack_data["key"] == "cotati-2024"

        record_fan_out(sessions, "cotati", "2026-06-01", ["B-2", "A-1"])
        with sessions() as session:
            row = session.scalar(select(ClosureDay).where(ClosureDay.date == "2026-06-01"))
            assert row is not None and row.applications == ["A-1", "B-2"]
    finally:
        engine.dispose()
