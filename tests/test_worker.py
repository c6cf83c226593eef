"""The worker's shipped settings: it takes no more activities than it has threads to run,
runs workflow code without the sandbox, keeps activity inputs small and yields the CPU."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from temporalio.client import WorkflowHandle, WorkflowHistory
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner

from tests.polling import polls
from tests.workflows.clock_helpers import application, open_clock, settings_for_test
from worker import build_worker, workflow_runner
from workflows.shot_clock import ShotClockWorkflow

ROOT = Path(__file__).resolve().parents[1]


async def test_the_worker_takes_only_as_many_activities_as_it_has_threads(
    time_skipping_env: WorkflowEnvironment, data_dir: Path, task_queue: str
) -> None:
    settings = settings_for_test(data_dir, task_queue)
    with ThreadPoolExecutor(max_workers=16) as executor:
        worker = build_worker(time_skipping_env.client, settings, executor=executor)
        # An activity the worker took but cannot start waits with its timeout running.
        assert worker.config()["max_concurrent_activities"] == 16
        narrower = build_worker(
            time_skipping_env.client,
            dataclasses.replace(settings, task_queue=f"{task_queue}-narrower"),
            executor=executor,
            max_concurrent_activities=4,
        )
        assert narrower.config()["max_concurrent_activities"] == 4


async def test_a_storm_backlog_waits_on_the_sticky_queue_instead_of_timing_out(
    time_skipping_env: WorkflowEnvironment, data_dir: Path, task_queue: str
) -> None:
    """The SDK's 10 s let nearly every 08:00 reminder's task time out of the sticky queue
    and be scheduled twice (docs/storm.md); the shipped worker waits a minute, the storm's
    own bound, which is also how long a crashed worker's clocks wait (docs/operations.md)."""
    settings = settings_for_test(data_dir, task_queue)
    with ThreadPoolExecutor(max_workers=2) as executor:
        worker = build_worker(time_skipping_env.client, settings, executor=executor)
        assert worker.config()["sticky_queue_schedule_to_start_timeout"] == timedelta(minutes=1)
        shorter = build_worker(
            time_skipping_env.client,
            dataclasses.replace(
                settings, task_queue=f"{task_queue}-shorter", sticky_queue_timeout_seconds=30
            ),
            executor=executor,
        )
        assert shorter.config()["sticky_queue_schedule_to_start_timeout"] == timedelta(seconds=30)


async def asleep(handle: WorkflowHandle[Any, Any]) -> WorkflowHistory:
    """The clock's history once it has armed its first timer (its opening is done)."""
    for _ in polls():
        history = await handle.fetch_history()
        if any(e.HasField("timer_started_event_attributes") for e in history.events):
            return history
        await asyncio.sleep(0.05)
    raise AssertionError("the clock never went to sleep")


async def test_the_shipped_worker_runs_a_clock_without_the_sandbox_and_its_inputs_stay_small(
    time_skipping_env: WorkflowEnvironment, data_dir: Path, task_queue: str
) -> None:
    """The shipped default (no sandbox) opens a clock as the sandboxed suite does; its
    read-model records are local activities, whose markers in the history are small (a
    local activity's input is never stored there)."""
    settings = dataclasses.replace(settings_for_test(data_dir, task_queue), workflow_sandbox=False)
    assert isinstance(workflow_runner(settings), UnsandboxedWorkflowRunner)
    app = application(frozen=True)
    with ThreadPoolExecutor(max_workers=4) as executor:
        async with build_worker(time_skipping_env.client, settings, executor=executor):
            handle = await open_clock(time_skipping_env.client, task_queue, app, date(2026, 12, 1))
            clock = await handle.query(ShotClockWorkflow.clock)
            assert clock["shot_clock_date"] == "2027-03-01"
            history = await asleep(handle)
    assert not [e for e in history.events if e.HasField("activity_task_scheduled_event_attributes")]
    markers = [
        e.SerializeToString()
        for e in history.events
        if e.HasField("marker_recorded_event_attributes")
    ]
    assert [m for m in markers if b"record_application" in m]
    assert all(len(m) < 4096 for m in markers)
    # The workflow itself still counts on the calendar it froze when it opened.
    started = history.events[0].workflow_execution_started_event_attributes
    assert json.loads(started.input.payloads[0].data)["application"]["calendar"]["layers"]


def test_the_worker_lowers_its_own_priority_so_pages_come_first() -> None:
    """`clearance worker` yields the CPU to the web app: run in a child process, since a
    process cannot raise its priority back."""
    code = "import os, worker; worker.lower_priority(7); print(os.nice(0))"
    before = os.nice(0)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert int(out.stdout.strip()) == before + 7
