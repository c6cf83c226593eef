"""A reminder costs its clock one workflow task: the notice is a local activity, sent in
the task that the reminder's timer wakes. With a scheduled activity a second task took
its result, and in an 08:00 storm that task found the clock evicted and replayed it again
(docs/storm.md, "The fifth round")."""

from __future__ import annotations

from datetime import date, timedelta

from temporalio.api.enums.v1 import EventType

from tests.workflows.clock_helpers import application
from tests.workflows.test_shot_clock_workflow import Harness, at_8am, wait_for
from workflows.clock_common import LOCAL_ACTIVITIES
from workflows.shot_clock import ShotClockWorkflow


async def test_a_reminder_is_sent_in_the_workflow_task_its_timer_wakes(harness: Harness) -> None:
    app = application("macro_collocation", reminder_offsets=[7], window_alert_offsets=[])
    handle = await harness.open(app)
    deadline = (await handle.query(ShotClockWorkflow.clock))["conservative_date"]
    key = f"reminder:{deadline}:7d"
    await harness.forward_to(handle, at_8am(date.fromisoformat(deadline) - timedelta(days=6)))
    await wait_for(lambda: key in harness.sent(app.application_id), "the 7-day reminder")

    events = [e async for e in handle.fetch_history_events()]
    fired = [i for i, e in enumerate(events) if e.event_type == EventType.EVENT_TYPE_TIMER_FIRED]
    assert fired, "the reminder's timer never fired"
    # From the reminder's timer to the next timer armed (or the end of the history so far).
    after = events[fired[0] + 1 :]
    rearmed = next(
        (i for i, e in enumerate(after) if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED),
        len(after),
    )
    types = [e.event_type for e in after[:rearmed]]
    assert types.count(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) == 1, types
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in types, types
    # The notice's result is in the history as the local activity's marker.
    assert EventType.EVENT_TYPE_MARKER_RECORDED in types, types
    patches = [
        e
        for e in events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and LOCAL_ACTIVITIES.encode() in e.SerializeToString()
    ]
    assert patches, "a new clock did not take the local-activity path"
    assert harness.sent(app.application_id).count(key) == 1
