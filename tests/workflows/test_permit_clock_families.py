"""More permit-clock lifecycles on the real dev server with time skipping: AB 2234's
business-day review (reminders counted in business days, a pause for an outside agency
dropping them, the resumption moving them, the lapse escalated as an HAA violation);
notices delivered exactly once to a real SMTP server although the notice activity crashes
after delivery; and a multi-year tentative map continuing as new with its state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest_asyncio
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from activities.mail import NOTICE_KEY_HEADER
from models.permit_clock import PermitEvent, PermitEventInput
from rules.permit_clocks import reminder_plan
from tests.conftest import start_time_skipping_server
from tests.polling import polls
from tests.workflows.clock_helpers import settings_for_test
from tests.workflows.permit_helpers import (
    PermitHarness,
    at_8am,
    days,
    permit_info,
    query_ready,
    today,
    wait_for,
)
from tests.workflows.smtp_helpers import SmtpWorker
from worker import WORKFLOW_RUNNER, build_worker
from workflows.permit_clock import PermitClockWorkflow


def plan_dates(clock_request: dict[str, Any], offsets: list[int]) -> dict[int, date]:
    """offset -> reminder date, from the rules core (the workflow must agree)."""
    return {r.offset: r.date for r in reminder_plan(clock_request, offsets) if r.kind == "reminder"}


async def test_ab2234_review_reminds_in_business_days_and_a_pause_moves_them(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    info = permit_info("ca_post_entitlement_review", facts={"units": 12}, offsets=[10])
    start = today()
    handle = await h.open(info, [PermitEvent("complete", start.isoformat())])
    clock = await handle.query(PermitClockWorkflow.clock)
    assert clock["counting"] == "business_days"
    due = date.fromisoformat(clock["conservative_date"])
    request = {
        "rule": info.rule,
        "jurisdiction": "cotati",
        "facts": {"units": 12},
        "events": [{"type": "complete", "date": start.isoformat()}],
    }
    remind = plan_dates(request, [10])[10]
    # Ten business days before, not ten calendar days: weekends are skipped.
    assert remind < due - timedelta(days=10) and remind.weekday() < 5

    await h.forward_to(handle, at_8am(remind) + timedelta(minutes=5))
    first = f"ca_post_entitlement_review:reminder:{due.isoformat()}:10"
    await wait_for(lambda: first in h.sent(info.clock_id), "the business-day reminder")

    # The fire district reviews: the clock pauses (no alerts), then resumes later.
    await handle.execute_update(
        PermitClockWorkflow.record_event,
        PermitEventInput("paused", remind.isoformat(), {"reason": "outside_agency_review"}),
    )
    paused = await handle.query(PermitClockWorkflow.clock)
    assert paused["status"] == "paused"
    await h.forward_to(handle, at_8am(remind + days(21)))
    assert h.sent(info.clock_id) == [first]  # nothing fires while paused
    resumed_on = remind + days(21)
    result = await handle.execute_update(
        PermitClockWorkflow.record_event, PermitEventInput("resumed", resumed_on.isoformat())
    )
    new_due = result.clock["conservative_date"]
    assert new_due > due.isoformat()

    await h.forward_to(handle, at_8am(date.fromisoformat(new_due) + days(1)))
    lapse = f"ca_post_entitlement_review:lapse:{new_due}"
    await wait_for(lambda: lapse in h.sent(info.clock_id), "the HAA-violation escalation")
    row = h.row(info.clock_id)
    assert row is not None and row.consequence == "haa_violation"


async def test_permit_notices_reach_a_real_smtp_server_exactly_once(
    smtp_worker: SmtpWorker,
) -> None:
    h = PermitHarness(smtp_worker.env, smtp_worker.settings, smtp_worker.task_queue)
    inbox, crash = smtp_worker.inbox, smtp_worker.crash
    info = permit_info("cotati_sign_permit_expiry", offsets=[7])
    approved = today() - days(340)
    handle = await h.open(info, [PermitEvent("approved", approved.isoformat())])
    clock = await handle.query(PermitClockWorkflow.clock)
    expiry = date.fromisoformat(clock["conservative_date"])
    await h.forward_to(handle, at_8am(expiry - days(7)) + timedelta(minutes=5))
    key = f"permit:{info.clock_id}:cotati_sign_permit_expiry:reminder:{expiry}:7"
    await wait_for(lambda: len(inbox.for_key(key)) >= 1, "the reminder", 30)
    await h.forward_to(handle, at_8am(expiry + days(1)))
    lapse = f"permit:{info.clock_id}:cotati_sign_permit_expiry:lapse:{expiry}"
    await wait_for(lambda: len(inbox.for_key(lapse)) >= 1, "the escalation", 30)
    await asyncio.sleep(1.5)  # room for a (wrong) second delivery to show up
    assert {key, lapse} <= crash.crashed, "the simulated crashes did not happen"
    assert len(inbox.for_key(key)) == len(inbox.for_key(lapse)) == 1
    recipients, message = inbox.for_key(key)[0]
    assert recipients[0] == "owner@applicant.test"
    body = message.get_body(("plain",)).get_content()
    assert "no later than" in body and "Planning Department" in body
    recipients, _ = inbox.for_key(lapse)[0]
    assert recipients[:2] == ["supervisor@city.test", "attorney@city.test"]

    # Replaying the history with today's code is deterministic and sends nothing.
    history = await handle.fetch_history()
    await Replayer(
        workflows=[PermitClockWorkflow], workflow_runner=WORKFLOW_RUNNER
    ).replay_workflow(history)
    assert {m[NOTICE_KEY_HEADER] for _, m in inbox.messages} == {key, lapse}


@pytest_asyncio.fixture
async def early_continue_as_new_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_time_skipping_server(30)
    yield env
    await env.shutdown()


async def test_a_multi_year_map_continues_as_new_with_its_state(
    early_continue_as_new_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = early_continue_as_new_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(env.client, settings, executor=activity_executor):
        h = PermitHarness(env, settings, task_queue)
        info = permit_info(
            "ca_tentative_map_expiry", facts={"ordinance_months": 12}, offsets=[90, 30, 14, 7, 1]
        )
        approved = today()
        handle = await h.open(info, [PermitEvent("approved", approved.isoformat())])
        first_run = (await handle.describe()).run_id
        clock = await handle.query(PermitClockWorkflow.clock)
        expiry = date.fromisoformat(clock["conservative_date"])
        assert (expiry - approved).days > 3 * 365
        # Events and reminders grow the history until the server suggests continuing.
        await h.forward_to(handle, at_8am(expiry - days(30)) + timedelta(minutes=5))
        await wait_for(lambda: len(h.sent(info.clock_id)) >= 2, "the first reminders")
        requested = expiry - days(20)
        await h.forward_to(handle, at_8am(requested))
        await handle.execute_update(
            PermitClockWorkflow.record_event,
            PermitEventInput("extension_requested", requested.isoformat()),
        )
        granted = await handle.execute_update(
            PermitClockWorkflow.record_event,
            PermitEventInput("extension_granted", requested.isoformat(), {"months": 12}),
        )
        # The extension moves the expiry a year on: the reminders follow it.
        new_expiry = date.fromisoformat(granted.clock["conservative_date"])
        assert (new_expiry - expiry).days >= 365
        await h.forward_to(handle, at_8am(new_expiry - days(7)) + timedelta(minutes=5))
        key = f"ca_tentative_map_expiry:reminder:{new_expiry}:7"
        await wait_for(lambda: key in h.sent(info.clock_id), "the moved reminder")
        assert f"ca_tentative_map_expiry:reminder:{expiry}:7" not in h.sent(info.clock_id)

        async def continued() -> bool:
            latest = h.env.client.get_workflow_handle(handle.id)
            return (await latest.describe()).run_id != first_run

        for _ in polls():
            if await continued():
                break
            await asyncio.sleep(0.1)
        assert await continued(), "the workflow did not continue as new"
        latest = h.env.client.get_workflow_handle(handle.id)
        summary = await query_ready(latest, PermitClockWorkflow.summary)
        assert [e.type for e in summary.events] == [
            "approved",
            "extension_requested",
            "extension_granted",
        ]
        sent = h.sent(info.clock_id)
        assert sorted(summary.sent_alerts) == sorted(sent)
        assert len(sent) == len(set(sent))
