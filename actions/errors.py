"""How an action says it did not happen: ActionFailed carries the user's sentence and the
HTTP status the API answers with; `from_temporal` turns what Temporal raised into one."""

from __future__ import annotations

from temporalio.client import WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

NO_WORKER = "no worker answered: is `clearance run` or `clearance worker` running?"


class ActionFailed(Exception):
    """An action did not happen; `message` is for the user, `status` for HTTP
    (400 bad input, 404 unknown, 409 refused on the facts, 503 Temporal unreachable)."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def bad(message: str) -> ActionFailed:
    """Bad input: the message names the field."""
    return ActionFailed(message, 400)


def from_temporal(err: BaseException) -> ActionFailed:
    """A sentence a planner understands for what the Temporal client raised."""
    if isinstance(err, ActionFailed):
        return err
    if isinstance(err, WorkflowUpdateFailedError):
        cause = err.cause
        # The validator's refusal, in its own words.
        return ActionFailed(cause.message if isinstance(cause, ApplicationError) else str(cause))
    if isinstance(err, WorkflowQueryFailedError):
        return ActionFailed(f"the query failed: {err}")
    if isinstance(err, RPCError):
        if err.status == RPCStatusCode.NOT_FOUND:
            return ActionFailed("no such workflow", 404)
        if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
            return ActionFailed(NO_WORKER, 503)
        if err.status == RPCStatusCode.UNAVAILABLE:
            return ActionFailed("cannot reach the Temporal server right now", 503)
        return ActionFailed(f"Temporal refused the request: {err.message}")
    if isinstance(err, ConnectionError | OSError):
        return ActionFailed(f"cannot connect: {err}", 503)
    return ActionFailed(f"{type(err).__name__}: {err}")
