"""Activities that keep the permit-clock read model current (permit_clocks and
permit_clock_events). Upserts keyed by stable ids: a retried activity writes no second row."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from temporalio import activity

from activities.clock_rows import ClockRows, ClockTables
from models.permit_clock import PermitClockRecord, PermitEventRecord, all_clocks
from models.schema import PermitClockRow, PermitEventRow

# A permit clock's row is keyed by its clock_id; its events refer to it by the same name.
TABLES = ClockTables(PermitClockRow.__table__, PermitEventRow.__table__, "clock_id")


def next_deadline(clock: dict[str, Any]) -> str | None:
    """The earliest conservative date among the clocks still to be met."""
    dates = [
        c["conservative_date"]
        for c in all_clocks(clock)
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
        self._rows = ClockRows(engine, TABLES)

    @activity.defn
    def record_permit_clock(self, rec: PermitClockRecord) -> None:
        info = rec.info
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
        }
        self._rows.record_clock(info.clock_id, values, rec.events)

    @activity.defn
    def record_permit_event(self, rec: PermitEventRecord) -> None:
        self._rows.record_event(rec.clock_id, rec.event)
