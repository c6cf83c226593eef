"""The 08:00 storm: thousands of reminders due at the same local 08:00, most of their clocks
evicted from the worker's cache, on the shipped defaults.

What runs, each in its own process, as a city runs it:

- the Temporal dev server on its SQLite file (`DevServer`, as `clearance run` starts it),
  in a folder on disk (`--tmp-root`, default the system temp folder);
- the worker: `clearance worker`'s own `main()` with the shipped settings (workflow cache
  `CLEARANCE_MAX_CACHED_WORKFLOWS`, task slots, 8 activity threads), the app database on
  a SQLite file, SMTP as the transport. The only addition is a probe that, on SIGUSR1,
  writes which workflow runs the worker has cached (to count the evicted storm clocks);
- a real SMTP server (aiosmtpd on loopback) that journals when it accepted each message
  (reading only the headers it needs, as a relay would not parse the bodies either);
- the web app (`clearance web`) on the same SQLite read model, with a few hundred
  projects seeded directly (the storm never touches them; seeding them changes nothing
  the storm measures, it only gives the pages a city's data);
- a minimal worker (SDK defaults but ours' sticky-queue timeout) for the baseline storm.

The run:

1. Open 100 clocks to measure the open rate, then choose ONE real IANA time zone whose
   next local 08:00 is just far enough ahead to open everything (printed; the run waits
   minutes, not hours).
2. Open the `--storm` clocks (default 2,000) whose reminder is due at that 08:00: each
   clock's submission date and reminder offset put a reminder on that local day, so
   the workflow's own timer fires at 08:00 local (nothing is faked).
3. Open the other clocks (up to `--clocks`, default 10,000), submitted today (nothing due
   for weeks), in bounded batches, each batch waited for until its read-model rows exist.
   Opened after the storm clocks, they push those out of the worker's cache (least
   recently used), as a day of other work would. Just before 08:00 the probe counts how
   many storm clocks are still cached.
4. At 08:00 every storm clock's timer fires. Latency = SMTP acceptance − the 08:00
   instant: p50, p95, max; drain time = until the last letter is accepted. Meanwhile a
   small asyncio/httpx driver (`--web-users` staff, each fetching a page, pausing 0.5 s)
   reads the main pages: web p50/p95 before 08:00 (30 s) and while the storm drains.
5. Then the baseline: 2,000 minimal workflows (bench/storm_minimal.py) sleeping to one
   shared instant, each running one activity that sends one SMTP message, on the same
   server; its drain time the same way. Ratio = minimal drain ÷ ours.

Goals (issue 13): ratio ≥ 0.5, p95 < 60 s, web p95 < 300 ms during the drain.

    .venv/bin/python -m bench.storm [--clocks 10000] [--storm 2000] [--write]
        [--label "after the fixes"] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import psutil
from temporalio.client import Client

from bench.common import add_json_option, command_line, percentile, write_json
from bench.harness import (
    CATEGORIES,
    SHOT_CLOCK_QUEUE,
    application,
)
from bench.host import calibrate, go_gc_cpu, host_cpu, host_used
from bench.processes import PROJECT_ROOT, WorkerProcess
from bench.run_all import machine, print_figures, write
from bench.scale import tzif
from bench.storm_driving import START_CONCURRENCY, WEB_BEFORE_S, WebSample, drive_web, open_batches
from bench.storm_minimal import MinimalStormInput, MinimalStormWorkflow
from bench.storm_processes import (
    METRICS_ADDRESS_ENV,
    MINIMAL_STORM_QUEUE,
    read_journal,
    run_minimal_worker,
    run_probed_worker,
    run_smtp,
    sdk_counters,
)
from bench.storm_report import figures, host_line, section
from bench.web_pages import USERS, Server, add_users, login
from bench.web_seed import SeedSize, seed_projects
from models.database import make_engine
from models.shot_clock import ClockEvent, ShotClockInput
from rules.kernel.alerts import SEND_AT
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from stack.ports import free_port
from stack.temporal_server import GO_RUNTIME_DEFAULTS, SQLITE_PRAGMAS, DevServer
from workflows.shot_clock_support import ClockState

WARM_CLOCKS = 100  # opened first to measure the open rate
OTHER_ZONE = "America/Los_Angeles"  # the other clocks' zone (nothing due for weeks)
STORM_PREFIX = "STORM-"
OTHER_PREFIX = "OPEN-"


# -- the instant: a real zone whose next 08:00 is a few minutes ahead --------------------


def next_eight_oclock(earliest: datetime) -> tuple[str, datetime]:
    """The geographic IANA zone whose next local 08:00 comes first at or after `earliest`
    (offsets of whole, half and quarter hours: the wait is at most about 45 minutes)."""
    found: list[tuple[datetime, str]] = []
    for name in zoneinfo.available_timezones():
        area = name.split("/", 1)[0]
        if "/" not in name or area in ("Etc", "SystemV", "US", "Canada", "Mexico", "Brazil"):
            continue  # geographic Area/City names only, not aliases or fixed offsets
        zone = zoneinfo.ZoneInfo(name)
        day = earliest.astimezone(zone).date()
        for candidate in (day, day + timedelta(days=1)):
            instant = datetime.combine(candidate, SEND_AT, tzinfo=zone).astimezone(UTC)
            if instant >= earliest:
                found.append((instant, name))
                break
    instant, name = min(found)
    return name, instant


def dev_zone(zones: Path, earliest: datetime) -> tuple[str, datetime]:
    """Development only (`--dev-zone`): a generated fixed-offset zone whose 08:00 is
    `earliest`, so a small run needn't wait for the next real 08:00. Not a real zone."""
    instant = earliest.replace(second=0, microsecond=0) + timedelta(minutes=1)
    offset = datetime.combine(instant.date(), SEND_AT) - instant.replace(tzinfo=None)
    name = "ClearanceBench/Dev"
    (zones / "ClearanceBench").mkdir(parents=True, exist_ok=True)
    (zones / name).write_bytes(tzif(round(offset.total_seconds())))
    return name, instant


@dataclass(frozen=True)
class StormPlan:
    """How a clock of one category gets a reminder at the storm's 08:00."""

    submitted: str
    reminder_offset: int


def plan_category(category: str, zone: str, fire_at: datetime) -> StormPlan:
    """A submission date and a reminder offset that put a reminder at `fire_at` (08:00
    local on its day), found with the same pure rules the workflow plans its timers with."""
    day = fire_at.astimezone(zoneinfo.ZoneInfo(zone)).date()
    for back in range(20, 200):
        submitted = day - timedelta(days=back)
        clock_input = storm_input("PLAN", category, zone, StormPlan(submitted.isoformat(), 1))
        state = ClockState(clock_input)
        clock = state.clock(fire_at)
        conservative = clock.get("conservative_date")
        if clock["status"] in TERMINAL_STATUSES or not conservative:
            continue
        offset = (date.fromisoformat(conservative) - day).days
        if not 1 <= offset <= 30:
            continue
        plan = StormPlan(submitted.isoformat(), offset)
        alerts = ClockState(storm_input("PLAN", category, zone, plan)).alerts(clock)
        if any(a.kind == "reminder" and a.fire_at == fire_at for a in alerts):
            return plan
    raise RuntimeError(f"no submission date puts a {category} reminder at {fire_at:%Y-%m-%d}")


def storm_input(app_id: str, category: str, zone: str, plan: StormPlan) -> ShotClockInput:
    app = application(app_id, category)
    app.calendar.time_zone = zone
    app.reminder_offsets = [plan.reminder_offset]
    app.window_alert_offsets = []  # only the 08:00 reminder fires in the run
    return ShotClockInput(app, [ClockEvent("submitted", plan.submitted)])


def other_input(app_id: str, category: str) -> ShotClockInput:
    """A clock submitted today: its first alert is weeks away."""
    app = application(app_id, category)
    app.calendar.time_zone = OTHER_ZONE
    today = datetime.now(UTC).astimezone(zoneinfo.ZoneInfo(OTHER_ZONE)).date()
    return ShotClockInput(app, [ClockEvent("submitted", today.isoformat())])


# -- the measurement -------------------------------------------------------------------


async def wait_letters(
    journal: Path, prefix: str, expected: int, timeout: float
) -> dict[str, list[float]]:
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        accepted = read_journal(journal, prefix)
        if len(accepted) >= expected or time.monotonic() > deadline:
            return accepted
        if len(accepted) != last and len(accepted) % 250 < (len(accepted) - last):
            print(f"  {len(accepted):,} of {expected:,} letters accepted", flush=True)
        last = len(accepted)
        await asyncio.sleep(0.5)


def latency_figures(accepted: dict[str, list[float]], fire_at: float) -> dict[str, float]:
    latencies = [min(times) - fire_at for times in accepted.values()]
    return {
        "p50_s": statistics.median(latencies) if latencies else math.nan,
        "p95_s": percentile(latencies, 0.95),
        "max_s": max(latencies) if latencies else math.nan,
        "first_s": min(latencies) if latencies else math.nan,
        "drain_s": max(latencies) if latencies else math.nan,
        "copies": sum(len(t) for t in accepted.values()),
    }


def probe_cache(worker: WorkerProcess, probe: Path) -> list[str]:
    probe.unlink(missing_ok=True)
    os.kill(worker.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 30
    while not probe.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return probe.read_text().split("\n") if probe.exists() else []


def cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """CPU time (user + system) each process and its live children have used so far
    (`clearance web` serves from one child process per core)."""
    out: dict[str, float] = {}
    for name, pid in pids.items():
        try:
            parent = psutil.Process(pid)
            total = 0.0
            for process in (parent, *parent.children(recursive=True)):
                times = process.cpu_times()
                total += times.user + times.system
            out[name] = total
        except psutil.Error:
            out[name] = math.nan
    return out


def disk_reads(pids: dict[str, int]) -> dict[str, tuple[float, int]]:
    """Per process (with its live children): MiB read from the disk so far and major page
    faults (pages of a file, a binary or a library read back in). Both grow when a storm
    finds the process's files cold: on a host that pages out idle file pages (see
    docs/storm.md) a process that waited idle for its 08:00 starts with them gone."""
    out: dict[str, tuple[float, int]] = {}
    for name, pid in pids.items():
        try:
            parent = psutil.Process(pid)
            read, faults = 0, 0
            for process in (parent, *parent.children(recursive=True)):
                read += process.io_counters().read_bytes
                stat = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                faults += int(stat[9])
            out[name] = (read / 2**20, faults)
        except (psutil.Error, OSError, AttributeError):
            out[name] = (math.nan, 0)
    return out


def reads_used(
    before: dict[str, tuple[float, int]], after: dict[str, tuple[float, int]]
) -> dict[str, tuple[float, int]]:
    return {
        name: (round(after[name][0] - before[name][0], 1), after[name][1] - before[name][1])
        for name in before
    }


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds by thread kind in one process: its main thread (Python's event loop,
    where the SDK polls, decodes and encodes activations), the workflow activation threads
    (our workflow code), the activity threads (notices and records, local activities
    included), the SDK core's threads (by their OS names) and any other Python thread.
    Python threads are told apart by the names `name_threads` gives them at the probe,
    just before 08:00."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = "main thread" if task.name == str(pid) else comm
        if kind.startswith("temporal_workf"):
            kind = "workflow activation threads"
        elif kind.startswith("activity"):
            kind = "activity threads"
        elif kind.startswith("python"):
            kind = "other Python threads"
        out[kind] = out.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def driver_cpu() -> float:
    """CPU seconds this driver process has used itself (its web sessions and journal
    reading), not its children's."""
    times = os.times()
    return times.user + times.system


def finite_sum(values: dict[str, float]) -> float:
    return sum(v for v in values.values() if math.isfinite(v))


def cpu_used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after[name] - before[name] for name in before}


async def wait_until_quiet(
    pids: dict[str, int], names: tuple[str, ...], timeout: float, quiet_s: float = 3.0
) -> float:
    """Seconds until the named processes have used under 5% of a core each for `quiet_s`
    in a row. A letter is out before its clock has finished the workflow task that arms
    its next timer; the baseline must not start while ours are still doing that."""
    started = time.monotonic()
    last = cpu_seconds(pids)
    quiet_since = started
    while time.monotonic() - started < timeout:
        await asyncio.sleep(1.0)
        now = cpu_seconds(pids)
        if any(now[n] - last[n] > 0.05 for n in names):
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return quiet_since - started
        last = now
    return time.monotonic() - started


def count_warnings(log_file: Path) -> int:
    """Lines the worker logged at WARNING or above (JSON logs)."""
    if not log_file.exists():
        return 0
    return sum(
        1
        for line in log_file.read_text(errors="replace").splitlines()
        if '"level": "WARNING"' in line or '"level": "ERROR"' in line or "Traceback" in line
    )


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    storm, clocks = args.storm, args.clocks
    result: dict[str, Any] = {"clocks_asked": clocks, "storm": storm, "dev_zone": args.dev_zone}
    load_at = math.nan
    cores = os.cpu_count() or 1
    result["calibration"] = {"at start": calibrate()}
    with tempfile.TemporaryDirectory(prefix="clearance-storm-", dir=args.tmp_root) as tmp_name:
        tmp = Path(tmp_name)
        result["tmp_root"] = args.tmp_root or tempfile.gettempdir()
        database_url = f"sqlite:///{tmp / 'clearance.db'}"
        zones = tmp / "zones"
        if args.dev_zone:
            # The generated zone must be found by this process and every child.
            zones.mkdir()
            tzpath = [str(zones), *zoneinfo.TZPATH]
            zoneinfo.reset_tzpath(tzpath)
            os.environ["PYTHONTZPATH"] = os.pathsep.join(tzpath)
        engine = make_engine(database_url)
        rng_size = SeedSize(projects=args.projects, conditions_per_project=100, audit_per_project=5)
        now = datetime.now(UTC)
        project_ids, _, n_conditions, _ = seed_projects(
            engine, rng_size, random.Random(13), now.date(), now
        )
        add_users(engine)
        result["seeded"] = {"projects": len(project_ids), "conditions": n_conditions}

        # The shipped pragmas, or (--server-sync normal, a comparison, never the default) the
        # same write-ahead log without a sync at each commit.
        pragmas = tuple(
            f"synchronous={args.server_sync}" if p.startswith("synchronous=") else p
            for p in SQLITE_PRAGMAS
        )
        result["server_sync"] = args.server_sync
        # The collector traces each collection to the server's log (one line each), so the
        # server's garbage collection in each storm can be told apart.
        server = DevServer(
            tmp / "temporal.db",
            port=free_port(),
            ui_port=None,
            sqlite_pragmas=pragmas,
            env={"GODEBUG": "gctrace=1"},
        )
        await asyncio.to_thread(server.start)
        assert server._process is not None
        server_started = psutil.Process(server._process.pid).create_time()
        result["server_go_runtime"] = {
            k: os.environ.get(k, v) for k, v in GO_RUNTIME_DEFAULTS.items()
        }
        smtp_port = free_port()
        journal = tmp / "smtp-accepted.tsv"
        probe = tmp / "cache-probe.txt"
        metrics_address = f"127.0.0.1:{free_port()}"
        procs: list[subprocess.Popen[bytes]] = []
        worker: WorkerProcess | None = None
        web: Server | None = None
        try:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bench.storm", "--smtp", str(smtp_port), str(journal)],
                    cwd=PROJECT_ROOT,
                )
            )
            worker = WorkerProcess.beside(
                tmp,
                temporal_address=server.address,
                task_queue=SHOT_CLOCK_QUEUE,
                database_url=database_url,
                smtp_port=smtp_port,
                command=[sys.executable, "-m", "bench.storm", "--probed-worker", str(probe)],
                CLEARANCE_LOG_LEVEL="WARNING",
                **{METRICS_ADDRESS_ENV: metrics_address},
            )
            worker.start()
            await asyncio.to_thread(worker.wait_ready)
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "bench.storm",
                        "--minimal-worker",
                        server.address,
                        str(smtp_port),
                    ],
                    cwd=PROJECT_ROOT,
                )
            )
            web = await asyncio.to_thread(Server, database_url, tmp)
            client = await Client.connect(server.address)

            # 1. The open rate, then the zone.
            others = [
                other_input(f"{OTHER_PREFIX}{i:05d}", CATEGORIES[i % len(CATEGORIES)])
                for i in range(max(0, clocks - storm))
            ]
            warm = min(WARM_CLOCKS, len(others))
            t0 = time.monotonic()
            await open_batches(client, engine, others[:warm], OTHER_PREFIX, 0)
            rate = warm / (time.monotonic() - t0) if warm else 10.0
            # The first batch also pays the worker's warm-up: --open-rate gives a rate seen
            # in an earlier run instead (too high, and the last clocks are left unopened).
            expected = args.open_rate or rate
            estimate = (storm + len(others) - warm) / expected * 1.3 + 60
            earliest = datetime.now(UTC) + timedelta(seconds=max(120.0, estimate))
            if args.dev_zone:
                zone, fire_at = dev_zone(zones, earliest)
            else:
                zone, fire_at = next_eight_oclock(earliest)
            wait_min = (fire_at - datetime.now(UTC)).total_seconds() / 60
            print(
                f"open rate {rate:.1f}/s; the storm: 08:00 in {zone} = {fire_at:%H:%M} UTC, "
                f"{wait_min:.0f} min from now (the zone whose next 08:00 comes first after "
                f"the estimated {estimate / 60:.0f} min of opening"
                + (", generated for development)" if args.dev_zone else ")"),
                flush=True,
            )
            result.update(zone=zone, fire_at=fire_at.isoformat(), open_rate=rate)

            # 2. The storm clocks, then 3. the others (which push them out of the cache).
            plans = {c: plan_category(c, zone, fire_at) for c in CATEGORIES}
            storm_inputs = [
                storm_input(f"{STORM_PREFIX}{i:05d}", c, zone, plans[c])
                for i in range(storm)
                for c in [CATEGORIES[i % len(CATEGORIES)]]
            ]
            print(f"opening {storm:,} storm clocks", flush=True)
            stop_at = fire_at.timestamp() - 45
            start_seconds: list[float] = []
            opened_storm = await open_batches(
                client,
                engine,
                storm_inputs,
                STORM_PREFIX,
                0,
                stop_at=stop_at,
                start_seconds=start_seconds,
            )
            print(f"opening {len(others) - warm:,} other clocks", flush=True)
            opened_others = warm + await open_batches(
                client, engine, others[warm:], OTHER_PREFIX, warm, stop_at=stop_at
            )
            result.update(opened_storm=opened_storm, opened_others=opened_others)
            with contextlib.closing(sqlite3.connect(tmp / "temporal.db")) as db:
                result["server_journal"] = db.execute("PRAGMA journal_mode").fetchone()[0]

            # 4. The storm.
            sleep_s = fire_at.timestamp() - WEB_BEFORE_S - 10 - time.time()
            print(f"waiting {max(0, sleep_s) / 60:.1f} min for 08:00 {zone}", flush=True)
            await asyncio.sleep(max(0.0, sleep_s))
            cached = await asyncio.to_thread(probe_cache, worker, probe)
            result["cache_size"] = len(cached)
            result["storm_cached"] = sum(1 for w in cached if STORM_PREFIX in w)
            result["calibration"]["before 08:00"] = calibrate()
            print(
                f"worker cache: {len(cached):,} runs, of which {result['storm_cached']:,} "
                f"storm clocks (the rest of the {opened_storm:,} are evicted)",
                flush=True,
            )
            cookies = {}
            for who in ("pm", "admin"):
                session = await asyncio.to_thread(login, web.base_url, USERS[who][0])
                cookies[who] = session.cookies
                session.close()
            storm_ids = [c.application.application_id for c in storm_inputs[:opened_storm]]
            n_ids = len(storm_ids)
            web_pages: list[tuple[str, str, Callable[[int], str]]] = [
                ("dashboard", "pm", lambda i: "/"),
                (
                    "application page",
                    "pm",
                    lambda i: f"/applications/{storm_ids[i * 7 % n_ids]}",
                ),
                ("outbox", "admin", lambda i: "/outbox"),
                ("project page", "pm", lambda i: f"/projects/{project_ids[i % len(project_ids)]}"),
            ]
            samples: list[WebSample] = []
            web_done = asyncio.Event()
            await asyncio.sleep(max(0.0, fire_at.timestamp() - WEB_BEFORE_S - time.time()))
            load_at = os.getloadavg()[0]
            driver = asyncio.create_task(
                drive_web(web.base_url, cookies, web_pages, args.web_users, web_done, samples)
            )
            await asyncio.sleep(max(0.0, fire_at.timestamp() - time.time()))
            assert server._process is not None and web.process is not None
            pids = {
                "server": server._process.pid,
                "worker": worker.pid,
                "web": web.process.pid,
                "minimal worker": procs[1].pid,
                "smtp": procs[0].pid,
            }
            cpu_at_storm = cpu_seconds(pids)
            reads_at_storm = disk_reads(pids)
            counters_at_storm = sdk_counters(metrics_address)
            threads_at_storm = thread_cpu(worker.pid)
            host_at_storm, driver_at_storm = host_cpu(), driver_cpu()
            print(f"08:00 {zone}: {opened_storm:,} reminders due", flush=True)
            accepted = await wait_letters(journal, STORM_PREFIX, opened_storm, args.timeout)
            drained_at = time.time()
            result["cpu_ours"] = cpu_used(cpu_at_storm, cpu_seconds(pids))
            result["host_ours"] = host_used(
                host_at_storm,
                host_cpu(),
                finite_sum(result["cpu_ours"]) + driver_cpu() - driver_at_storm,
                cores,
            )
            result["reads_ours"] = reads_used(reads_at_storm, disk_reads(pids))
            result["server_gc_ours"] = go_gc_cpu(
                server.log_file.read_text(errors="replace"),
                server_started,
                (fire_at.timestamp(), drained_at),
            )
            web_done.set()
            await driver
            ours = latency_figures(accepted, fire_at.timestamp())
            ours["missing"] = opened_storm - len(accepted)
            result["ours"] = ours
            before = [s.ms for s in samples if s.started < fire_at.timestamp()]
            during = [s.ms for s in samples if fire_at.timestamp() <= s.started <= drained_at]
            result["web"] = {
                "users": args.web_users,
                "before_n": len(before),
                "before_p50_ms": statistics.median(before) if before else math.nan,
                "before_p95_ms": percentile(before, 0.95),
                "during_n": len(during),
                "during_p50_ms": statistics.median(during) if during else math.nan,
                "during_p95_ms": percentile(during, 0.95),
                "during_max_ms": max(during) if during else math.nan,
                "pages": [p[0] for p in web_pages],
                "during_p95_ms_by_page": {
                    p[0]: percentile(
                        [
                            s.ms
                            for s in samples
                            if s.page == p[0] and fire_at.timestamp() <= s.started <= drained_at
                        ],
                        0.95,
                    )
                    for p in web_pages
                },
            }
            print(
                f"ours: p50 {ours['p50_s']:.1f} s, p95 {ours['p95_s']:.1f} s, max "
                f"{ours['max_s']:.1f} s, drain {ours['drain_s']:.1f} s; web p95 during "
                f"{result['web']['during_p95_ms']:.0f} ms; CPU s {result['cpu_ours']}; "
                f"disk read MiB and major faults {result['reads_ours']}",
                flush=True,
            )
            # The clocks finish arming their next timers after the last letter.
            settled = await wait_until_quiet(pids, ("worker", "server"), args.timeout)
            result["cpu_ours_settling"] = cpu_used(cpu_at_storm, cpu_seconds(pids))
            result["sdk_counters"] = cpu_used(counters_at_storm, sdk_counters(metrics_address))
            # Name the threads the pools started during the storm too (the probe does).
            await asyncio.to_thread(probe_cache, worker, probe)
            threads_now = thread_cpu(worker.pid)
            result["worker_threads_cpu"] = {
                k: v - threads_at_storm.get(k, 0.0) for k, v in threads_now.items()
            }
            result["settled_s"] = drained_at - fire_at.timestamp() + settled
            print(
                f"ours settled {result['settled_s']:.1f} s after 08:00 (every clock back "
                f"asleep); CPU s since 08:00 {result['cpu_ours_settling']}; worker SDK "
                f"counters {result['sdk_counters']}; worker threads' CPU s "
                f"{result['worker_threads_cpu']}",
                flush=True,
            )
            result["worker_warnings"] = count_warnings(tmp / "worker.log")

            # 5. The baseline storm, once ours has drained and settled.
            # Long enough to start them all: twice the slowest start rate seen for clocks.
            lead = max(60.0, storm * 2 * max(start_seconds, default=0.1) + 30.0)
            minimal_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=lead)
            gate = asyncio.Semaphore(START_CONCURRENCY)

            async def start_minimal(i: int) -> None:
                async with gate:
                    await client.start_workflow(
                        MinimalStormWorkflow.run,
                        MinimalStormInput(f"MIN-{i:05d}", minimal_at.isoformat()),
                        id=f"storm-minimal-{i:05d}",
                        task_queue=MINIMAL_STORM_QUEUE,
                    )

            print(f"baseline: {storm:,} minimal workflows sleeping to {minimal_at:%H:%M:%S} UTC")
            late = 0

            async def start_minimal_counted(i: int) -> None:
                nonlocal late
                await start_minimal(i)
                late += time.time() > minimal_at.timestamp()

            await asyncio.gather(*(start_minimal_counted(i) for i in range(storm)))
            result["minimal_started_late"] = late
            if late:
                print(f"  {late} minimal workflows were started after their instant", flush=True)
            await asyncio.sleep(max(0.0, minimal_at.timestamp() - time.time()))
            cpu_at_minimal = cpu_seconds(pids)
            reads_at_minimal = disk_reads(pids)
            host_at_minimal, driver_at_minimal = host_cpu(), driver_cpu()
            minimal_accepted = await wait_letters(journal, "MIN-", storm, args.timeout)
            minimal_drained_at = time.time()
            result["cpu_minimal"] = cpu_used(cpu_at_minimal, cpu_seconds(pids))
            result["host_minimal"] = host_used(
                host_at_minimal,
                host_cpu(),
                finite_sum(result["cpu_minimal"]) + driver_cpu() - driver_at_minimal,
                cores,
            )
            # Calibrated once the minimal workflows have completed, on a quiet machine.
            await wait_until_quiet(pids, ("minimal worker", "server"), 60.0)
            result["calibration"]["after the minimal"] = calibrate()
            result["reads_minimal"] = reads_used(reads_at_minimal, disk_reads(pids))
            result["server_gc_minimal"] = go_gc_cpu(
                server.log_file.read_text(errors="replace"),
                server_started,
                (minimal_at.timestamp(), minimal_drained_at),
            )
            minimal = latency_figures(minimal_accepted, minimal_at.timestamp())
            minimal["missing"] = storm - len(minimal_accepted)
            result["minimal"] = minimal
            print(
                f"minimal: p50 {minimal['p50_s']:.1f} s, drain {minimal['drain_s']:.1f} s; "
                f"CPU s {result['cpu_minimal']}; disk read MiB and major faults "
                f"{result['reads_minimal']}",
                flush=True,
            )
            result["ratio"] = minimal["drain_s"] / ours["drain_s"] if ours["drain_s"] else math.nan
        finally:
            if web is not None:
                web.stop()
            if worker is not None:
                worker.stop()
            for p in procs:
                p.terminate()
                p.wait(timeout=30)
            await asyncio.to_thread(server.stop)
            engine.dispose()
    result["load_at_storm"] = load_at
    return result


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--clocks", type=int, default=10_000, help="open clocks in all")
    parser.add_argument("--storm", type=int, default=2_000, help="of which due at 08:00")
    parser.add_argument("--projects", type=int, default=200, help="projects seeded for the web")
    parser.add_argument("--web-users", type=int, default=4, help="staff sessions on the web")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for letters")
    parser.add_argument("--tmp-root", default=None, help="folder for the SQLite files")
    parser.add_argument(
        "--dev-zone",
        action="store_true",
        help="a generated fixed-offset zone whose 08:00 is as soon as the clocks are open (no "
        "wait for a real zone's 08:00: for development and for before/after comparisons; "
        "--write says so in the heading)",
    )
    parser.add_argument(
        "--open-rate",
        type=float,
        default=0.0,
        help="clocks opened per second, to choose the 08:00 (default: measured on the first "
        "100, which include the worker's warm-up)",
    )
    parser.add_argument(
        "--server-sync",
        choices=("full", "normal"),
        default="full",
        help="the dev server's SQLite synchronous pragma: full (shipped: every commit synced) "
        "or normal (a comparison: a power loss may roll back the last commits; the heading "
        "says it is not the shipped default)",
    )
    parser.add_argument("--label", default="", help="added to the BENCHMARKS.md heading")
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    add_json_option(parser)
    parser.add_argument("--probed-worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--minimal-worker", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--smtp", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probed_worker:
        run_probed_worker(args.probed_worker)
        return
    if args.minimal_worker:
        asyncio.run(run_minimal_worker(args.minimal_worker[0], int(args.minimal_worker[1])))
        return
    if args.smtp:
        run_smtp(int(args.smtp[0]), Path(args.smtp[1]))
        return
    if not 1 <= args.storm <= args.clocks:
        parser.error("--storm must be at least 1 and at most --clocks")
    when = datetime.now(UTC)
    load = os.getloadavg()[0]
    result = asyncio.run(measure(args))
    result["load_before"] = load
    result["load_after"] = os.getloadavg()[0]
    print_figures("08:00 storm", figures(result), 70)
    print(host_line(result))
    write_json(args.json, result)
    if args.write:
        write(section(when, machine(), result, args.label))


if __name__ == "__main__":
    main()
