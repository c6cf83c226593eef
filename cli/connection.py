"""The CLI's connection to Temporal: connect, query and update with errors a user reads.

Shared by `clearance clock ...` and `clearance project ...`.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from cli.errors import CliError
from settings import load_settings
from worker import connect as connect_client

RPC_TIMEOUT = timedelta(seconds=20)
NO_WORKER = "no worker answered: is `clearance run` or `clearance worker` running?"


async def connect() -> Client:
    settings = load_settings()
    try:
        return await connect_client(settings)
    except RuntimeError:
        raise CliError(
            f"cannot reach the Temporal server at {settings.temporal_address}: start the "
            "stack with `clearance run`"
        ) from None


async def query(
    handle: WorkflowHandle[Any, Any],
    name: str,
    *args: Any,
    result_type: type | None = None,
    missing: str = "no such workflow",
) -> Any:
    """Run a query; a run that has just started (or continued as new) may have no task
    yet, so that case is retried briefly."""
    for attempt in range(50):
        try:
            return await handle.query(name, *args, result_type=result_type, rpc_timeout=RPC_TIMEOUT)
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                raise CliError(missing) from None
            if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
                raise CliError(NO_WORKER) from None
            if err.status != RPCStatusCode.FAILED_PRECONDITION or attempt == 49:
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("unreachable")


async def update(
    handle: WorkflowHandle[Any, Any],
    name: str,
    payload: Any,
    *,
    result_type: type,
    closed: str,
) -> Any:
    """Run an update; a validator's refusal surfaces as WorkflowUpdateFailedError (the
    CLI's error handler prints it as 'refused: ...')."""
    try:
        return await handle.execute_update(
            name, payload, result_type=result_type, rpc_timeout=RPC_TIMEOUT
        )
    except RPCError as err:
        if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
            raise CliError(NO_WORKER) from None
        if err.status == RPCStatusCode.NOT_FOUND:
            # The workflow finished: nothing is left to record on it.
            raise CliError(closed) from None
        raise
