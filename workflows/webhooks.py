"""WebhookDispatchWorkflow (one, id `webhook-dispatch`): runs the idempotent activity
`dispatch_webhooks` (activities/webhooks.py) again and again, sleeping until the next
delivery is due; a failed run is retried by Temporal with backoff, and each delivery's
own retries (doubling backoff) are kept in its row. Continues as new before its history
grows long."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from workflows.clock_common import RETRY

WORKFLOW_ID = "webhook-dispatch"
RUNS_PER_HISTORY = 200


@workflow.defn
class WebhookDispatchWorkflow:
    @workflow.run
    async def run(self) -> None:
        for _ in range(RUNS_PER_HISTORY):
            wait = await workflow.execute_activity(
                activity.DISPATCH_WEBHOOKS,
                start_to_close_timeout=timedelta(minutes=5),
                retry_policy=RETRY,
                result_type=float,
            )
            await workflow.sleep(timedelta(seconds=max(1.0, float(wait))))
        workflow.continue_as_new()
