"""Errors the CLI shows as one clear line (never a traceback)."""

from __future__ import annotations

from temporalio.client import WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode


class CliError(Exception):
    """A user-facing error: printed as one line, exit code `code`."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def explain(err: BaseException) -> CliError:
    """Turn what Temporal raised into a sentence a planner understands."""
    if isinstance(err, CliError):
        return err
    if isinstance(err, WorkflowUpdateFailedError):
        cause = err.cause
        if isinstance(cause, ApplicationError):
            return CliError(f"refused: {cause.message}")
        return CliError(f"refused: {cause or err}")
    if isinstance(err, WorkflowQueryFailedError):
        return CliError(f"the query failed: {err}")
    if isinstance(err, RPCError):
        if err.status == RPCStatusCode.NOT_FOUND:
            return CliError("no such application (no shot clock workflow with that id)")
        if err.status == RPCStatusCode.ALREADY_EXISTS:
            return CliError("an application with that id is already open")
        if err.status == RPCStatusCode.UNAVAILABLE:
            return CliError(
                "cannot reach the Temporal server: start the stack with `clearance run`"
            )
        return CliError(f"Temporal refused the request: {err.message}")
    if isinstance(err, ConnectionError | OSError):
        return CliError(f"cannot connect: {err}")
    return CliError(f"{type(err).__name__}: {err}")
