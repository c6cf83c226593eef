"""A closure day added for a whole jurisdiction reaches every open clock through the
clock's own update; a clock that refuses it is reported, not failed; a rerun is harmless."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from models.shot_clock import (
    JurisdictionClosureInput,
    LocalClosureInput,
)
from tests.workflows.clock_helpers import application, open_clock, settings_for_test
from tests.workflows.test_shot_clock_workflow import today
from worker import build_worker
from workflows.jurisdiction_closure import JurisdictionClosureWorkflow
from workflows.shot_clock import ShotClockWorkflow


async def test_a_closure_day_reaches_every_open_clock_once(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: ThreadPoolExecutor,
) -> None:
    env = time_skipping_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    start = today()
    day = (start + timedelta(days=40)).isoformat()
    async with build_worker(env.client, settings, executor=activity_executor):
        with env.with_time_skipping_disabled():
            apps = [application("macro_collocation") for _ in range(3)]
            handles = [await open_clock(env.client, task_queue, a, start) for a in apps]
            # One clock already has the day (entered by hand): a rerun must not count it
            # as refused.
            await handles[0].execute_update(
                ShotClockWorkflow.add_local_closure, LocalClosureInput(day, "admin@city.test")
            )
            ids = [a.application_id for a in apps] + ["APP-NO-SUCH-CLOCK"]
            result = await env.client.execute_workflow(
                JurisdictionClosureWorkflow.run,
                JurisdictionClosureInput("cotati", day, "admin@city.test", ids),
                id=f"closure-test-{task_queue}",
                task_queue=task_queue,
            )
            assert result.changed == sorted(a.application_id for a in apps)
            assert result.refused == ["APP-NO-SUCH-CLOCK: the clock has finished"]
            for handle in handles:
                with pytest.raises(WorkflowUpdateFailedError):
                    await handle.execute_update(
                        ShotClockWorkflow.add_local_closure, LocalClosureInput(day, "x")
                    )
