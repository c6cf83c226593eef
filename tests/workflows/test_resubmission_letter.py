"""A resubmission sends the applicant the new dates, once: the incompleteness letter
promises it."""

from __future__ import annotations

from datetime import date, timedelta

from models.shot_clock import IncompleteNoticeInput, ResubmissionInput
from notices.filters import letterdate
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


async def test_a_resubmission_sends_the_new_dates_exactly_once(harness: Harness) -> None:  # noqa: F811
    app = application("macro_collocation", reminder_offsets=[], window_alert_offsets=[])
    start = today()
    handle = await harness.open(app, start)
    await harness.forward_to(handle, at_8am(start + timedelta(days=5)))
    await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice,
        IncompleteNoticeInput((start + timedelta(days=5)).isoformat(), [RF]),
    )
    await harness.forward_to(handle, at_8am(start + timedelta(days=12)))
    resubmitted = await handle.execute_update(
        ShotClockWorkflow.record_resubmission,
        ResubmissionInput((start + timedelta(days=12)).isoformat()),
    )
    conservative = resubmitted.clock["conservative_date"]
    key = f"resubmission:{resubmitted.event_id}"
    await wait_for(lambda: key in harness.sent(app.application_id), "the resubmission letter")
    # Replays (a query rebuilds the workflow from history on a fresh worker task) and
    # later activity never send it again.
    await handle.query(ShotClockWorkflow.summary)
    await harness.forward_to(handle, at_8am(start + timedelta(days=13)))
    letters = [
        m
        for m in outbox_messages(harness.outbox)
        if m["X-Clearance-Notice-Key"] == f"{app.application_id}:{key}"
    ]
    assert len(letters) == 1
    letter = letters[0]
    assert letter["To"] and app.contacts.applicant_email in letter["To"]
    plain = next(p for p in letter.walk() if p.get_content_type() == "text/plain")
    body = plain.get_payload(decode=True).decode(plain.get_content_charset() or "utf-8")
    assert f"The City will act by {letterdate(conservative)}" in body
    assert "answering the notice of incompleteness of" in body
    notice_day = date.fromisoformat((start + timedelta(days=5)).isoformat())
    assert letterdate(notice_day.isoformat()) in body
    assert "Resubmission received" in letter["Subject"]
