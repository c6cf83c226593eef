"""The Clearance worker: runs the shot clock workflows and their activities.

`clearance worker` (or `python worker.py`) connects to the Temporal address from the
environment; the embedded stack (`clearance run`) builds the same worker in-process.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities.mail import Transport, transport_from_settings
from activities.notices import NoticeActivities
from activities.projects import ProjectRecords
from activities.records import ClockRecords
from activities.rendering import NoticeRenderer
from models.database import make_engine
from settings import SEARCH_ATTRIBUTES, Settings, load_settings
from workflows.project import ProjectWorkflow
from workflows.shot_clock import ShotClockWorkflow

log = logging.getLogger("clearance.worker")

# The pure rules, the payload dataclasses and the shot clock's state and logic are
# deterministic and import no I/O libraries: pass them through the sandbox instead of
# re-importing them for every workflow run (each cached run pays for what is re-imported).
WORKFLOW_RUNNER = SandboxedWorkflowRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(
        "rules",
        "models.shot_clock",
        "models.conditions",
        "activities.names",
        "workflows.shot_clock_support",
    )
)


async def connect(settings: Settings) -> Client:
    """The one place a Temporal client is made (worker, CLI, web app, demo), so every
    client shares the same data converter."""
    return await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)


async def ensure_search_attributes(client: Client, namespace: str) -> None:
    """Register the custom search attributes the workflows upsert (idempotent)."""
    existing = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=namespace)
    )
    missing = {
        name: IndexedValueType.Value(f"INDEXED_VALUE_TYPE_{kind.upper()}")
        for name, kind in SEARCH_ATTRIBUTES.items()
        if name not in existing.custom_attributes
    }
    if missing:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
        )


def build_worker(
    client: Client,
    settings: Settings,
    *,
    executor: ThreadPoolExecutor,
    task_queue: str | None = None,
    transport: Transport | None = None,
    notice_activities: NoticeActivities | None = None,
    **worker_options: Any,
) -> Worker:
    """One worker for the shot clock workflows and all their activities.

    The workflow cache holds `settings.max_cached_workflows` runs
    (`CLEARANCE_MAX_CACHED_WORKFLOWS`); `worker_options` (any `Worker` argument, e.g.
    `max_cached_workflows`) override it.
    """
    worker_options.setdefault("max_cached_workflows", settings.max_cached_workflows)
    worker_options.setdefault(
        "max_concurrent_workflow_tasks", settings.max_concurrent_workflow_tasks
    )
    engine = make_engine(settings.database_url)
    records = ClockRecords(engine)
    projects = ProjectRecords(engine)
    notices = notice_activities or NoticeActivities(
        engine,
        NoticeRenderer(),
        transport or transport_from_settings(settings),
        mail_from=settings.mail_from,
    )
    return Worker(
        client,
        task_queue=task_queue or settings.task_queue,
        workflows=[ShotClockWorkflow, ProjectWorkflow],
        activities=[
            records.record_application,
            records.record_event,
            notices.send_notice,
            projects.record_project,
            notices.send_project_notice,
        ],
        activity_executor=executor,
        workflow_runner=WORKFLOW_RUNNER,
        **worker_options,
    )


async def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = load_settings()
    client = await connect(settings)
    await ensure_search_attributes(client, settings.temporal_namespace)
    with ThreadPoolExecutor(max_workers=16) as executor:
        worker = build_worker(client, settings, executor=executor)
        log.info("worker on task queue %s at %s", settings.task_queue, settings.temporal_address)
        await worker.run()


if __name__ == "__main__":
    asyncio.run(main())
