"""The action layer's one Temporal client: made lazily (pages that only read the SQL read
model keep working while Temporal is down), with queries and updates that turn every
failure into an ActionFailed a user reads."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode

from actions.errors import NO_WORKER, ActionFailed, from_temporal
from settings import Settings
from worker import connect

CONNECT_TIMEOUT_S = 5.0
RPC_TIMEOUT = timedelta(seconds=20)


class Gateway:
    """Holds the (lazily made) Temporal client for the process's lifetime."""

    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self._settings = settings
        self._client = client
        self._lock = asyncio.Lock()

    @property
    def task_queue(self) -> str:
        return self._settings.task_queue

    async def client(self) -> Client:
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                try:
                    self._client = await asyncio.wait_for(
                        connect(self._settings), timeout=CONNECT_TIMEOUT_S
                    )
                except (TimeoutError, RuntimeError, OSError) as err:
                    raise ActionFailed(
                        f"cannot reach the Temporal server at {self._settings.temporal_address}"
                        " right now, so nothing was recorded; the pages still show the last "
                        f"known state ({type(err).__name__})",
                        503,
                    ) from None
        return self._client

    async def reachable(self) -> bool:
        try:
            client = await self.client()
            await asyncio.wait_for(client.service_client.check_health(), timeout=3)
            return True
        except Exception:  # noqa: BLE001 - readiness: any failure means not ready
            return False

    async def handle(self, workflow_id: str) -> WorkflowHandle[Any, Any]:
        return (await self.client()).get_workflow_handle(workflow_id)

    async def query(
        self, workflow_id: str, name: str, *args: Any, result_type: type | None, missing: str
    ) -> Any:
        """Run a query; a run that has just started (or continued as new) may have no
        task yet, so that case is retried briefly."""
        handle = await self.handle(workflow_id)
        for attempt in range(50):
            try:
                return await handle.query(
                    name, *args, result_type=result_type, rpc_timeout=RPC_TIMEOUT
                )
            except RPCError as err:
                if err.status == RPCStatusCode.NOT_FOUND:
                    raise ActionFailed(missing, 404) from None
                if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
                    raise ActionFailed(NO_WORKER, 503) from None
                if err.status != RPCStatusCode.FAILED_PRECONDITION or attempt == 49:
                    raise from_temporal(err) from None
                await asyncio.sleep(0.1)
            except ActionFailed:
                raise
            except Exception as err:  # noqa: BLE001 - every failure becomes a message
                raise from_temporal(err) from None
        raise AssertionError("unreachable")

    async def update(
        self, workflow_id: str, name: str, payload: Any, *, result_type: type, closed: str
    ) -> Any:
        """Run an update; the validator's refusal is the message (409)."""
        handle = await self.handle(workflow_id)
        try:
            return await handle.execute_update(
                name, payload, result_type=result_type, rpc_timeout=RPC_TIMEOUT
            )
        except RPCError as err:
            if err.status == RPCStatusCode.DEADLINE_EXCEEDED:
                raise ActionFailed(NO_WORKER, 503) from None
            if err.status == RPCStatusCode.NOT_FOUND:
                # The workflow finished: nothing is left to record on it.
                raise ActionFailed(closed, 409) from None
            raise from_temporal(err) from None
        except ActionFailed:
            raise
        except Exception as err:  # noqa: BLE001
            raise from_temporal(err) from None
