"""What the workflow benchmarks share: a real dev server on a temporary SQLite file, the
real Clearance worker in this process, and opening clocks the way the CLI and tests do."""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, func, select
from temporalio.client import Client
from temporalio.worker import Worker

from bench.common import CATEGORIES as CATEGORIES  # the workflow benchmarks take it from here
from bench.minimal import MinimalWorkflow, noop
from models.database import make_engine
from models.schema import Application, ClockEventRow
from models.shot_clock import (
    ApplicationInfo,
    CalendarSnapshot,
    ClockEvent,
    Contacts,
    ShotClockInput,
)
from models.workflow_ids import shot_clock_workflow_id
from settings import Settings, load_settings
from stack.ports import free_port
from stack.temporal_server import DevServer
from worker import WORKFLOW_RUNNER, build_worker, ensure_search_attributes
from workflows.shot_clock import ShotClockWorkflow

SHOT_CLOCK_QUEUE = "bench-shot-clocks"
MINIMAL_QUEUE = "bench-minimal"
POLL_INTERVAL = 0.05

T = TypeVar("T")


@dataclass
class Stack:
    server: DevServer
    client: Client
    settings: Settings
    engine: Engine
    work_dir: Path


def bench_settings(work_dir: Path) -> Settings:
    return dataclasses.replace(
        load_settings(),
        data_dir=work_dir,
        database_url=f"sqlite:///{work_dir / 'clearance.db'}",
        outbox_dir=work_dir / "outbox",
        smtp_host="",
        task_queue=SHOT_CLOCK_QUEUE,
    )


@asynccontextmanager
async def server_and_client() -> AsyncIterator[Stack]:
    """A headless dev server on a temporary SQLite file and a free port."""
    with tempfile.TemporaryDirectory(prefix="clearance-bench-") as tmp:
        work_dir = Path(tmp)
        server = DevServer(work_dir / "temporal.db", port=free_port(), ui_port=None)
        await asyncio.to_thread(server.start)
        try:
            client = await Client.connect(server.address)
            settings = bench_settings(work_dir)
            await ensure_search_attributes(client, settings.temporal_namespace)
            engine = make_engine(settings.database_url)
            try:
                yield Stack(server, client, settings, engine, work_dir)
            finally:
                engine.dispose()
        finally:
            await asyncio.to_thread(server.stop)


@asynccontextmanager
async def running_workers(
    stack: Stack, *, minimal: bool = True, **worker_options: Any
) -> AsyncIterator[None]:
    """The real Clearance worker and (optionally) the minimal one, in this process."""
    async with AsyncExitStack() as exits:
        clock_pool = exits.enter_context(ThreadPoolExecutor(max_workers=16))
        workers = [
            build_worker(stack.client, stack.settings, executor=clock_pool, **worker_options)
        ]
        if minimal:
            minimal_pool = exits.enter_context(ThreadPoolExecutor(max_workers=16))
            workers.append(
                Worker(
                    stack.client,
                    task_queue=MINIMAL_QUEUE,
                    workflows=[MinimalWorkflow],
                    activities=[noop],
                    activity_executor=minimal_pool,
                    workflow_runner=WORKFLOW_RUNNER,
                    **worker_options,
                )
            )
        for w in workers:
            await exits.enter_async_context(w)
        yield


def application(app_id: str, category: str) -> ApplicationInfo:
    """An application as the city would open it (default reminder offsets)."""
    return ApplicationInfo(
        application_id=app_id,
        category=category,
        batch=[],
        site_address="201 W Sierra Ave, Cotati",
        calendar=CalendarSnapshot(
            jurisdiction="cotati", state="CA", time_zone="UTC", rule_pack="federal"
        ),
        contacts=Contacts(
            planner_email="planner@city.test",
            supervisor_email="supervisor@city.test",
            attorney_email="attorney@city.test",
            applicant_email="siteacq@carrier.test",
            applicant_name="Carrier Site Acquisition",
        ),
    )


async def open_clock(client: Client, app_id: str, category: str) -> None:
    """Start a clock submitted today: nothing is due yet, so no notice fires."""
    today = datetime.now(UTC).date().isoformat()
    await client.start_workflow(
        ShotClockWorkflow.run,
        ShotClockInput(
            application=application(app_id, category),
            events=[ClockEvent("submitted", today)],
        ),
        id=shot_clock_workflow_id(app_id),
        task_queue=SHOT_CLOCK_QUEUE,
    )


async def bounded(
    count: int, make: Callable[[int], Awaitable[T]], concurrency: int | None = None
) -> list[T]:
    """Run make(0..count-1) concurrently (at most `concurrency` at a time if given)."""
    if concurrency is None:
        return list(await asyncio.gather(*(make(i) for i in range(count))))
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> T:
        async with gate:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


def _count(engine: Engine, table: Any, column: Any, prefix: str) -> int:
    stmt = select(func.count()).select_from(table).where(column.startswith(prefix))
    with engine.connect() as conn:
        return int(conn.execute(stmt).scalar_one())


def row_counter(model: Any, column: Any) -> Callable[[Engine, str], int]:
    """Counts `model`'s rows whose `column` starts with a prefix (for wait_for_rows)."""
    return lambda engine, prefix: _count(engine, model.__table__, column, prefix)


def count_applications(engine: Engine, prefix: str) -> int:
    return _count(engine, Application.__table__, Application.application_id, prefix)


def count_events(engine: Engine, prefix: str) -> int:
    return _count(engine, ClockEventRow.__table__, ClockEventRow.application_id, prefix)


async def wait_for_rows(
    counter: Callable[[Engine, str], int],
    engine: Engine,
    prefix: str,
    expected: int,
    *,
    timeout: float,
    what: str,
    poll: float = POLL_INTERVAL,
) -> float:
    """Poll (every 50 ms by default) until `expected` rows exist; return the monotonic
    time seen."""
    deadline = time.monotonic() + timeout
    while True:
        found = await asyncio.to_thread(counter, engine, prefix)
        now = time.monotonic()
        if found >= expected:
            return now
        if now > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {expected} {what}; {found} exist")
        await asyncio.sleep(poll)
