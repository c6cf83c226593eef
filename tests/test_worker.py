"""The worker's shipped limits: it takes no more activities than it has threads to run."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from tests.workflows.clock_helpers import settings_for_test
from worker import build_worker


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
