"""Notices sent by a running clock through a real SMTP server: when the notice activity
crashes after delivery, Temporal retries it and the message still arrives once; and a
replayed workflow (a worker restart with no cache) sends nothing again."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio.worker import Replayer

from activities.mail import NOTICE_KEY_HEADER
from models.shot_clock import IncompleteNoticeInput, NoticeItem
from tests.workflows.clock_helpers import application, open_clock
from tests.workflows.smtp_helpers import SmtpWorker
from tests.workflows.test_shot_clock_workflow import today, wait_for
from worker import WORKFLOW_RUNNER
from workflows.shot_clock import ShotClockWorkflow


async def test_a_retried_notice_activity_delivers_exactly_once(smtp_worker: SmtpWorker) -> None:
    env, task_queue, inbox, crash = (
        smtp_worker.env,
        smtp_worker.task_queue,
        smtp_worker.inbox,
        smtp_worker.crash,
    )
    app = application("macro_collocation", reminder_offsets=[7], window_alert_offsets=[])
    start = today()
    with env.with_time_skipping_disabled():
        handle = await open_clock(env.client, task_queue, app, start)
    await env.fast_forward(handle, timedelta(days=5))
    await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice,
        IncompleteNoticeInput(
            (start + timedelta(days=5)).isoformat(),
            [NoticeItem("A", "RF emissions report", "CMC 17.44.070(A)")],
        ),
    )
    letter_key = f"{app.application_id}:incompleteness:0002-incomplete_notice"
    await wait_for(lambda: len(inbox.for_key(letter_key)) >= 1, "the letter", 20)
    await asyncio.sleep(1.5)  # room for a (wrong) second delivery to show up
    assert letter_key in crash.crashed, "the simulated crash did not happen"
    assert len(inbox.for_key(letter_key)) == 1
    recipients, message = inbox.for_key(letter_key)[0]
    assert recipients == ["siteacq@carrier.test", "planner@city.test"]
    assert "Municipal Code § 17.44.070(A)" in message.get_body(("plain",)).get_content()

    # Replaying the whole history with today's code is deterministic.
    history = await handle.fetch_history()
    await Replayer(workflows=[ShotClockWorkflow], workflow_runner=WORKFLOW_RUNNER).replay_workflow(
        history
    )
    assert {m[NOTICE_KEY_HEADER] for _, m in inbox.messages} == {letter_key}
