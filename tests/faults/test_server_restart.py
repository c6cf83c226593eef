"""The Temporal dev server is killed (SIGKILL) and started again on its SQLite file in
the middle of many clocks: every timer still fires, each notice once, and the worker (a
separate `clearance worker` process, never restarted) reconnects by itself.

The clocks are fast-forwarded 40 days (before any reminder is due), the server is killed
and restarted, and they are fast-forwarded 30 more days: past both reminders and the
expiry escalation. tests/test_restart.py is the single-clock, in-process version.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from tests.faults.stack import (
    check_exactly_once,
    clock_count,
    fast_forward_all,
    fault_stack,
    open_clocks,
    statuses,
    wait_for,
)

pytestmark = pytest.mark.slow


async def test_server_killed_and_restarted_mid_run_every_timer_fires(tmp_path: Path) -> None:
    count = clock_count(20)
    async with fault_stack(tmp_path) as stack:
        clocks = await open_clocks(stack, count)
        expected = set().union(*(c.expected for c in clocks))
        await fast_forward_all(stack, clocks, by=timedelta(days=40))
        assert stack.smtp.keys() == []  # nothing due yet

        await stack.restart_server(kill=True)
        # The same worker process carries on: it reconnects to the new server.
        await asyncio.to_thread(stack.worker.wait_ready)
        worker_pid = stack.worker.pid

        await fast_forward_all(stack, clocks, by=timedelta(days=30))

        async def all_accepted() -> bool:
            return expected <= set(stack.smtp.keys())

        await wait_for(f"{len(expected)} notices at the SMTP server", all_accepted, 60 + count)
        await asyncio.sleep(2.0)
        counts = check_exactly_once(stack, clocks)
        assert counts["resent"] == 0, counts
        assert stack.worker.pid == worker_pid and stack.worker.starts == 1
        failed = {
            k: v
            for k, v in (await statuses(stack.client, clocks)).items()
            if v not in ("RUNNING", "COMPLETED")
        }
        assert not failed, failed
