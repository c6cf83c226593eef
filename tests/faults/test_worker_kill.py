"""kill -9 the worker again and again while a burst of clocks sends its reminders and
expiry escalations: every notice reaches the SMTP server and is recorded once, and no
workflow fails. What the README promises, asserted: a notice reaches the server a second
time only when a kill cut off the send that carried it after the server had accepted it
(it was the last message on a connection that never said QUIT: the worker keeps a
thread's connection for its next letter, so earlier ones on it had finished), so no more
copies are resent than sends a kill cut off that way; and every resent copy carries the
notice's one Message-ID.

The worker is the real `clearance worker` in its own process; it is killed with SIGKILL
(no drain) one to three seconds after each start, while the clocks are fast-forwarded
past their deadlines, and started again, up to 3 times in the short form (20 clocks, 60
notices) and once per 25 clocks in the soak (500 clocks, 1,500 notices).

The SMTP server holds each message a moment before accepting it, so that the burst
keeps the worker's 8 threads busy for at least 5 s, longer than the first kill can take
to come: with notices sent as local activities, an unhindered burst of 60 was over
before it. A kill leaves the sends it cut off to the next attempt of their workflow
tasks (after the 10 s task timeout), so the later kills come before the burst is over
too. Kills without end would leave little but timeouts: each one costs the clocks it
interrupts another 10 s, and the burst would outlast the test's patience.
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
BURST_SMTP_SECONDS = 40.0  # the SMTP server's holding time, summed over the burst


async def test_kill_9_worker_during_burst_delivers_each_notice_once(tmp_path: Path) -> None:
    count = clock_count(20)
    async with fault_stack(tmp_path) as stack:
        clocks = await open_clocks(stack, count)
        expected = set().union(*(c.expected for c in clocks))
        stack.smtp.delay = BURST_SMTP_SECONDS / len(expected)
        done = asyncio.Event()
        kills: list[float] = []  # when each killed worker was gone

        async def killer() -> None:
            rng = random.Random(5)
            while not done.is_set() and len(kills) < max(3, count // 25):
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
        # The last worker stops cleanly and says QUIT on the connections it kept, so the
        # connections left without QUIT are exactly the killed workers'.
        assert await asyncio.to_thread(stack.worker.terminate) == 0

        counts = check_exactly_once(stack, clocks)  # includes: one Message-ID per notice
        # The last message of each connection a kill left without QUIT: the sends a kill
        # can have cut off after the server's acceptance (one per connection at most).
        cut_off = stack.smtp.cut_off()
        # Every such connection was cut by a kill after its last message (the server may log
        # the acceptance of data that arrived just before the kill a moment after the
        # process is gone: SLACK).
        assert all(any(k + SLACK >= c.at for k in kills) for c in cut_off), "cut off, no kill"
        landing = sum(
            1
            for i, k in enumerate(kills)
            if any((kills[i - 1] + SLACK if i else 0.0) < c.at <= k + SLACK for c in cut_off)
        )
        cut_sends = {(c.session, c.notice_key) for c in cut_off}
        for key, copies in stack.smtp.by_key().items():
            # Every copy but the last was the last message on a connection a kill cut off:
            # a letter that a kept connection went on from is never sent again.
            early = [c for c in copies[:-1] if (c.session, key) not in cut_sends]
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
