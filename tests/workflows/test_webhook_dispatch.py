"""WebhookDispatchWorkflow on a Temporal server with the real worker: an event recorded
in the read model reaches a receiver this test starts, which refuses it once; the
dispatcher tries again after the backoff, and the receiver gets it signed."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.testing import WorkflowEnvironment

from activities.webhooks import WebhookActivities
from models.database import make_engine, session_factory
from models.schema import Application, ClockEventRow, WebhookSubscription
from models.webhooks import verify
from tests.activities.webhook_receiver import Receiver
from tests.workflows.clock_helpers import settings_for_test
from worker import build_worker, ensure_webhook_dispatch

SECRET = "dispatch-secret"


async def test_an_event_reaches_the_receiver_after_one_refusal(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = time_skipping_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    engine = make_engine(settings.database_url)
    now = datetime.now(UTC)
    with Receiver([503]) as receiver:
        with session_factory(engine).begin() as db:
            db.add(WebhookSubscription(url=receiver.url, secret=SECRET, events=["clock.opened"],
                                       active=True, created_at=now))  # fmt: skip
        WebhookActivities(engine).dispatch_webhooks()  # the cursors start before the event
        with session_factory(engine).begin() as db:
            db.add(Application(application_id="WH-1", workflow_id="shot-clock-WH-1",
                               jurisdiction="cotati", category="swf_collocation",
                               status="running", created_at=now, updated_at=now))  # fmt: skip
            db.flush()
            today = now.date().isoformat()
            db.add(ClockEventRow(application_id="WH-1", event_id="e0", type="submitted",
                                 date=today, payload={}, recorded_at=now))  # fmt: skip
        async with build_worker(env.client, settings, executor=activity_executor):
            with env.with_time_skipping_disabled():
                await ensure_webhook_dispatch(env.client, task_queue)
                await ensure_webhook_dispatch(env.client, task_queue)  # idempotent
                deadline = time.monotonic() + 60
                while len(receiver.received) < 2:
                    assert time.monotonic() < deadline, receiver.received
                    await asyncio.sleep(0.2)
    refused, accepted = receiver.received
    assert refused["body"] == accepted["body"]  # the same delivery, tried again
    headers = accepted["headers"]
    assert verify(SECRET, headers["X-Clearance-Timestamp"], accepted["body"],
                  headers["X-Clearance-Signature"])  # fmt: skip
    assert json.loads(accepted["body"])["id"] == "WH-1"
