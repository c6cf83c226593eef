"""kill -9 the worker again and again while a burst of clocks sends its reminders and
expiry escalations: every notice reaches the SMTP server under one Message-ID and is
recorded once, and no workflow fails.

The worker is the real `clearance worker` in its own process; it is killed with SIGKILL
(no drain) one to three seconds after each start, while the clocks are fast-forwarded
past their deadlines, and started again. Short form: 20 clocks (60 notices); the soak:
500 (1,500 notices).
"""

from __future__ import annotations

import asyncio
import random
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

KILL_AFTER = (1.0, 3.0)  # seconds the worker runs once ready before the next kill


async def test_kill_9_worker_during_burst_delivers_each_notice_once(tmp_path: Path) -> None:
    count = clock_count(20)
    async with fault_stack(tmp_path) as stack:
        clocks = await open_clocks(stack, count)
        expected = set().union(*(c.expected for c in clocks))
        done = asyncio.Event()
        kills = 0

        async def killer() -> None:
            nonlocal kills
            rng = random.Random(5)
            while not done.is_set():
                await asyncio.sleep(rng.uniform(*KILL_AFTER))
                if done.is_set():
                    break
                stack.worker.kill()
                kills += 1
                stack.worker.start()
                await asyncio.to_thread(stack.worker.wait_ready)

        killing = asyncio.create_task(killer())
        try:
            await fast_forward_all(stack, clocks)

            async def all_accepted() -> bool:
                return expected <= set(stack.smtp.keys())

            await wait_for(f"{len(expected)} notices at the SMTP server", all_accepted, 60 + count)
        finally:
            done.set()
            await killing
        await asyncio.to_thread(stack.worker.wait_ready)
        await asyncio.sleep(2.0)  # anything still to come (a duplicate) would arrive now

        counts = check_exactly_once(stack, clocks)
        print(f"\n{count} clocks, {kills} kills: {counts}")
        assert kills >= 2, "the burst ended before the worker was killed twice"
        failed = {
            k: v
            for k, v in (await statuses(stack.client, clocks)).items()
            if v not in ("RUNNING", "COMPLETED")
        }
        assert not failed, f"workflows not running or completed: {failed}"
