"""JurisdictionClosureWorkflow: a closure day added for a whole jurisdiction reaches
every clock open there, a few at a time, even if the web app that asked goes away."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from models.shot_clock import (
        ClockClosureInput,
        JurisdictionClosureInput,
        JurisdictionClosureResult,
    )
    from workflows.shot_clock_support import RETRY

# Clocks updated at once: each update is a workflow task on the same worker.
CONCURRENCY = 16
UPDATE_TIMEOUT = timedelta(seconds=60)


def workflow_id_for(jurisdiction: str, day: str) -> str:
    return f"closure-{jurisdiction}-{day}"


@workflow.defn
class JurisdictionClosureWorkflow:
    def __init__(self) -> None:
        self._done = 0
        self._total = 0

    @workflow.run
    async def run(self, input: JurisdictionClosureInput) -> JurisdictionClosureResult:
        ids = input.application_ids
        self._total = len(ids)
        changed: list[str] = []
        refused: list[str] = []
        for start in range(0, len(ids), CONCURRENCY):
            batch = ids[start : start + CONCURRENCY]
            reasons = await asyncio.gather(
                *(
                    workflow.execute_activity(
                        activity.ADD_CLOSURE_TO_CLOCK,
                        ClockClosureInput(app_id, input.date, input.added_by),
                        result_type=str,
                        start_to_close_timeout=UPDATE_TIMEOUT,
                        retry_policy=RETRY,
                    )
                    for app_id in batch
                )
            )
            for app_id, reason in zip(batch, reasons, strict=True):
                if reason:
                    refused.append(f"{app_id}: {reason}")
                else:
                    changed.append(app_id)
            self._done += len(batch)
        return JurisdictionClosureResult(sorted(changed), refused)

    @workflow.query
    def progress(self) -> dict[str, int]:
        return {"done": self._done, "total": self._total}
