"""Helpers for workflow tests: settings on a temporary folder, opening a clock."""

from __future__ import annotations

import dataclasses
import email
import uuid
from datetime import date
from pathlib import Path

from temporalio.client import Client, WorkflowHandle

from models.shot_clock import (
    ApplicationInfo,
    CalendarSnapshot,
    ClockEvent,
    Contacts,
    ShotClockInput,
)
from models.workflow_ids import shot_clock_workflow_id
from rules.kernel.calendars import jurisdiction_layers
from rules.shot_clock.packs import rule_pack as pack_of
from settings import Settings, load_settings
from workflows.shot_clock import ShotClockWorkflow


def settings_for_test(data_dir: Path, task_queue: str, database_url: str | None = None) -> Settings:
    """Settings on a temporary folder; the app database is `database_url` (the
    `database_url` fixture: PostgreSQL under scripts/test) or a SQLite file there."""
    base = load_settings()
    return dataclasses.replace(
        base,
        data_dir=data_dir,
        database_url=database_url or f"sqlite:///{data_dir / 'clearance.db'}",
        outbox_dir=data_dir / "outbox",
        smtp_host="",
        task_queue=task_queue,
    )


def application(
    category: str | None = "macro_collocation",
    *,
    batch: list[str] | None = None,
    state: str | None = "CA",
    time_zone: str = "UTC",
    rule_pack: str = "federal",
    reminder_offsets: list[int] | None = None,
    window_alert_offsets: list[int] | None = None,
    frozen: bool = False,
) -> ApplicationInfo:
    """A test application; `frozen` freezes the rule pack and the calendar layers of its
    state (federal, state, judicial; no adopted days) as the opening path does (8.9)."""
    app_id = f"APP-{uuid.uuid4().hex[:8]}"
    info = ApplicationInfo(
        application_id=app_id,
        category=None if batch else category,
        batch=batch or [],
        site_address="201 W Sierra Ave, Cotati",
        calendar=CalendarSnapshot(
            jurisdiction="cotati",
            state=state,
            time_zone=time_zone,
            rule_pack=rule_pack,
            layers=jurisdiction_layers(state).to_dict() if frozen else None,
            pack_data=dict(pack_of(rule_pack).data) if frozen else None,
        ),
        contacts=Contacts(
            planner_email="planner@city.test",
            supervisor_email="supervisor@city.test",
            attorney_email="attorney@city.test",
            applicant_email="siteacq@carrier.test",
            applicant_name="Carrier Site Acquisition",
        ),
    )
    if reminder_offsets is not None:
        info.reminder_offsets = reminder_offsets
    if window_alert_offsets is not None:
        info.window_alert_offsets = window_alert_offsets
    return info


async def open_clock(
    client: Client, task_queue: str, app: ApplicationInfo, submitted: date
) -> WorkflowHandle[ShotClockWorkflow, dict]:
    return await client.start_workflow(
        ShotClockWorkflow.run,
        ShotClockInput(application=app, events=[ClockEvent("submitted", submitted.isoformat())]),
        id=shot_clock_workflow_id(app.application_id),
        task_queue=task_queue,
    )


def outbox_messages(outbox: Path) -> list[email.message.Message]:
    if not outbox.exists():
        return []
    return [email.message_from_bytes(p.read_bytes()) for p in sorted(outbox.glob("*.eml"))]


def notice_keys(outbox: Path) -> list[str]:
    return sorted(m["X-Clearance-Notice-Key"] for m in outbox_messages(outbox))
