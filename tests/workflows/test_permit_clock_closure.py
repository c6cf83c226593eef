"""A closure day added for a whole jurisdiction reaches its open permit clocks through
the fan-out: an AB 2234 business-day review moves by one business day, a building
permit's calendar-day expiry does not; each clock's ledger and read model say so, the
same day twice changes nothing, and a clock that is gone is reported."""

from __future__ import annotations

from datetime import date

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.worker import Replayer

from models.permit_clock import PermitEvent
from models.shot_clock import (
    JurisdictionClosureInput,
    JurisdictionClosureResult,
    LocalClosureInput,
)
from rules.kernel.calendars import LITERAL
from rules.permit_clocks.jurisdictions import base_layers
from tests.workflows.permit_helpers import PermitHarness, days, permit_info, today, wait_for
from worker import WORKFLOW_RUNNER
from workflows.jurisdiction_closure import JurisdictionClosureWorkflow
from workflows.permit_clock import PermitClockWorkflow


def a_business_day_after(start: date) -> date:
    """A day the city's offices would be open, a week or so ahead."""
    calendar = base_layers("cotati", "CA").calendar(LITERAL)
    day = start + days(7)
    while not calendar.is_business_day(day):
        day += days(1)
    return day


async def fan_out(
    h: PermitHarness, day: date, permit_ids: list[str], run: str
) -> JurisdictionClosureResult:
    """What the admin page starts: the day to every listed permit clock (no shot clocks)."""
    with h.env.with_time_skipping_disabled():
        return await h.env.client.execute_workflow(
            JurisdictionClosureWorkflow.run,
            JurisdictionClosureInput(
                "cotati", day.isoformat(), "admin@city.test", [], permit_ids, reason="furlough day"
            ),
            id=f"closure-permit-test-{run}-{h.task_queue}",
            task_queue=h.task_queue,
        )


async def test_a_closure_day_reaches_open_permit_clocks_through_the_fan_out(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    start = today()
    review_info = permit_info("ca_post_entitlement_review", facts={"units": 12})
    review = await h.open(review_info, [PermitEvent("complete", (start - days(2)).isoformat())])
    expiry_info = permit_info("building_permit_expiry")
    expiry = await h.open(expiry_info, [PermitEvent("approved", start.isoformat())])
    before_review = await review.query(PermitClockWorkflow.clock)
    before_expiry = await expiry.query(PermitClockWorkflow.clock)

    closed = a_business_day_after(start)
    assert closed.isoformat() < before_review["due_date"]
    ids = [review_info.clock_id, expiry_info.clock_id, "PC-NO-SUCH-CLOCK"]
    result = await fan_out(h, closed, ids, "first")
    assert result.changed == [] and result.refused == []
    assert result.permit_changed == sorted(ids[:2])
    assert result.permit_refused == ["PC-NO-SUCH-CLOCK: the clock has finished"]

    # The review counts business days: the closure pushes its literal date one business
    # day on (the earliest reading, which does not count local closures, stays).
    after_review = await review.query(PermitClockWorkflow.clock)
    calendar = base_layers("cotati", "CA").calendar(LITERAL)
    one_more = calendar.add_business_days(date.fromisoformat(before_review["due_date"]), 1)
    while one_more == closed:  # never: the closure is before the due date
        one_more += days(1)
    assert after_review["due_date"] == one_more.isoformat()
    assert after_review["conservative_date"] == before_review["conservative_date"]
    line = next(e for e in after_review["ledger"] if e["event"] == "local_closure")
    # The administrator's reason travels with the day: an attorney reads why it moved.
    assert (
        f"closure day {closed.isoformat()} (furlough day) added by admin@city.test"
        in line["effect"]
    )
    assert f"due_date {before_review['due_date']} -> {one_more.isoformat()}" in line["effect"]
    # The read model follows (the deadlines list and the permit page read it).
    await wait_for(
        lambda: getattr(h.row(review_info.clock_id), "due_date", None) == one_more.isoformat(),
        "the review's row to move",
    )

    # A calendar-day expiry that does not roll does not move; its ledger says so.
    after_expiry = await expiry.query(PermitClockWorkflow.clock)
    assert after_expiry["due_date"] == before_expiry["due_date"]
    line = next(e for e in after_expiry["ledger"] if e["event"] == "local_closure")
    assert line["effect"].endswith("no date moved")

    # The same day twice changes nothing: refused by the clock, harmless in a rerun.
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await review.execute_update(
            PermitClockWorkflow.add_local_closure,
            LocalClosureInput(closed.isoformat(), "admin@city.test"),
        )
    assert "already a local closure day" in str(refused.value.cause)
    again = await fan_out(h, closed, ids, "again")
    assert again.permit_changed == sorted(ids[:2])
    final = await review.query(PermitClockWorkflow.clock)
    assert final["due_date"] == one_more.isoformat()
    assert [e["event"] for e in final["ledger"]].count("local_closure") == 1

    # The history with the closure replays with today's code.
    await Replayer(
        workflows=[PermitClockWorkflow], workflow_runner=WORKFLOW_RUNNER
    ).replay_workflow(await review.fetch_history())
