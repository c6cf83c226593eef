"""Crash recovery against the sticky-queue timeout: after kill -9 of a worker, how long
until a workflow it had cached serves an update, for each CLEARANCE_STICKY_QUEUE_TIMEOUT_
SECONDS given.

For each value: a Temporal dev server, `clearance worker` with that timeout, one shot
clock that has served an update (so the worker holds it and the server sends its next
task to the worker's own, sticky, queue), kill -9 of the worker, a new worker started,
then the update `notify_applicant_upload` timed from the moment it is sent until it
returns. Run: `python -m bench.sticky_recovery [--timeouts 10 60 120 300] [--json PATH]`.
Figures in docs/operations.md ("After a worker crash").
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporalio.client import Client

from bench.common import add_json_option, command_line, exit_now, write_json
from bench.harness import application
from bench.processes import WorkerProcess
from models.shot_clock import ApplicantUploadInput, ClockEvent, ShotClockInput
from models.workflow_ids import shot_clock_workflow_id
from stack.ports import free_port
from stack.temporal_server import DevServer
from workflows.shot_clock import ShotClockWorkflow

DEFAULT_TIMEOUTS = (10, 60, 120, 300)


def upload(n: int) -> ApplicantUploadInput:
    return ApplicantUploadInput(
        filename=f"sheet-{n}.pdf",
        sha256=uuid.uuid4().hex * 2,
        size=1000 + n,
        uploaded_by="siteacq@carrier.test",
        uploaded_at=datetime.now(UTC).isoformat(),
    )


async def one_run(timeout_s: int, work: Path) -> dict[str, Any]:
    """Seconds from sending the update to its answer, the first after the crash."""
    server = DevServer(work / "temporal.db", port=free_port(), ui_port=None)
    await asyncio.to_thread(server.start)
    task_queue = f"sticky-{uuid.uuid4().hex[:8]}"
    worker = WorkerProcess.beside(
        work,
        temporal_address=server.address,
        task_queue=task_queue,
        database_url=f"sqlite:///{work / 'clearance.db'}",
        smtp_port=None,
        CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS=str(timeout_s),
    )
    try:
        client = await Client.connect(server.address)
        worker.start()
        await asyncio.to_thread(worker.wait_ready)
        app_id = f"STICKY-{uuid.uuid4().hex[:6]}"
        handle = await client.start_workflow(
            ShotClockWorkflow.run,
            ShotClockInput(
                application=application(app_id, "macro_collocation"),
                events=[ClockEvent("submitted", datetime.now(UTC).date().isoformat())],
            ),
            id=shot_clock_workflow_id(app_id),
            task_queue=task_queue,
        )
        # Served once: the worker now holds the workflow, its next task goes sticky.
        await handle.execute_update("notify_applicant_upload", upload(0))
        worker.kill()
        killed = time.monotonic()
        worker.start()
        await asyncio.to_thread(worker.wait_ready)
        ready = time.monotonic() - killed
        sent = time.monotonic()
        await handle.execute_update(
            "notify_applicant_upload", upload(1), rpc_timeout=timedelta(seconds=timeout_s + 120)
        )
        served = time.monotonic() - sent
        return {
            "sticky_timeout_s": timeout_s,
            "new_worker_ready_s": round(ready, 1),
            "update_served_s": round(served, 1),
            "since_kill_s": round(time.monotonic() - killed, 1),
        }
    finally:
        worker.kill()
        await asyncio.to_thread(server.stop)


async def main(timeouts: list[int]) -> list[dict[str, Any]]:
    rows = []
    for value in timeouts:
        with tempfile.TemporaryDirectory(prefix="sticky-") as work:
            row = await one_run(value, Path(work))
        rows.append(row)
        print(
            f"sticky-queue timeout {row['sticky_timeout_s']:>4} s: new worker ready "
            f"{row['new_worker_ready_s']:>5} s after the kill; the next update served "
            f"{row['update_served_s']:>6} s after it was sent ({row['since_kill_s']} s after "
            "the kill)",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    parser = command_line(__doc__)
    parser.add_argument("--timeouts", type=int, nargs="+", default=list(DEFAULT_TIMEOUTS))
    add_json_option(parser)
    args = parser.parse_args()
    figures = asyncio.run(main(args.timeouts))
    write_json(args.json, figures)
    exit_now()
