"""The web app's way to act: the same workflow updates, with the same input dataclasses,
as the CLI (`cli/clock.py`, `cli/projects.py`), through the CLI's query and update helpers.

The Temporal client is made lazily, so pages that only read the SQL read model work while
Temporal is down; an action then fails with a sentence saying so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio.client import Client, WorkflowHandle

from cli.connection import query, update
from cli.errors import CliError, explain
from models.conditions import ActionResult
from models.shot_clock import ClockSummary, ClockUpdateResult
from settings import Settings
from worker import connect

CONNECT_TIMEOUT_S = 5.0


class ActionFailed(Exception):
    """An action did not happen; `message` is for the user, `status` for HTTP."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _failure(err: BaseException) -> ActionFailed:
    message = str(explain(err))
    if message.startswith("refused: "):
        return ActionFailed(message[len("refused: ") :], 409)
    lowered = message.lower()
    if "cannot reach" in lowered or "no worker" in lowered or "cannot connect" in lowered:
        return ActionFailed(message, 503)
    if lowered.startswith("no such"):
        return ActionFailed(message, 404)
    return ActionFailed(message, 409)


class Gateway:
    """Holds the (lazily made) Temporal client for the app's lifetime."""

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

    # -- shot clocks --------------------------------------------------------------------------

    async def _clock_handle(self, application_id: str) -> WorkflowHandle[Any, Any]:
        from workflows.shot_clock import workflow_id_for

        client = await self.client()
        return client.get_workflow_handle(workflow_id_for(application_id))

    async def clock_summary(self, application_id: str) -> ClockSummary:
        try:
            handle = await self._clock_handle(application_id)
            return await query(
                handle,
                "summary",
                result_type=ClockSummary,
                missing=f"no such application {application_id} (no shot clock workflow)",
            )
        except ActionFailed:
            raise
        except (CliError, Exception) as err:  # noqa: BLE001 - every failure becomes a message
            raise _failure(err) from None

    async def clock_update(
        self, application_id: str, name: str, build: Callable[[ClockSummary], Any]
    ) -> ClockUpdateResult:
        """Build the update's input from the clock's summary (its time zone for 'today',
        as the CLI does), then run the update; the validator's refusal is the message."""
        summary = await self.clock_summary(application_id)
        try:
            handle = await self._clock_handle(application_id)
            return await update(
                handle,
                name,
                build(summary),
                result_type=ClockUpdateResult,
                closed=f"the application is already closed ({summary.clock['status']}); "
                "nothing was recorded",
            )
        except ActionFailed:
            raise
        except Exception as err:  # noqa: BLE001
            raise _failure(err) from None

    # -- projects ---------------------------------------------------------------------------------

    async def project_update(self, project_id: str, name: str, payload: Any) -> ActionResult:
        from workflows.project import project_workflow_id

        try:
            client = await self.client()
            handle = client.get_workflow_handle(project_workflow_id(project_id))
            return await update(
                handle,
                name,
                payload,
                result_type=ActionResult,
                closed=f"project {project_id} is finished (every milestone signed off); "
                "nothing was recorded",
            )
        except ActionFailed:
            raise
        except Exception as err:  # noqa: BLE001
            raise _failure(err) from None
