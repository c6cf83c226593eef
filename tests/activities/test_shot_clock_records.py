"""The read-model activities are idempotent upserts: a retry never adds a row."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.shot_clock_records import ShotClockRecords
from models.database import make_engine, session_factory
from models.schema import Application, ClockEventRow
from models.shot_clock import ApplicationRecord, ClockEvent, EventRecord, NoticeItem
from tests.activities.fixtures import make_application, make_clock, sqlite_url

SUBMITTED = {"type": "submitted", "date": "2026-01-05"}
NOTICE = {
    "type": "incomplete_notice",
    "date": "2026-01-15",
    "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
}


def count(engine: Engine, model: type) -> int:
    with session_factory(engine)() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def test_make_engine_creates_the_folder_and_uses_wal(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path / "nested"))
    try:
        assert (tmp_path / "nested" / "db" / "clearance.db").exists()
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 5000
    finally:
        engine.dispose()


def test_record_application_twice_updates_one_row(engine: Engine) -> None:
    records = ShotClockRecords(engine)
    env = ActivityEnvironment()
    app = make_application()
    first_clock = make_clock("macro_collocation", [SUBMITTED])
    env.run(
        records.record_application,
        ApplicationRecord(application=app, clock=first_clock, workflow_id="shot-clock-APP-1"),
    )
    with session_factory(engine)() as session:
        row = session.get(Application, "APP-1")
        assert row is not None
        created_at, first_updated = row.created_at, row.updated_at
        assert row.status == "running"
        assert row.shot_clock_date == first_clock["shot_clock_date"]

    second_clock = make_clock("macro_collocation", [SUBMITTED, NOTICE], as_of="2026-01-20")
    assert second_clock["status"] == "tolled"
    env.run(
        records.record_application,
        ApplicationRecord(
            application=app, clock=second_clock, workflow_id="shot-clock-APP-1", risk_flagged=True
        ),
    )

    assert count(engine, Application) == 1
    with session_factory(engine)() as session:
        row = session.get(Application, "APP-1")
        assert row is not None
        assert row.status == "tolled"
        assert row.shot_clock_date == second_clock["shot_clock_date"]
        assert row.conservative_date == second_clock["conservative_date"]
        assert row.risk_flagged is True
        assert row.clock == second_clock
        assert row.category == "macro_collocation"
        assert row.jurisdiction == "City of Cotati" and row.state == "CA"
        assert row.planner_email == app.contacts.planner_email
        assert row.created_at == created_at
        assert row.updated_at >= first_updated


def test_record_batch_application_takes_category_from_clock(engine: Engine) -> None:
    batch = ["swf_collocation", "swf_new_structure"]
    app = make_application("APP-B", category=None, batch=batch)
    clock = make_clock(None, [SUBMITTED], batch=batch)
    ActivityEnvironment().run(
        ShotClockRecords(engine).record_application,
        ApplicationRecord(application=app, clock=clock, workflow_id="shot-clock-APP-B"),
    )
    with session_factory(engine)() as session:
        row = session.get(Application, "APP-B")
        assert row is not None
        assert row.category == clock["category"]
        assert row.batch == batch


def test_record_event_twice_writes_one_row(engine: Engine) -> None:
    records = ShotClockRecords(engine)
    env = ActivityEnvironment()
    event = ClockEvent(
        type="incomplete_notice",
        date="2026-01-15",
        items=[NoticeItem(id="A", text="RF report", rule="CMC 17.44.070(A)")],
        note="sent by mail and e-mail",
        recorded_by="planner@cotati.example",
        event_id="ev-2",
    )
    # The workflow records its application first; PostgreSQL enforces the foreign key.
    for app_id in ("APP-1", "APP-2"):
        env.run(
            records.record_application,
            ApplicationRecord(
                application=make_application(app_id),
                clock=make_clock("macro_collocation", [SUBMITTED]),
                workflow_id=f"shot-clock-{app_id}",
            ),
        )
    env.run(records.record_event, EventRecord(application_id="APP-1", event=event))
    env.run(records.record_event, EventRecord(application_id="APP-1", event=event))
    assert count(engine, ClockEventRow) == 1

    with session_factory(engine)() as session:
        row = session.scalars(select(ClockEventRow)).one()
        assert (row.application_id, row.event_id, row.type, row.date) == (
            "APP-1",
            "ev-2",
            "incomplete_notice",
            "2026-01-15",
        )
        assert row.payload == event.to_contract()
        assert row.recorded_by == "planner@cotati.example"
        assert row.note == "sent by mail and e-mail"

    # Another event, and the same event id on another application, are new rows.
    other = ClockEvent(type="resubmitted", date="2026-01-29", event_id="ev-3")
    env.run(records.record_event, EventRecord(application_id="APP-1", event=other))
    env.run(records.record_event, EventRecord(application_id="APP-2", event=event))
    assert count(engine, ClockEventRow) == 3


def test_record_event_without_id_is_rejected(engine: Engine) -> None:
    event = ClockEvent(type="submitted", date="2026-01-05")
    with pytest.raises(ApplicationError, match="no event_id") as info:
        ActivityEnvironment().run(
            ShotClockRecords(engine).record_event, EventRecord(application_id="APP-1", event=event)
        )
    assert info.value.non_retryable
    assert count(engine, ClockEventRow) == 0


def test_record_permit_event_twice_writes_one_row_and_refuses_one_without_id(
    engine: Engine,
) -> None:
    from activities.permit_clock_records import PermitClockRecords
    from models.permit_clock import PermitClockRecord, PermitEvent, PermitEventRecord
    from models.schema import PermitEventRow
    from tests.workflows.permit_helpers import permit_info

    records = PermitClockRecords(engine)
    env = ActivityEnvironment()
    info = permit_info("building_permit_expiry", clock_id="BP-1")
    approved = PermitEvent("approved", "2026-01-05", recorded_by="a@city.test", event_id="0001")
    clock = {"rule": "building_permit_expiry", "status": "running"}
    env.run(records.record_permit_clock, PermitClockRecord(info, clock, "permit-clock-BP-1"))
    env.run(records.record_permit_event, PermitEventRecord("BP-1", approved))
    env.run(records.record_permit_event, PermitEventRecord("BP-1", approved))
    with session_factory(engine)() as session:
        row = session.scalars(select(PermitEventRow)).one()
        assert (row.clock_id, row.event_id, row.type, row.recorded_by) == (
            "BP-1",
            "0001",
            "approved",
            "a@city.test",
        )
    with pytest.raises(ApplicationError, match="no event_id"):
        env.run(
            records.record_permit_event,
            PermitEventRecord("BP-1", PermitEvent("inspection", "2026-02-01")),
        )
    assert count(engine, PermitEventRow) == 1


def test_opening_record_writes_the_clock_and_its_events_once(engine: Engine) -> None:
    """A clock's opening records the application and its events in one activity: a retry
    writes no second row, and an event without an id refuses the whole record."""
    records = ShotClockRecords(engine)
    env = ActivityEnvironment()
    events = [
        ClockEvent(type="submitted", date="2026-01-05", event_id="0001"),
        ClockEvent(
            type="incomplete_notice",
            date="2026-01-15",
            items=[NoticeItem(id="A", text="RF report", rule="CMC 17.44.070(A)")],
            event_id="0002",
        ),
    ]
    opening = ApplicationRecord(
        application=make_application("APP-O"),
        clock=make_clock("macro_collocation", [SUBMITTED, NOTICE], as_of="2026-01-20"),
        workflow_id="shot-clock-APP-O",
        events=events,
    )
    env.run(records.record_application, opening)
    env.run(records.record_application, opening)  # the retry after a lost completion
    assert count(engine, Application) == 1
    with session_factory(engine)() as session:
        rows = session.scalars(select(ClockEventRow).order_by(ClockEventRow.event_id)).all()
        assert [(r.application_id, r.event_id, r.type) for r in rows] == [
            ("APP-O", "0001", "submitted"),
            ("APP-O", "0002", "incomplete_notice"),
        ]
        assert rows[1].payload == events[1].to_contract()

    # Nothing of a refused opening is written: not the application, not its other events.
    refused = ApplicationRecord(
        application=make_application("APP-X"),
        clock=make_clock("macro_collocation", [SUBMITTED]),
        workflow_id="shot-clock-APP-X",
        events=[ClockEvent(type="submitted", date="2026-01-05", event_id="0001"), events[1]],
    )
    refused.events[1] = ClockEvent(type="resubmitted", date="2026-01-29")
    with pytest.raises(ApplicationError, match="no event_id") as info:
        env.run(records.record_application, refused)
    assert info.value.non_retryable
    assert count(engine, Application) == 1 and count(engine, ClockEventRow) == 2


def test_permit_opening_record_writes_the_clock_and_its_events_once(engine: Engine) -> None:
    from activities.permit_clock_records import PermitClockRecords
    from models.permit_clock import PermitClockRecord, PermitEvent
    from models.schema import PermitClockRow, PermitEventRow
    from tests.workflows.permit_helpers import permit_info

    records = PermitClockRecords(engine)
    env = ActivityEnvironment()
    info = permit_info("building_permit_expiry", clock_id="BP-O")
    approved = PermitEvent("approved", "2026-01-05", recorded_by="a@city.test", event_id="0001")
    issued = PermitEvent("issued", "2026-01-09", recorded_by="a@city.test", event_id="0002")
    clock = {"rule": "building_permit_expiry", "status": "running"}
    opening = PermitClockRecord(info, clock, "permit-clock-BP-O", events=[approved, issued])
    env.run(records.record_permit_clock, opening)
    env.run(records.record_permit_clock, opening)
    assert count(engine, PermitClockRow) == 1
    with session_factory(engine)() as session:
        rows = session.scalars(select(PermitEventRow).order_by(PermitEventRow.event_id)).all()
        assert [(r.clock_id, r.event_id, r.type) for r in rows] == [
            ("BP-O", "0001", "approved"),
            ("BP-O", "0002", "issued"),
        ]
