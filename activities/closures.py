"""Carries a jurisdiction-wide closure day to one clock (a shot clock or a permit clock)
through the clock's own add_local_closure update, so the clock's validator decides and
its ledger records it."""

from __future__ import annotations

from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from activities import names
from models.shot_clock import ClockClosureInput, LocalClosureInput
from models.workflow_ids import permit_clock_workflow_id, shot_clock_workflow_id


class ClosureActivities:
    def __init__(self, client: Client) -> None:
        self._client = client

    @activity.defn(name=names.ADD_CLOSURE_TO_CLOCK)
    async def add_closure_to_clock(self, input: ClockClosureInput) -> str:
        """'' when the shot clock has the closure day; otherwise its reason for refusing."""
        return await self._add(shot_clock_workflow_id(input.application_id), input)

    @activity.defn(name=names.ADD_CLOSURE_TO_PERMIT_CLOCK)
    async def add_closure_to_permit_clock(self, input: ClockClosureInput) -> str:
        """The same for a permit clock (`application_id` holds its clock id)."""
        return await self._add(permit_clock_workflow_id(input.application_id), input)

    async def _add(self, workflow_id: str, input: ClockClosureInput) -> str:
        handle = self._client.get_workflow_handle(workflow_id)
        try:
            # The result (each workflow's own update result) is not needed here.
            await handle.execute_update(
                "add_local_closure",
                LocalClosureInput(input.date, input.added_by, input.reason),
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
