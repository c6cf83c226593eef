"""Carries a jurisdiction-wide closure day to one clock through the clock's own
add_local_closure update, so the clock's validator decides and its ledger records it."""

from __future__ import annotations

from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from activities import names
from models.shot_clock import ClockClosureInput, ClockUpdateResult, LocalClosureInput
from workflows.shot_clock_support import workflow_id_for


class ClosureActivities:
    def __init__(self, client: Client) -> None:
        self._client = client

    @activity.defn(name=names.ADD_CLOSURE_TO_CLOCK)
    async def add_closure_to_clock(self, input: ClockClosureInput) -> str:
        """'' when the clock has the closure day; otherwise the clock's reason for refusing."""
        handle = self._client.get_workflow_handle(workflow_id_for(input.application_id))
        try:
            await handle.execute_update(
                "add_local_closure",
                LocalClosureInput(input.date, input.added_by),
                result_type=ClockUpdateResult,
            )
        except WorkflowUpdateFailedError as err:
            reason = str(err.cause or err)
            if "already a local closure day" in reason:
                return ""  # a retry after the update landed, or added by hand before
            return reason
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                return "the clock has finished"
            raise
        return ""
