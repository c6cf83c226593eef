"""Worker memory with 2,000 open shot clocks.

A real dev server (headless, temporary SQLite file) and the real Clearance worker in this
process, built by `worker.build_worker` exactly as shipped: its workflow cache holds
`CLEARANCE_MAX_CACHED_WORKFLOWS` runs (1,000 by default), so with 2,000 open clocks half
of them stay cached and the others are evicted, to be replayed from their history when
their next timer or update arrives. N clocks are opened (submitted today, so nothing
fires), we wait until every application row and every submitted-event row exists (each
clock has started and is asleep until its first reminder), and then read this process's
resident set size. Reported: the absolute RSS (the goal figure: the worker, the client and
the benchmark's own SQLAlchemy reader in one process), the RSS just before the worker
started, the difference, and the peak seen while opening.

By default two configurations are measured, each in a fresh process so the second does
not inherit the first one's heap: the shipped cache (the goal figure) and, for
information, a cache above the clock count (2,500 for 2,000 clocks) so every clock stays
cached. `--one` measures a single configuration in this process: the shipped cache, or
`--max-cached N`.

    .venv/bin/python -m bench.worker_memory [--count 2000] [--one [--max-cached N]] [--json FILE]
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import psutil
from temporalio.client import Client

from bench.common import add_json_option, command_line, verdict, write_json
from bench.harness import (
    CATEGORIES,
    bounded,
    count_applications,
    count_events,
    open_clock,
    running_workers,
    server_and_client,
    wait_for_rows,
)
from models.workflow_ids import shot_clock_workflow_id
from workflows.shot_clock import ShotClockWorkflow

GOAL_MIB = 300
MIB = 1024 * 1024
TIMEOUT = 600.0
START_CONCURRENCY = 100
WAKE_SAMPLES = 20
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def rss_mib() -> float:
    return psutil.Process().memory_info().rss / MIB


async def query_ms(client: Client, numbers: Iterable[int]) -> float:
    """Median latency of a `summary` query to each clock in turn, one at a time."""
    times = []
    for i in numbers:
        handle = client.get_workflow_handle(shot_clock_workflow_id(f"MEM-{i:05d}"))
        t0 = time.perf_counter()
        await handle.query(ShotClockWorkflow.summary)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def all_cached_size(count: int) -> int:
    """A cache above the clock count: nothing is ever evicted."""
    return max(2500, count + 100)


async def measure(count: int = 2000, cache: int | None = None) -> dict[str, Any]:
    """Open `count` clocks against the real worker; `cache=None` is the shipped cache."""
    peak = 0.0

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, rss_mib())
            await asyncio.sleep(0.25)

    async with server_and_client() as stack:
        shipped = stack.settings.max_cached_workflows
        # Only an explicit size is passed: the shipped case goes through build_worker's
        # own default, like `clearance worker` and the embedded stack.
        options = {} if cache is None else {"max_cached_workflows": cache}
        cache = shipped if cache is None else cache
        gc.collect()
        before = rss_mib()
        sampler = asyncio.create_task(sample())
        async with running_workers(stack, minimal=False, **options):
            idle = rss_mib()
            t0 = time.monotonic()

            async def one(i: int) -> None:
                await open_clock(stack.client, f"MEM-{i:05d}", CATEGORIES[i % len(CATEGORIES)])

            starts = asyncio.create_task(bounded(count, one, START_CONCURRENCY))
            try:
                await wait_for_rows(
                    count_applications,
                    stack.engine,
                    "MEM-",
                    count,
                    timeout=TIMEOUT,
                    what="application rows",
                )
            finally:
                await starts
            rows_at = time.monotonic()
            after_rows = rss_mib()
            await wait_for_rows(
                count_events, stack.engine, "MEM-", count, timeout=TIMEOUT, what="event rows"
            )
            # Give the last workflow tasks (search attributes, the sleep) a moment.
            await asyncio.sleep(2.0)
            gc.collect()
            settled = rss_mib()
            sampler.cancel()
            peak = max(peak, settled, after_rows)
            # What eviction costs: a query to one of the first clocks opened (evicted when
            # the cache is smaller than the clock count) must replay its history first.
            oldest = await query_ms(stack.client, range(WAKE_SAMPLES))
            newest = await query_ms(stack.client, range(count - WAKE_SAMPLES, count))
    result = {
        "count": count,
        "max_cached_workflows": cache,
        "shipped_cache": cache == shipped,
        "cached_clocks": min(count, cache),
        "rss_before_worker_mib": before,
        "rss_worker_idle_mib": idle,
        "rss_at_all_rows_mib": after_rows,
        "rss_mib": settled,
        "delta_mib": settled - before,
        "added_per_clock_kib": (settled - idle) * 1024 / max(1, count),
        "peak_mib": peak,
        "open_s": rows_at - t0,
        "query_oldest_ms": oldest,
        "query_newest_ms": newest,
    }
    print(describe(result), flush=True)
    return result


def describe(result: dict[str, Any]) -> str:
    count, cache = result["count"], result["max_cached_workflows"]
    caching = (
        "every clock cached"
        if cache >= count
        else f"{cache:,} cached, {count - cache:,} evicted and replayed on their next wake-up"
    )
    label = "shipped cache" if result["shipped_cache"] else "informational"
    # Only meaningful when nothing was evicted (evicted runs leave freed, reusable heap).
    per_clock = (
        f"~{result['added_per_clock_kib']:.0f} KiB per cached clock, " if cache >= count else ""
    )
    return (
        f"worker RSS with {count:,} open clocks, max_cached_workflows={cache:,} ({label}: "
        f"{caching}): {result['rss_mib']:.0f} MiB\n"
        f"  before the worker started {result['rss_before_worker_mib']:.0f} MiB, idle worker "
        f"{result['rss_worker_idle_mib']:.0f} MiB, delta {result['delta_mib']:+.0f} MiB, "
        f"{per_clock}peak {result['peak_mib']:.0f} MiB; {count:,} clocks opened and "
        f"recorded in {result['open_s']:.1f} s\n"
        f"  summary query, median: {result['query_oldest_ms']:.0f} ms to the first clocks "
        f"opened, {result['query_newest_ms']:.0f} ms to the last"
    )


def run(count: int = 2000, cache: int | None = None) -> dict[str, Any]:
    return asyncio.run(measure(count, cache))


def run_in_child(count: int, cache: int | None) -> dict[str, Any]:
    """One configuration in a fresh interpreter (a process's RSS hardly ever shrinks)."""
    with tempfile.TemporaryDirectory(prefix="clearance-bench-") as tmp:
        out = Path(tmp) / "memory.json"
        size = [] if cache is None else ["--max-cached", str(cache)]
        subprocess.run(
            [sys.executable, "-m", "bench.worker_memory", "--one", "--count", str(count)]
            + size
            + ["--json", str(out)],
            cwd=PROJECT_ROOT,
            check=True,
        )
        return json.loads(out.read_text())


def run_both(count: int = 2000) -> dict[str, Any]:
    """The shipped cache (the goal figure) and every clock cached (informational)."""
    result = run_in_child(count, None)
    result["all_cached"] = run_in_child(count, all_cached_size(count))
    return result


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--count", type=int, default=2000, help="clocks to open")
    parser.add_argument(
        "--one",
        action="store_true",
        help="measure one configuration in this process (default: the shipped cache, then "
        "every clock cached, each in a fresh process)",
    )
    parser.add_argument(
        "--max-cached", type=int, help="with --one: this max_cached_workflows, not the shipped"
    )
    add_json_option(parser)
    args = parser.parse_args()
    if args.max_cached is not None and not args.one:
        parser.error("--max-cached needs --one")
    if args.one:
        result = run(args.count, args.max_cached)
    else:
        result = run_both(args.count)
        print("\n" + describe(result) + "\n" + describe(result["all_cached"]))
    if result["shipped_cache"]:
        passed = verdict(result["rss_mib"] < GOAL_MIB)
        print(f"goal < {GOAL_MIB} MiB with the shipped cache: {passed}")
    write_json(args.json, result)


if __name__ == "__main__":
    main()
