"""JurisdictionClosureWorkflow: a closure day added for a whole jurisdiction reaches
every clock open there (shot clocks, then permit clocks), a few at a time, even if the
web app that asked goes away."""

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
    from workflows.clock_common import RETRY

# Clocks updated at once: each update is a workflow task on the same worker.
CONCURRENCY = 16
UPDATE_TIMEOUT = timedelta(seconds=60)


@workflow.defn
class JurisdictionClosureWorkflow:
    def __init__(self) -> None:
        self._done = 0
        self._total = 0

    @workflow.run
    async def run(self, input: JurisdictionClosureInput) -> JurisdictionClosureResult:
        # One queue of (activity, clock id): shot clocks first, so a history from before
        # permit clocks took closure days (no permit ids) replays the same commands.
        targets = [(activity.ADD_CLOSURE_TO_CLOCK, i) for i in input.application_ids]
        targets += [(activity.ADD_CLOSURE_TO_PERMIT_CLOCK, i) for i in input.permit_clock_ids]
        self._total = len(targets)
        changed: dict[str, list[str]] = {name: [] for name, _ in targets}
        refused: dict[str, list[str]] = {name: [] for name, _ in targets}
        for start in range(0, len(targets), CONCURRENCY):
            batch = targets[start : start + CONCURRENCY]
            reasons = await asyncio.gather(
                *(
                    workflow.execute_activity(
                        name,
                        ClockClosureInput(clock_id, input.date, input.added_by, input.reason),
                        result_type=str,
                        start_to_close_timeout=UPDATE_TIMEOUT,
                        retry_policy=RETRY,
                    )
                    for name, clock_id in batch
                )
            )
            for (name, clock_id), reason in zip(batch, reasons, strict=True):
                if reason:
                    refused[name].append(f"{clock_id}: {reason}")
                else:
                    changed[name].append(clock_id)
            self._done += len(batch)
        shot, permit = activity.ADD_CLOSURE_TO_CLOCK, activity.ADD_CLOSURE_TO_PERMIT_CLOCK
        return JurisdictionClosureResult(
            sorted(changed.get(shot, [])),
            refused.get(shot, []),
            permit_changed=sorted(changed.get(permit, [])),
            permit_refused=refused.get(permit, []),
        )

    @workflow.query
    def progress(self) -> dict[str, int]:
        return {"done": self._done, "total": self._total}
