"""How an action says it did not happen: ActionFailed carries the user's sentence and the
HTTP status the API answers with; `from_temporal` turns what Temporal raised into one."""

from __future__ import annotations

from temporalio.client import (
    WorkflowQueryFailedError,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

NO_WORKER = "no worker answered: is `clearance run` or `clearance worker` running?"
NO_WORKER_HINT = (
    "a worker may have stopped or be busy: is `clearance run` or `clearance worker` running?"
)
# What Temporal says when it refused a request outright: nothing was applied.
REFUSALS = frozenset(
    {
        RPCStatusCode.NOT_FOUND,
        RPCStatusCode.INVALID_ARGUMENT,
        RPCStatusCode.ALREADY_EXISTS,
        RPCStatusCode.FAILED_PRECONDITION,
        RPCStatusCode.PERMISSION_DENIED,
        RPCStatusCode.UNAUTHENTICATED,
    }
)


class ActionFailed(Exception):
    """An action did not happen; `message` is for the user, `status` for HTTP
    (400 bad input, 404 unknown, 409 refused on the facts, 503 Temporal unreachable
    before anything was sent). When it may have happened, OutcomeUnknown instead."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class OutcomeUnknown(Exception):
    """An action was sent but no answer came back (the update's RPC deadline passed, a
    worker died while it ran, the connection dropped): it may have happened. Never a
    refusal (409): the API answers 504 (timed out) or 503, the page says "outcome
    unknown: check before retrying" with a link to the object, and a retry with the same
    idempotency key cannot act twice (actions/idempotency.py). Not an ActionFailed, so
    no form shows it as "Refused"."""

    def __init__(self, why: str, status: int = 504) -> None:
        self.message = f"outcome unknown: check before retrying ({why})"
        super().__init__(self.message)
        self.why = why
        self.status = status


def bad(message: str) -> ActionFailed:
    """Bad input: the message names the field."""
    return ActionFailed(message, 400)


def from_temporal(err: BaseException) -> ActionFailed | OutcomeUnknown:
    """A sentence a planner understands for what the Temporal client raised."""
    if isinstance(err, ActionFailed | OutcomeUnknown):
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
    # Not one of Temporal's answers: nothing says the action was refused.
    return ActionFailed(f"{type(err).__name__}: {err}", 503)


def sent_but_unanswered(err: BaseException) -> ActionFailed | OutcomeUnknown:
    """What failed after an update or a start was sent: a refusal only when Temporal
    said so (the validator's words, an unknown or finished workflow, a bad argument);
    anything else (a deadline, a dropped connection, a server error) leaves the outcome
    unknown."""
    if isinstance(err, ActionFailed | OutcomeUnknown):
        return err
    if isinstance(err, WorkflowUpdateRPCTimeoutOrCancelledError):
        return OutcomeUnknown(f"no answer within the time allowed; {NO_WORKER_HINT}", 504)
    if isinstance(err, WorkflowUpdateFailedError | WorkflowQueryFailedError):
        return from_temporal(err)
    if isinstance(err, RPCError):
        if err.status in REFUSALS:
            return from_temporal(err)
        if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
            return OutcomeUnknown(f"no answer within the time allowed; {NO_WORKER_HINT}", 504)
        return OutcomeUnknown(f"Temporal answered {err.status.name}: {err.message}", 503)
    return OutcomeUnknown(f"the request to Temporal failed: {type(err).__name__}: {err}", 503)
