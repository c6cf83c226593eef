"""ShotClockWorkflow start-to-first-record throughput against a minimal workflow.

One real dev server (headless, on a temporary SQLite file: the embedded default's
persistence) and, in this process, the real Clearance worker plus a worker for a minimal
workflow on its own task queue. Then, on the same server in the same run:

- minimal: N minimal workflows started concurrently; elapsed until every one has
  completed its single activity (their results are awaited);
- shot clock: N clocks opened concurrently (submitted today, default reminder offsets,
  so nothing fires); elapsed until every application row exists in the `applications`
  table (polled every 50 ms): start to first record.

Throughput is N / elapsed; the ratio is shot clock / minimal.

    .venv/bin/python -m bench.workflow_throughput [--count 200] [--rounds 1]
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.common import add_json_option, command_line, verdict, write_json
from bench.harness import (
    CATEGORIES,
    MINIMAL_QUEUE,
    Stack,
    bounded,
    count_applications,
    count_events,
    open_clock,
    running_workers,
    server_and_client,
    wait_for_rows,
)
from bench.minimal import MinimalWorkflow

GOAL_RATIO = 0.5
TIMEOUT = 300.0


async def run_minimal(stack: Stack, count: int, prefix: str) -> dict[str, float]:
    started_at: list[float] = []

    async def one(i: int) -> str:
        handle = await stack.client.start_workflow(
            MinimalWorkflow.run, str(i), id=f"{prefix}{i:05d}", task_queue=MINIMAL_QUEUE
        )
        started_at.append(time.monotonic())
        return await handle.result()

    t0 = time.monotonic()
    await asyncio.wait_for(bounded(count, one), TIMEOUT)
    elapsed = time.monotonic() - t0
    return {
        "elapsed_s": elapsed,
        "per_s": count / elapsed,
        "starts_per_s": count / (max(started_at) - t0),
    }


async def run_shot_clocks(stack: Stack, count: int, prefix: str) -> dict[str, float]:
    started_at: list[float] = []

    async def one(i: int) -> None:
        await open_clock(stack.client, f"{prefix}{i:05d}", CATEGORIES[i % len(CATEGORIES)])
        started_at.append(time.monotonic())

    t0 = time.monotonic()
    starts = asyncio.create_task(bounded(count, one))
    try:
        done = await wait_for_rows(
            count_applications,
            stack.engine,
            prefix,
            count,
            timeout=TIMEOUT,
            what="application rows",
        )
    finally:
        await starts
    elapsed = done - t0
    # Let these clocks finish their start-up (the submitted event's row, the search
    # attributes) before anything else is measured on the same worker.
    await wait_for_rows(
        count_events, stack.engine, prefix, count, timeout=TIMEOUT, what="event rows"
    )
    return {
        "elapsed_s": elapsed,
        "per_s": count / elapsed,
        "starts_per_s": count / (max(started_at) - t0),
    }


async def measure(count: int = 200, rounds: int = 1, warmup: int = 20) -> dict[str, Any]:
    async with server_and_client() as stack, running_workers(stack):
        # Warm up both workers (sandbox imports, connections, the read model's tables).
        await run_minimal(stack, warmup, "warm-min-")
        await run_shot_clocks(stack, warmup, "WARM-")
        minimal_runs: list[dict[str, float]] = []
        clock_runs: list[dict[str, float]] = []
        for r in range(rounds):
            # Alternate the order so neither kind always runs on the fresher server.
            order = ("minimal", "clock") if r % 2 == 0 else ("clock", "minimal")
            for kind in order:
                if kind == "minimal":
                    minimal_runs.append(await run_minimal(stack, count, f"min-{r}-"))
                else:
                    clock_runs.append(await run_shot_clocks(stack, count, f"BENCH-{r}-"))

    def total(runs: list[dict[str, float]]) -> dict[str, float]:
        elapsed = sum(x["elapsed_s"] for x in runs)
        return {
            "per_s": count * len(runs) / elapsed,
            "elapsed_s": elapsed / len(runs),
            "starts_per_s": sum(x["starts_per_s"] for x in runs) / len(runs),
        }

    minimal, clock = total(minimal_runs), total(clock_runs)
    result = {
        "count": count,
        "rounds": rounds,
        "minimal_per_s": minimal["per_s"],
        "minimal_elapsed_s": minimal["elapsed_s"],
        "minimal_starts_per_s": minimal["starts_per_s"],
        "shot_clock_per_s": clock["per_s"],
        "shot_clock_elapsed_s": clock["elapsed_s"],
        "shot_clock_starts_per_s": clock["starts_per_s"],
        "ratio": clock["per_s"] / minimal["per_s"],
        "rounds_detail": {"minimal": minimal_runs, "shot_clock": clock_runs},
    }
    print(
        f"minimal workflow (start → one activity completed): {result['minimal_per_s']:7.1f} /s "
        f"({count} in {result['minimal_elapsed_s']:.2f} s; "
        f"starts {result['minimal_starts_per_s']:.0f}/s)"
    )
    print(
        f"ShotClockWorkflow (start → application row):      {result['shot_clock_per_s']:7.1f} /s "
        f"({count} in {result['shot_clock_elapsed_s']:.2f} s; "
        f"starts {result['shot_clock_starts_per_s']:.0f}/s)"
    )
    print(f"ratio shot clock / minimal: {result['ratio']:.2f}")
    return result


def run(count: int = 200, rounds: int = 1) -> dict[str, Any]:
    return asyncio.run(measure(count, rounds))


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--count", type=int, default=200, help="workflows per measurement")
    parser.add_argument("--rounds", type=int, default=1, help="measurements of each kind")
    add_json_option(parser)
    args = parser.parse_args()
    result = run(args.count, args.rounds)
    print(f"goal ratio ≥ {GOAL_RATIO}: {verdict(result['ratio'] >= GOAL_RATIO)}")
    write_json(args.json, result)


if __name__ == "__main__":
    main()
