"""A clock whose applicant address was stored before addresses were validated (with a line
break and a Bcc header in it) goes on: the letter to that address is refused and recorded
as failed, never sent, and the clock still takes the next event."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from models.database import make_engine, session_factory
from models.schema import Notice
from models.shot_clock import IncompleteNoticeInput, ResubmissionInput
from tests.workflows.clock_helpers import application, outbox_messages
from tests.workflows.test_shot_clock_workflow import (  # noqa: F401 (the fixture)
    RF,
    Harness,
    at_8am,
    harness,
    today,
    wait_for,
)
from workflows.shot_clock import ShotClockWorkflow

INJECTION = "a@b.example\r\nBcc: x@y.example"


async def test_a_stored_injected_address_fails_the_letter_not_the_clock(
    harness: Harness,  # noqa: F811
) -> None:
    app = application("macro_collocation", reminder_offsets=[], window_alert_offsets=[])
    app = dataclasses.replace(
        app, contacts=dataclasses.replace(app.contacts, applicant_email=INJECTION)
    )
    start = today()
    handle = await harness.open(app, start)
    await harness.forward_to(handle, at_8am(start + timedelta(days=5)))
    await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice,
        IncompleteNoticeInput((start + timedelta(days=5)).isoformat(), [RF]),
    )
    engine = make_engine(harness.settings.database_url)

    def failed() -> list[Notice]:
        with session_factory(engine)() as session:
            rows = session.query(Notice).filter(Notice.application_id == app.application_id)
            return [r for r in rows if r.delivery_state == "failed"]

    await wait_for(lambda: bool(failed()), "the refused letter's row")
    row = failed()[0]
    assert row.last_error.startswith("BadAddress: recipient ")
    assert INJECTION in row.to_addrs  # kept as stored
    # Nothing went out with the injected header, to anyone.
    for message in outbox_messages(harness.outbox):
        assert message["Bcc"] is None and "x@y.example" not in str(message)

    # The clock goes on: the next event is taken.
    resubmitted = await handle.execute_update(
        ShotClockWorkflow.record_resubmission,
        ResubmissionInput((start + timedelta(days=5)).isoformat()),
    )
    assert resubmitted.clock["conservative_date"]
    summary = await handle.query(ShotClockWorkflow.summary)
    assert summary is not None
