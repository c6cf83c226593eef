"""The processes bench/storm.py starts besides the dev server and the web app: the real
worker with a cache probe, the minimal storm's worker, and the SMTP server journaling
what it accepts (bench.storm's hidden --probed-worker, --minimal-worker and --smtp)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
from temporalio import activity
from temporalio.client import Client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from activities.mail import NOTICE_KEY_HEADER, SmtpTransport
from bench.processes import SmtpRecorder
from bench.storm_minimal import MINIMAL_SEND, MinimalLetter, MinimalStormWorkflow
from settings import DEFAULT_STICKY_QUEUE_TIMEOUT_SECONDS
from worker import WORKFLOW_RUNNER

METRICS_ADDRESS_ENV = "CLEARANCE_BENCH_METRICS_ADDRESS"
MINIMAL_STORM_QUEUE = "bench-storm-minimal"

# -- the processes the benchmark starts (entry points of bench.storm) -----------------


def run_probed_worker(probe: Path) -> None:
    """`clearance worker` (worker.main, shipped settings from the environment) plus a probe:
    on SIGUSR1 it writes the workflow ids of the runs in the worker's cache to `probe`."""
    import worker as worker_module

    built: list[Worker] = []
    build = worker_module.build_worker

    def capture(*args: Any, **kwargs: Any) -> Worker:
        w = build(*args, **kwargs)
        built.append(w)
        return w

    def dump(_signum: int, _frame: Any) -> None:
        ids: list[str] = []
        for w in built:
            # Private SDK state, read-only: the runs the worker holds in memory.
            running = getattr(w._workflow_worker, "_running_workflows", {})
            ids += [run.workflow_id for run in list(running.values())]
        tmp = probe.with_suffix(".tmp")
        tmp.write_text("\n".join(ids))
        os.replace(tmp, probe)
        name_threads()

    worker_module.build_worker = capture
    signal.signal(signal.SIGUSR1, dump)
    # The SDK's own counters (cache hits and misses, workflow tasks), read by the driver.
    Runtime.set_default(
        Runtime(
            telemetry=TelemetryConfig(
                metrics=PrometheusConfig(bind_address=os.environ[METRICS_ADDRESS_ENV])
            )
        )
    )
    asyncio.run(worker_module.main())


def name_threads() -> None:
    """Give this process's Python threads their Python names at the OS level too (Python
    3.11 does not), so the driver can tell workflow activation threads from activity
    threads in /proc (`thread_cpu`). Only a thread of the same process may rename one."""
    for thread in threading.enumerate():
        if thread.native_id is None or thread is threading.main_thread():
            continue
        with contextlib.suppress(OSError):
            Path(f"/proc/self/task/{thread.native_id}/comm").write_text(thread.name[:15])


# The SDK counters the storm reports for the worker: how its workflow tasks were served.
SDK_COUNTERS = (
    "temporal_sticky_cache_hit",
    "temporal_sticky_cache_miss",
    "temporal_sticky_cache_total_forced_eviction",
    "temporal_workflow_task_execution_latency_count",
    "temporal_workflow_task_replay_latency_count",
    "temporal_activity_execution_latency_count",
)


def sdk_counters(address: str) -> dict[str, float]:
    """The worker's SDK counters now, summed over their labels."""
    text = httpx.get(f"http://{address}/metrics", timeout=10).text
    out = dict.fromkeys(SDK_COUNTERS, 0.0)
    for line in text.splitlines():
        name, _, rest = line.partition("{") if "{" in line else line.partition(" ")
        if name in out:
            out[name] += float(line.rsplit(" ", 1)[1])
    return out


class MinimalMailer:
    """The baseline's one activity: one plain SMTP message through the shipped SMTP
    transport (so its connections are kept and reused as ours are)."""

    def __init__(self, host: str, port: int) -> None:
        self.transport = SmtpTransport(host, port, timeout=30)

    @activity.defn(name=MINIMAL_SEND)
    def send(self, letter: MinimalLetter) -> None:
        msg = EmailMessage()
        msg["From"] = "bench@localhost"
        msg["To"] = "planner@city.test"
        msg["Subject"] = f"Minimal storm {letter.letter_key}"
        msg["Message-ID"] = f"<{letter.letter_key}@bench>"
        msg[NOTICE_KEY_HEADER] = letter.letter_key
        msg.set_content("One letter.")
        self.transport.deliver(msg)


async def run_minimal_worker(address: str, smtp_port: int) -> None:
    client = await Client.connect(address)
    mailer = MinimalMailer("127.0.0.1", smtp_port)
    with ThreadPoolExecutor(max_workers=16) as pool:
        await Worker(
            client,
            task_queue=MINIMAL_STORM_QUEUE,
            workflows=[MinimalStormWorkflow],
            activities=[mailer.send],
            activity_executor=pool,
            workflow_runner=WORKFLOW_RUNNER,
            # The one setting taken from ours: with the SDK's 10 s, the storm's backlog
            # times out of the sticky queue and every task is scheduled twice, so the ratio
            # would measure that setting rather than what our workflow adds.
            sticky_queue_schedule_to_start_timeout=timedelta(
                seconds=DEFAULT_STICKY_QUEUE_TIMEOUT_SECONDS
            ),
        ).run()


@dataclass
class JournalingSmtp(SmtpRecorder):
    """The recorder, appending `key<TAB>accepted-at` to a file as each message is accepted
    (it runs in its own process so the benchmark's driver never delays an acceptance)."""

    journal: Path | None = None
    _out: Any = field(default=None, repr=False)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        reply = await super().handle_DATA(server, session, envelope)
        if self.journal is not None:
            if self._out is None:
                self._out = open(self.journal, "a", buffering=1)  # noqa: SIM115 - line-buffered
            last = self.accepted[-1]
            self._out.write(f"{last.notice_key}\t{last.at:.6f}\n")
        return reply


def run_smtp(port: int, journal: Path) -> None:
    smtp = JournalingSmtp(port=port, journal=journal)
    smtp.start()
    stop = asyncio.Event()

    async def wait() -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()

    asyncio.run(wait())
    smtp.stop()


def read_journal(journal: Path, prefix: str) -> dict[str, list[float]]:
    """Acceptance times per key (a list: a resent copy would show as a second time)."""
    out: dict[str, list[float]] = {}
    if not journal.exists():
        return out
    for line in journal.read_text().splitlines():
        key, _, at = line.partition("\t")
        if key.startswith(prefix) and at:
            out.setdefault(key, []).append(float(at))
    return out
