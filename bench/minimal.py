"""The baseline: a minimal workflow that executes one trivial activity.

Kept in its own module that imports nothing but temporalio, so the sandbox re-imports
nothing heavy for it (an ORM import in a workflow module slows every run).
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow

MINIMAL_ACTIVITY = "bench_noop"


@activity.defn(name=MINIMAL_ACTIVITY)
def noop(value: str) -> str:
    """Writes nothing; a sync activity on the thread pool, like record_application."""
    return value


@workflow.defn
class MinimalWorkflow:
    @workflow.run
    async def run(self, value: str) -> str:
        return await workflow.execute_activity(
            MINIMAL_ACTIVITY, value, start_to_close_timeout=timedelta(seconds=30)
        )
