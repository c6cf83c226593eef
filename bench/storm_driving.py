"""What bench/storm.py drives: the clocks opened in batches, and staff on the web app
while the storm drains."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from sqlalchemy import Engine
from temporalio.client import Client

from bench.harness import (
    SHOT_CLOCK_QUEUE,
    count_applications,
    wait_for_rows,
)
from models.shot_clock import ShotClockInput
from models.workflow_ids import shot_clock_workflow_id
from workflows.shot_clock import ShotClockWorkflow

BATCH = 500  # clocks started per batch before waiting for their rows
START_CONCURRENCY = 50  # start_workflow calls in flight
WEB_BEFORE_S = 30.0  # web latency sampled this long before 08:00, for comparison
WEB_PAUSE_S = 0.5  # each simulated staff member pauses this long between pages

# -- opening clocks --------------------------------------------------------------------


async def open_batches(
    client: Client,
    engine: Engine,
    inputs: list[ShotClockInput],
    prefix: str,
    already: int,
    *,
    stop_at: float | None = None,
    start_seconds: list[float] | None = None,
) -> int:
    """Start the clocks in batches of BATCH (START_CONCURRENCY calls in flight), waiting
    after each batch until every application row exists (the worker has caught up, so no
    backlog of first tasks is left for 08:00). Stops early, between batches, once
    `stop_at` (time.time()) is near. Returns how many were opened."""
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def one(clock_input: ShotClockInput) -> None:
        async with gate:
            await client.start_workflow(
                ShotClockWorkflow.run,
                clock_input,
                id=shot_clock_workflow_id(clock_input.application.application_id),
                task_queue=SHOT_CLOCK_QUEUE,
            )

    opened = 0
    t0 = time.monotonic()
    batch_seconds = 0.0  # the last batch's duration: the next one must end before stop_at
    while opened < len(inputs):
        if stop_at is not None and time.time() + batch_seconds > stop_at:
            print(f"  stopped opening: 08:00 is near ({opened:,} of {len(inputs):,})", flush=True)
            break
        batch = inputs[opened : opened + BATCH]
        started = time.monotonic()
        batch_started = started
        await asyncio.gather(*(one(c) for c in batch))
        if start_seconds is not None:
            start_seconds.append((time.monotonic() - started) / len(batch))
        opened += len(batch)
        await wait_for_rows(
            count_applications,
            engine,
            prefix,
            already + opened,
            timeout=1800,
            what=f"{prefix} application rows",
        )
        batch_seconds = time.monotonic() - batch_started
        rate = opened / (time.monotonic() - t0)
        print(f"  {prefix} {already + opened:>6,} open ({rate:.1f}/s)", flush=True)
    return opened


# -- the web driver --------------------------------------------------------------------


@dataclass
class WebSample:
    started: float  # time.time()
    ms: float
    page: str


async def drive_web(
    base_url: str,
    cookies: dict[str, httpx.Cookies],
    pages: list[tuple[str, str, Callable[[int], str]]],
    users: int,
    until: asyncio.Event,
    samples: list[WebSample],
) -> None:
    """`users` staff members, each fetching the main pages in turn with a pause between."""

    async def staff(n: int) -> None:
        clients = {
            who: httpx.AsyncClient(base_url=base_url, cookies=jar, timeout=60)
            for who, jar in cookies.items()
        }
        try:
            i = n
            while not until.is_set():
                name, who, url = pages[i % len(pages)]
                started = time.time()
                t = time.perf_counter()
                try:
                    response = await clients[who].get(url(i))
                    await response.aread()
                    ok = response.status_code == 200
                except httpx.HTTPError:
                    ok = False  # a dropped connection is a failed page, not the end of the run
                ms = (time.perf_counter() - t) * 1000
                # A failed page counts as slow as it was, and is named in the figures.
                samples.append(WebSample(started, ms, name if ok else f"{name} (failed)"))
                i += 1
                await asyncio.sleep(WEB_PAUSE_S)
        finally:
            for c in clients.values():
                await c.aclose()

    await asyncio.gather(*(staff(n) for n in range(users)))
