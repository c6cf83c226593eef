"""The app database (a real PostgreSQL cluster) is stopped for a while and started again
in the middle of many clocks: the activities retry, no workflow fails, no event is lost
(planner actions taken during the outage are recorded once it is back), and every
notice is delivered exactly once. The worker's /readyz says the database is unreachable
while it is down.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from models.database import session_factory
from models.schema import Application, ClockEventRow
from models.shot_clock import NonTollingEventInput
from models.workflow_ids import shot_clock_workflow_id
from stack.ports import port_open
from stack.postgres import PostgresCluster, find_pg_bin_dir
from tests.faults.stack import (
    check_exactly_once,
    clock_count,
    fast_forward_all,
    fault_stack,
    open_clocks,
    statuses,
    wait_for,
)
from tests.real_parts import missing
from workflows.shot_clock import ShotClockWorkflow

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_pg_bin_dir() is None, reason=missing("PostgreSQL", "no PostgreSQL server installed")
    ),
]

OUTAGE_SECONDS = 8.0


def stop_database(cluster: PostgresCluster) -> None:
    """Stop the cluster and make sure it is down (nothing listens on its port)."""
    for _ in range(3):
        cluster.stop()
        if not port_open("127.0.0.1", cluster.port):
            return
        time.sleep(1.0)
    raise AssertionError(f"PostgreSQL still listens on {cluster.port}; see {cluster.log_file}")


def readyz(port: int) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def test_database_down_then_back_loses_nothing(tmp_path: Path) -> None:
    count = clock_count(10)
    cluster = PostgresCluster(tmp_path / "pg")
    await asyncio.to_thread(cluster.start)
    try:
        url = await asyncio.to_thread(cluster.create_database, "clearance_faults")
        async with fault_stack(tmp_path, database_url=url) as stack:
            clocks = await open_clocks(stack, count)
            expected = set().union(*(c.expected for c in clocks))
            sessions = session_factory(stack.engine)

            async def all_recorded() -> bool:
                with sessions() as session:
                    return len(list(session.scalars(select(Application.application_id)))) == count

            await wait_for("every application row", all_recorded, 60)

            await asyncio.to_thread(stop_database, cluster)  # the database goes away
            status, body = await asyncio.to_thread(readyz, stack.worker.health_port)
            assert status == 503, body
            checks = body["checks"]
            assert isinstance(checks, dict) and checks["temporal"] == "ok"
            assert checks["database"] != "ok"

            # A planner records a hearing notice on some clocks while it is down: the
            # update waits for its record_event activity, which retries.
            today = datetime.now(UTC).date().isoformat()
            noted = clocks[: max(1, count // 2)]
            updates = [
                asyncio.create_task(
                    stack.client.get_workflow_handle(
                        shot_clock_workflow_id(c.application_id)
                    ).execute_update(
                        ShotClockWorkflow.record_non_tolling_event,
                        NonTollingEventInput(date=today, kind="hearing_notice", note="outage"),
                    )
                )
                for c in noted
            ]
            # All at once: a clock's fast-forward waits while its notice cannot be sent.
            forwarding = stack.spawn(fast_forward_all(stack, clocks, concurrency=count))
            await asyncio.sleep(OUTAGE_SECONDS)
            assert stack.smtp.keys() == []  # nothing can be recorded, so nothing is sent
            assert not any(u.done() for u in updates)
            running = await statuses(stack.client, clocks)
            assert set(running.values()) == {"RUNNING"}, running

            await asyncio.to_thread(cluster.start)  # back, same port and data
            results = await asyncio.wait_for(asyncio.gather(*updates), 120 + count)
            assert all(r.event_id for r in results)
            await asyncio.wait_for(forwarding, 120 + count)

            async def all_accepted() -> bool:
                return expected <= set(stack.smtp.keys())

            await wait_for("every notice at the SMTP server", all_accepted, 120 + count)
            await asyncio.sleep(2.0)
            counts = check_exactly_once(stack, clocks)
            assert counts["resent"] == 0, counts
            with sessions() as session:
                hearing = session.scalars(
                    select(ClockEventRow.application_id).where(
                        ClockEventRow.type == "hearing_notice"
                    )
                ).all()
            assert sorted(hearing) == sorted(c.application_id for c in noted)
            failed = {
                k: v
                for k, v in (await statuses(stack.client, clocks)).items()
                if v not in ("RUNNING", "COMPLETED")
            }
            assert not failed, failed
            status, body = await asyncio.to_thread(readyz, stack.worker.health_port)
            assert status == 200, body
    finally:
        await asyncio.to_thread(cluster.remove)
