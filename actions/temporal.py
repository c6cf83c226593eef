"""The action layer's one Temporal client: made lazily (pages that only read the SQL read
model keep working while Temporal is down), with queries and updates that turn every
failure into an ActionFailed a user reads."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from actions.errors import NO_WORKER, ActionFailed, from_temporal, sent_but_unanswered
from actions.idempotency import start_memo, started_by_this_key, update_id
from settings import Settings
from worker import connect

CONNECT_TIMEOUT_S = 5.0
RPC_TIMEOUT = timedelta(seconds=20)


class Gateway:
    """Holds the (lazily made) Temporal client for the process's lifetime."""

    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self._settings = settings
        self._client = client
        # How long an update or a start waits for its answer before the outcome is
        # unknown (504); tests shorten it.
        self.rpc_timeout = RPC_TIMEOUT
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
        self,
        workflow_id: str,
        name: str,
        payload: Any,
        *,
        result_type: type,
        closed: str | None,
    ) -> Any:
        """Run an update; the validator's refusal is the message (409), a finished
        workflow `closed` (409; None: 404). Under an idempotency key the update id comes
        from the key, so a retry of a request whose first attempt got no answer waits for
        or returns that attempt's result instead of acting again. No answer at all is
        OutcomeUnknown (504 or 503), never a refusal."""
        handle = await self.handle(workflow_id)
        try:
            return await handle.execute_update(
                name,
                payload,
                id=update_id(workflow_id, name),
                result_type=result_type,
                rpc_timeout=self.rpc_timeout,
            )
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND and closed is not None:
                # The workflow finished: nothing is left to record on it.
                raise ActionFailed(closed, 409) from None
            raise sent_but_unanswered(err) from None
        except Exception as err:  # noqa: BLE001
            raise sent_but_unanswered(err) from None

    async def start(
        self,
        workflow: Any,
        arg: Any,
        *,
        id: str,
        exists: str,
        id_reuse_policy: WorkflowIDReusePolicy = WorkflowIDReusePolicy.REJECT_DUPLICATE,
    ) -> None:
        """Start a workflow; one already there is `exists` (409), unless this request's
        idempotency key started it (a retry of a start whose answer was lost: done)."""
        client = await self.client()
        try:
            await client.start_workflow(
                workflow,
                arg,
                id=id,
                task_queue=self.task_queue,
                id_reuse_policy=id_reuse_policy,
                memo=start_memo() or None,
                rpc_timeout=self.rpc_timeout,
            )
        except WorkflowAlreadyStartedError:
            if await self._started_by_this_key(id):
                return
            raise ActionFailed(exists, 409) from None
        except Exception as err:  # noqa: BLE001
            raise sent_but_unanswered(err) from None

    async def _started_by_this_key(self, workflow_id: str) -> bool:
        if not start_memo():
            return False
        try:
            described = await (await self.handle(workflow_id)).describe(
                rpc_timeout=self.rpc_timeout
            )
            return started_by_this_key(dict(await described.memo()))
        except Exception as err:  # noqa: BLE001
            raise sent_but_unanswered(err) from None
