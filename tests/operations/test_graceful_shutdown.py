"""SIGTERM drains the worker: a notice being sent when the signal arrives is sent and
recorded by that worker (no cut-off attempt, no retry elsewhere), then it exits 0."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.faults.stack import delivered_rows, fault_stack, open_clocks, wait_for

pytestmark = pytest.mark.slow

SLOW_SMTP = 4.0  # seconds the mail server takes to accept each message


async def test_sigterm_lets_the_running_notice_finish(tmp_path: Path) -> None:
    async with fault_stack(tmp_path, CLEARANCE_GRACEFUL_SHUTDOWN_SECONDS="30") as stack:
        stack.smtp.delay = SLOW_SMTP
        [clock] = await open_clocks(stack, 1)
        handle = stack.skipper.client.get_workflow_handle(f"shot-clock-{clock.application_id}")
        stack.spawn(stack.skipper.fast_forward(handle, timedelta(days=55)))

        async def sending() -> bool:
            return stack.smtp.receiving > 0

        await wait_for("the first notice to reach the mail server", sending, 60)
        t0 = time.monotonic()
        code = await asyncio.to_thread(stack.worker.terminate, 60)
        waited = time.monotonic() - t0
        assert code == 0, (tmp_path / "worker.log").read_text()[-2000:]
        # It waited for the slow server to accept the message, then stopped.
        assert waited >= SLOW_SMTP / 2, waited
        [accepted] = stack.smtp.accepted
        rows = delivered_rows(stack.engine)
        assert accepted.notice_key in rows and rows[accepted.notice_key].attempts == 1
        log = (tmp_path / "worker.log").read_text()
        assert "draining running activities" in log and "worker stopped" in log
