"""Helpers for permit-clock workflow tests: a clock's info, opening it, reading its rows."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest_asyncio
from sqlalchemy import func, select
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from models.database import make_engine, session_factory
from models.permit_clock import (
    PermitCalendar,
    PermitClockInfo,
    PermitClockInput,
    PermitContacts,
    PermitEvent,
)
from models.schema import PermitClockRow, PermitEventRow
from models.workflow_ids import permit_clock_workflow_id
from rules.kernel.alerts import local_instant
from settings import Settings
from tests.polling import polls
from tests.workflows.clock_helpers import notice_keys, settings_for_test
from worker import build_worker
from workflows.permit_clock import PermitClockWorkflow

EIGHT_AM = time(8, 0)
CONTACTS = PermitContacts(
    staff_email="planner@city.test",
    supervisor_email="supervisor@city.test",
    attorney_email="attorney@city.test",
    applicant_email="owner@applicant.test",
    applicant_name="Gravenstein Holdings",
)


def permit_info(
    rule: str,
    *,
    facts: dict[str, Any] | None = None,
    offsets: list[int] | None = None,
    companion_id: str = "",
    clock_id: str | None = None,
) -> PermitClockInfo:
    return PermitClockInfo(
        clock_id=clock_id or f"PC-{uuid.uuid4().hex[:8]}",
        rule=rule,
        calendar=PermitCalendar(jurisdiction="cotati", time_zone="UTC"),
        contacts=CONTACTS,
        facts=dict(facts or {}),
        title=f"{rule.replace('_', ' ')} test",
        site_address="7925 Gravenstein Hwy",
        companion_id=companion_id,
        reminder_offsets=list(offsets if offsets is not None else [14, 3]),
    )


def today() -> date:
    return datetime.now().astimezone().date()


def at_8am(day: date | str) -> datetime:
    return local_instant(date.fromisoformat(str(day)), EIGHT_AM, "UTC")


async def wait_for(check: Callable[[], Any], what: str, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@dataclass
class PermitHarness:
    env: WorkflowEnvironment
    settings: Settings
    task_queue: str

    @property
    def outbox(self) -> Path:
        return self.settings.outbox_dir

    def sent(self, clock_id: str) -> list[str]:
        prefix = f"permit:{clock_id}:"
        return [k[len(prefix) :] for k in notice_keys(self.outbox) if k.startswith(prefix)]

    async def open(
        self, info: PermitClockInfo, events: list[PermitEvent]
    ) -> WorkflowHandle[Any, Any]:
        with self.env.with_time_skipping_disabled():
            handle = await self.env.client.start_workflow(
                PermitClockWorkflow.run,
                PermitClockInput(info=info, events=events),
                id=permit_clock_workflow_id(info.clock_id),
                task_queue=self.task_queue,
            )
        await wait_for(lambda: self.row(info.clock_id) is not None, "the first record")
        # At least: a sign permit may already have recorded its companion's expiry.
        await wait_for(lambda: self.event_count(info.clock_id) >= len(events), "the events")
        return handle

    def row(self, clock_id: str) -> PermitClockRow | None:
        with session_factory(make_engine(self.settings.database_url))() as session:
            return session.get(PermitClockRow, clock_id)

    def event_count(self, clock_id: str) -> int:
        with session_factory(make_engine(self.settings.database_url))() as session:
            return session.scalar(
                select(func.count())
                .select_from(PermitEventRow)
                .where(PermitEventRow.clock_id == clock_id)
            )

    async def forward_to(self, handle: WorkflowHandle[Any, Any], instant: datetime) -> None:
        now = await self.env.get_current_time(handle)
        assert instant > now, f"cannot go back from {now} to {instant}"
        await self.env.fast_forward(handle, instant - now)


def days(n: int) -> timedelta:
    return timedelta(days=n)


async def query_ready(handle: WorkflowHandle[Any, Any], query: Any) -> Any:
    """A query, retried while a run that has just started (or continued as new) has no
    workflow task yet."""
    from temporalio.service import RPCError, RPCStatusCode

    for _ in polls():
        try:
            return await handle.query(query)
        except RPCError as err:
            if err.status != RPCStatusCode.FAILED_PRECONDITION:
                raise
            await asyncio.sleep(0.1)
    return await handle.query(query)


@pytest_asyncio.fixture
async def permit_harness(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> AsyncIterator[PermitHarness]:
    """A worker on the time-skipping server with the test's database and outbox."""
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(time_skipping_env.client, settings, executor=activity_executor):
        yield PermitHarness(time_skipping_env, settings, task_queue)
