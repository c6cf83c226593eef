"""kill -9 the worker again and again while a burst of clocks sends its reminders and
expiry escalations: every notice reaches the SMTP server and is recorded once, and no
workflow fails. What the README promises, asserted: a notice reaches the server a second
time only when a kill cut off the send that carried it after the server had accepted it
(its connection never said QUIT), so no more copies are resent than sends a kill cut off
that way; and every resent copy carries the notice's one Message-ID.

The worker is the real `clearance worker` in its own process; it is killed with SIGKILL
(no drain) one to three seconds after each start, while the clocks are fast-forwarded
past their deadlines, and started again. Short form: 20 clocks (60 notices); the soak:
500 (1,500 notices).
"""

from __future__ import annotations

import asyncio
import random
import time
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
SLACK = 1.0


async def test_kill_9_worker_during_burst_delivers_each_notice_once(tmp_path: Path) -> None:
    count = clock_count(20)
    async with fault_stack(tmp_path) as stack:
        clocks = await open_clocks(stack, count)
        expected = set().union(*(c.expected for c in clocks))
        done = asyncio.Event()
        kills: list[float] = []  # when each killed worker was gone

        async def killer() -> None:
            rng = random.Random(5)
            while not done.is_set():
                await asyncio.sleep(rng.uniform(*KILL_AFTER))
                if done.is_set():
                    break
                stack.worker.kill()
                kills.append(time.time())
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

        counts = check_exactly_once(stack, clocks)  # includes: one Message-ID per notice
        cut_off = stack.smtp.cut_off()
        # A send cut off after acceptance happens only when a kill lands inside it (the
        # server may log the acceptance of data that arrived just before the kill a moment
        # after the process is gone: SLACK).
        assert all(any(k + SLACK >= c.at for k in kills) for c in cut_off), "cut off, no kill"
        landing = sum(
            1
            for i, k in enumerate(kills)
            if any((kills[i - 1] + SLACK if i else 0.0) < c.at <= k + SLACK for c in cut_off)
        )
        for key, copies in stack.smtp.by_key().items():
            # Every copy but the last was carried by a send that a kill cut off.
            cut_sessions = {c.session for c in cut_off}
            early = [c for c in copies[:-1] if c.session not in cut_sessions]
            assert not early, f"{key} was sent again though its earlier send had finished"
        print(
            f"\n{count} clocks, {len(kills)} kills ({landing} landing inside a send after the "
            f"server's acceptance, cutting off {len(cut_off)} sends): {counts}"
        )
        assert counts["resent"] <= len(cut_off), (
            f"{counts['resent']} copies resent but only {len(cut_off)} sends were cut off"
        )
        assert len(kills) >= 2, "the burst ended before the worker was killed twice"
        failed = {
            k: v
            for k, v in (await statuses(stack.client, clocks)).items()
            if v not in ("RUNNING", "COMPLETED")
        }
        assert not failed, f"workflows not running or completed: {failed}"
