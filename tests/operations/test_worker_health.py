"""The worker's /healthz and /readyz: alive while the worker runs; ready only while it
polls Temporal and the database answers (with the worker's probe: takes a write); 503
naming what failed otherwise."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy import create_engine
from temporalio.testing import WorkflowEnvironment

from models.database import make_engine, write_probe
from operations.worker_health import WorkerHealth
from stack.ports import free_port
from tests.polling import polls
from tests.workflows.clock_helpers import settings_for_test
from worker import build_worker


def get(port: int, path: str) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def fetch(port: int, path: str) -> tuple[int, dict[str, object]]:
    return await asyncio.to_thread(get, port, path)


async def test_health_and_readiness(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    activity_executor: ThreadPoolExecutor,
) -> None:
    client = time_skipping_env.client
    settings = settings_for_test(data_dir, task_queue)
    worker = build_worker(client, settings, executor=activity_executor)
    good = make_engine(settings.database_url)
    # Nothing listens on this port: the database is unreachable.
    down = create_engine(f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/clearance")
    port, bad_port = free_port(), free_port()
    ready = WorkerHealth(worker, client, good, port, host="127.0.0.1")
    no_db = WorkerHealth(worker, client, down, bad_port, host="127.0.0.1")
    try:
        async with worker:
            await ready.start()
            await no_db.start()
            # Alive while it starts; ready once it polls.
            assert await fetch(port, "/healthz") == (200, {"status": "alive"})
            for _ in polls():
                if worker.is_running:
                    break
                await asyncio.sleep(0.05)
            status, body = await fetch(port, "/readyz")
            assert status == 200, body
            assert body == {"status": "ready", "checks": {"temporal": "ok", "database": "ok"}}

            status, body = await fetch(bad_port, "/readyz")
            assert status == 503 and body["status"] == "not ready"
            checks = body["checks"]
            assert isinstance(checks, dict) and checks["temporal"] == "ok"
            assert "OperationalError" in str(checks["database"])

            # A database that answers reads but is locked for writes: not ready either.
            written = WorkerHealth(
                worker, client, good, free_port(), host="127.0.0.1", database_probe=write_probe
            )
            await written.start()
            try:
                assert (await fetch(written.port, "/readyz"))[0] == 200
                holder = sqlite3.connect(settings.database_url.removeprefix("sqlite:///"))
                holder.execute("BEGIN IMMEDIATE")
                try:
                    status, body = await fetch(written.port, "/readyz")
                finally:
                    holder.rollback()
                    holder.close()
                assert status == 503, body
                assert "database is locked" in str(body["checks"])
            finally:
                await written.stop()

            status, body = await fetch(port, "/metrics")
            assert status == 404 and "/healthz" in str(body["error"])
        # The worker has shut down: no longer alive, no longer ready.
        assert (await fetch(port, "/healthz"))[0] == 503
        status, body = await fetch(port, "/readyz")
        assert status == 503 and "not running" in str(body["checks"])
    finally:
        await ready.stop()
        await no_db.stop()
        good.dispose()
        down.dispose()
