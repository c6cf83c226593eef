"""A worker whose notices go to a real SMTP server (aiosmtpd) and whose notice activity
crashes once right after each delivery: what the exactly-once tests of both kinds of
clock need."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest_asyncio
from temporalio.testing import WorkflowEnvironment

from activities.mail import SmtpTransport
from activities.notices import NoticeActivities
from models.database import make_engine
from notices.render import NoticeRenderer
from settings import Settings
from stack.ports import free_port
from tests.activities.smtp_server import start_smtp
from tests.workflows.clock_helpers import settings_for_test
from worker import build_worker


@dataclass
class CrashOnceAfterDelivery:
    """The worker dies right after the SMTP server accepted the message, once per key."""

    crashed: set[str] = field(default_factory=set)

    def __call__(self, req: Any) -> None:
        if req.notice_key not in self.crashed:
            self.crashed.add(req.notice_key)
            raise RuntimeError(f"simulated crash after delivering {req.notice_key}")


@dataclass
class SmtpWorker:
    env: WorkflowEnvironment
    settings: Settings
    task_queue: str
    inbox: Any  # tests.activities.smtp_server's Collector: messages, for_key()
    crash: CrashOnceAfterDelivery


@pytest_asyncio.fixture
async def smtp_worker(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: ThreadPoolExecutor,
) -> AsyncIterator[SmtpWorker]:
    settings = settings_for_test(data_dir, task_queue, database_url)
    controller, inbox = start_smtp(free_port())
    crash = CrashOnceAfterDelivery()
    notices = NoticeActivities(
        make_engine(settings.database_url),
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", controller.port),
        after_delivery=crash,
        mail_from=settings.mail_from,
    )
    try:
        async with build_worker(
            time_skipping_env.client,
            settings,
            executor=activity_executor,
            notice_activities=notices,
        ):
            yield SmtpWorker(time_skipping_env, settings, task_queue, inbox, crash)
    finally:
        controller.stop()
