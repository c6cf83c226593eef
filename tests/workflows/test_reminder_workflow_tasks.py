"""A reminder costs its clock one workflow task: the notice is a local activity, sent in
the task that the reminder's timer wakes. With a scheduled activity a second task took
its result, and in an 08:00 storm that task found the clock evicted and replayed it again
(docs/storm.md, "The fifth round")."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHandle

from tests.workflows.clock_helpers import application
from tests.workflows.test_shot_clock_workflow import Harness, at_8am, wait_for
from workflows.clock_common import LOCAL_ACTIVITIES
from workflows.shot_clock import ShotClockWorkflow

SLEEP_OR_END = {
    EventType.EVENT_TYPE_TIMER_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
}


async def history_until_rearmed(
    handle: WorkflowHandle[Any, Any], timeout: float = 60.0
) -> list[HistoryEvent]:
    """The history once the clock has gone back to sleep after its first fired timer (or
    ended): the notice reaches the outbox before the task that records it completes."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        events = [e async for e in handle.fetch_history_events()]
        kinds = [e.event_type for e in events]
        if EventType.EVENT_TYPE_TIMER_FIRED in kinds:
            after = kinds[kinds.index(EventType.EVENT_TYPE_TIMER_FIRED) + 1 :]
            if SLEEP_OR_END & set(after):
                return events
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the clock did not go back to sleep: {kinds}")
        await asyncio.sleep(0.05)


async def test_a_reminder_is_sent_in_the_workflow_task_its_timer_wakes(harness: Harness) -> None:
    app = application("macro_collocation", reminder_offsets=[7], window_alert_offsets=[])
    handle = await harness.open(app)
    deadline = (await handle.query(ShotClockWorkflow.clock))["conservative_date"]
    key = f"reminder:{deadline}:7d"
    await harness.forward_to(handle, at_8am(date.fromisoformat(deadline) - timedelta(days=6)))
    await wait_for(lambda: key in harness.sent(app.application_id), "the 7-day reminder")

    events = await history_until_rearmed(handle)
    fired = [i for i, e in enumerate(events) if e.event_type == EventType.EVENT_TYPE_TIMER_FIRED]
    assert fired, "the reminder's timer never fired"
    # From the reminder's timer to the next timer armed (or the clock's end).
    after = events[fired[0] + 1 :]
    rearmed = next((i for i, e in enumerate(after) if e.event_type in SLEEP_OR_END), len(after))
    types = [e.event_type for e in after[:rearmed]]
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in types, types
    # One workflow task completed between the timer firing and the clock going back to
    # sleep (a task that timed out on a loaded machine and ran again is still that one),
    # and the notice's result is in the history as the local activity's marker.
    assert types.count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) == 1, types
    assert EventType.EVENT_TYPE_MARKER_RECORDED in types, types
    patches = [
        e
        for e in events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and LOCAL_ACTIVITIES.encode() in e.SerializeToString()
    ]
    assert patches, "a new clock did not take the local-activity path"
    assert harness.sent(app.application_id).count(key) == 1
