"""What the fault tests share: a real Temporal dev server on a SQLite file (with
per-workflow time skipping, so 60-day clocks run out in seconds), a real SMTP server
(aiosmtpd) that records what it accepted, and `clearance worker` in its own process.

Sizes: the short form runs in the normal suite; `python -m bench.soak` sets
`CLEARANCE_FAULT_CLOCKS` (500) for the long form.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, select
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import TimeSkipper, TimeSkippingConfig

from bench.processes import SmtpRecorder, WorkerProcess
from models.database import make_engine, session_factory
from models.schema import Notice
from models.shot_clock import ClockEvent, ShotClockInput
from models.workflow_ids import shot_clock_workflow_id
from stack.ports import free_port
from stack.temporal_server import TIME_SKIPPING_ARGS, DevServer
from tests.workflows.clock_helpers import application
from workflows.shot_clock import ShotClockWorkflow
from workflows.shot_clock_support import ClockState

T = TypeVar("T")
FAULT_CLOCKS = int(os.environ.get("CLEARANCE_FAULT_CLOCKS", "0"))
OPERATOR = "operator@city.test"
# Far enough to pass the deadline (60 days, rolled past a weekend or holiday) and the
# expiry escalation at midnight after it.
PAST_DEADLINE = timedelta(days=70)


def kill_server(server: DevServer) -> None:
    """SIGKILL the dev server's process group: a crash, no clean shutdown."""
    process, server._process = server._process, None
    if process is not None and process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)


def clock_count(short: int) -> int:
    """The short form's size, or the soak's."""
    return FAULT_CLOCKS or short


@dataclass
class FaultStack:
    tmp: Path
    server: DevServer
    client: Client
    skipper: TimeSkipper
    smtp: SmtpRecorder
    worker: WorkerProcess
    task_queue: str
    database_url: str
    engine: Engine
    background: list[asyncio.Task[Any]] = field(default_factory=list)

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run `work` in the background; cancelled when the stack stops (a failed test
        leaves no fast-forward polling a server that is gone)."""
        task = asyncio.create_task(work)
        self.background.append(task)
        return task

    async def restart_server(self, *, kill: bool = True) -> None:
        """Stop the dev server (SIGKILL or a clean stop) and start it on the same file."""
        if kill:
            await asyncio.to_thread(kill_server, self.server)
        else:
            await asyncio.to_thread(self.server.stop)
        self.server = DevServer(
            self.server.db_file, port=self.server.port, ui_port=None, extra_args=TIME_SKIPPING_ARGS
        )
        await asyncio.to_thread(self.server.start)
        self.client = await Client.connect(self.server.address)
        self.skipper = TimeSkipper(self.client, config=TimeSkippingConfig(enabled=False))


@asynccontextmanager
async def fault_stack(
    tmp: Path, *, database_url: str | None = None, **worker_settings: str
) -> AsyncIterator[FaultStack]:
    task_queue = f"faults-{uuid.uuid4()}"
    database_url = database_url or f"sqlite:///{tmp / 'clearance.db'}"
    server = DevServer(
        tmp / "temporal.db", port=free_port(), ui_port=None, extra_args=TIME_SKIPPING_ARGS
    )
    await asyncio.to_thread(server.start)
    smtp = SmtpRecorder()
    smtp.start()
    worker = WorkerProcess.beside(
        tmp,
        temporal_address=server.address,
        task_queue=task_queue,
        database_url=database_url,
        smtp_port=smtp.port,
        CLEARANCE_OPERATOR_EMAIL=OPERATOR,
        **worker_settings,
    )
    engine = make_engine(database_url)
    stack: FaultStack | None = None
    try:
        client = await Client.connect(server.address)
        worker.start()
        await asyncio.to_thread(worker.wait_ready)
        stack = FaultStack(
            tmp=tmp,
            server=server,
            client=client,
            skipper=TimeSkipper(client, config=TimeSkippingConfig(enabled=False)),
            smtp=smtp,
            worker=worker,
            task_queue=task_queue,
            database_url=database_url,
            engine=engine,
        )
        yield stack
    finally:
        if stack is not None:
            for task in stack.background:
                task.cancel()
            await asyncio.gather(*stack.background, return_exceptions=True)
        worker.kill()
        smtp.stop()
        # The server the test ends with (a restart test replaces the first one).
        await asyncio.to_thread((stack.server if stack else server).stop)
        engine.dispose()


@dataclass
class OpenedClock:
    application_id: str
    expected: set[str]  # the notice keys it must send: two reminders and the escalation


async def open_clocks(stack: FaultStack, count: int, concurrency: int = 50) -> list[OpenedClock]:
    """`count` 60-day SWF clocks submitted today, reminders 7 and 1 days before."""
    submitted = datetime.now(UTC).date()
    gate = asyncio.Semaphore(concurrency)

    async def one(_: int) -> OpenedClock:
        app = application("swf_collocation", time_zone="UTC", reminder_offsets=[7, 1])
        app.window_alert_offsets = []
        clock_input = ShotClockInput(
            application=app, events=[ClockEvent("submitted", submitted.isoformat())]
        )
        deadline = ClockState(clock_input).clock(datetime.now(UTC))["conservative_date"]
        async with gate:
            await stack.skipper.client.start_workflow(
                ShotClockWorkflow.run,
                clock_input,
                id=shot_clock_workflow_id(app.application_id),
                task_queue=stack.task_queue,
            )
        aid = app.application_id
        return OpenedClock(
            aid,
            {
                f"{aid}:reminder:{deadline}:7d",
                f"{aid}:reminder:{deadline}:1d",
                f"{aid}:expiry:{deadline}",
            },
        )

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def fast_forward_all(
    stack: FaultStack,
    clocks: list[OpenedClock],
    concurrency: int = 25,
    by: timedelta = PAST_DEADLINE,
) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(clock: OpenedClock) -> None:
        async with gate:
            handle = stack.skipper.client.get_workflow_handle(
                shot_clock_workflow_id(clock.application_id)
            )
            await stack.skipper.fast_forward(handle, by)

    await asyncio.gather(*(one(c) for c in clocks))


def delivered_rows(engine: Engine) -> dict[str, Notice]:
    with session_factory(engine)() as session:
        return {
            row.notice_key: row
            for row in session.scalars(select(Notice).where(Notice.delivery_state == "delivered"))
        }


async def wait_for(what: str, check: Callable[[], Awaitable[Any]], timeout: float) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = await check()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.5)


async def statuses(client: Client, clocks: list[OpenedClock]) -> dict[str, str]:
    """Each clock's workflow status (RUNNING, COMPLETED, FAILED, ...)."""

    async def one(clock: OpenedClock) -> tuple[str, str]:
        handle: WorkflowHandle[Any, Any] = client.get_workflow_handle(
            shot_clock_workflow_id(clock.application_id)
        )
        desc = await handle.describe()
        status = desc.status or WorkflowExecutionStatus.RUNNING
        return clock.application_id, status.name

    return dict(await asyncio.gather(*(one(c) for c in clocks)))


def check_exactly_once(stack: FaultStack, clocks: list[OpenedClock]) -> dict[str, int]:
    """Every expected notice accepted by the SMTP server under one Message-ID and recorded
    once as delivered; nothing unexpected. Returns counts for the report."""
    expected = set().union(*(c.expected for c in clocks))
    accepted = stack.smtp.by_key()
    rows = delivered_rows(stack.engine)
    missing = sorted(expected - set(accepted))
    assert not missing, f"{len(missing)} notices never reached the SMTP server: {missing[:5]}"
    unexpected = sorted(set(accepted) - expected)
    assert not unexpected, f"notices nobody asked for: {unexpected[:5]}"
    for key in expected:
        ids = {a.message_id for a in accepted[key]}
        assert len(ids) == 1, f"{key} went out under {len(ids)} Message-IDs"
        assert key in rows, f"{key} is not recorded as delivered in the notices table"
    # A copy accepted twice can only come from a kill after the server has taken the
    # message and before the client has read its "250" and noted it in the accepted
    # journal (activities/mail.py): SMTP cannot close that window, so such a copy carries
    # the same Message-ID (checked above), which mail clients show once. Counted, reported.
    resent = sum(len(v) - 1 for v in accepted.values())
    return {"notices": len(expected), "accepted": len(stack.smtp.accepted), "resent": resent}


def today() -> date:
    return datetime.now(UTC).date()
