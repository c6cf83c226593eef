"""The Clearance worker: runs the shot clock workflows and their activities.

`clearance worker` (or `python worker.py`) connects to the Temporal address from the
environment; the embedded stack (`clearance run`) builds the same worker in-process.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import temporalio.converter
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.worker import UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities.closures import ClosureActivities
from activities.mail import SmtpTransport, Transport, transport_from_settings
from activities.notices import NoticeActivities
from activities.operator_alerts import OperatorAlerts
from activities.permit_clock_records import PermitClockRecords
from activities.portal_links import PortalLinks
from activities.project_records import ProjectRecords
from activities.shot_clock_records import ShotClockRecords
from activities.webhooks import WebhookActivities
from models.database import make_engine, sqlite_files, write_probe
from notices.render import NoticeRenderer
from operations import payload_visits
from operations.data_folder import keep_private
from operations.payload_codec import EncryptionCodec
from operations.payload_converter import ClearancePayloadConverter
from operations.signing import secret_key
from operations.structured_logs import configure_logging
from operations.temporal_tls import tls_config
from operations.worker_health import WorkerHealth
from settings import SEARCH_ATTRIBUTES, Settings, load_settings
from workflows.jurisdiction_closure import JurisdictionClosureWorkflow
from workflows.permit_clock import PermitClockWorkflow
from workflows.project import ProjectWorkflow
from workflows.shot_clock import ShotClockWorkflow
from workflows.webhooks import WORKFLOW_ID as WEBHOOK_DISPATCH_ID
from workflows.webhooks import WebhookDispatchWorkflow

log = logging.getLogger("clearance.worker")

# The sandboxed runner: the test suite's (CLEARANCE_WORKFLOW_SANDBOX=true) and the replay
# tests', where it catches non-deterministic workflow code. The pure rules, the payload
# dataclasses and the clocks' state and logic are deterministic and import no I/O
# libraries: they are passed through instead of re-imported for every workflow run.
WORKFLOW_RUNNER = SandboxedWorkflowRunner(
    restrictions=SandboxRestrictions.default.with_passthrough_modules(
        "rules",
        "models.shot_clock",
        "models.conditions",
        "activities.names",
        "models.workflow_ids",
        "workflows.clock_common",
        "workflows.shot_clock_support",
        "models.permit_clock",
        "workflows.permit_clock_support",
    )
)


def workflow_runner(settings: Settings) -> WorkflowRunner:
    """The shipped worker runs workflow code without the sandbox: replaying an evicted
    clock (every reminder on a busy morning) cost twice the CPU inside it, most of it the
    sandbox's per-run imports and per-payload context switches (docs/storm.md). The
    workflows are kept deterministic by review, by the suite running sandboxed and by the
    replay tests over saved histories."""
    return WORKFLOW_RUNNER if settings.workflow_sandbox else UnsandboxedWorkflowRunner()


async def connect(settings: Settings) -> Client:
    """The one place a Temporal client is made (worker, CLI, web app, demo), so every
    client shares the same data converter: with `CLEARANCE_PAYLOAD_KEY` set, payloads
    are encrypted (operations/payload_codec.py) for all of them alike; with the
    CLEARANCE_TEMPORAL_TLS_* settings, every client presents the same certificate (mTLS,
    operations/temporal_tls.py)."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=data_converter(settings),
        tls=tls_config(settings) or False,
    )


def data_converter(settings: Settings) -> temporalio.converter.DataConverter:
    """The SDK's default converter with each type's JSON decoder kept
    (operations/payload_converter.py: the same payloads, decoded without re-reading the
    type hints each time), and the encryption codec when a payload key is set."""
    converter = dataclasses.replace(
        temporalio.converter.DataConverter.default,
        payload_converter_class=ClearancePayloadConverter,
    )
    if not settings.payload_key:
        return converter
    codec = EncryptionCodec.from_settings(
        settings.payload_key, settings.payload_key_id, settings.payload_old_keys
    )
    # Failure messages and stack traces are encoded too: an SMTP error names addresses.
    return dataclasses.replace(
        converter,
        payload_codec=codec,
        failure_converter_class=temporalio.converter.DefaultFailureConverterWithEncodedAttributes,
    )


async def ensure_webhook_dispatch(client: Client, task_queue: str) -> None:
    """Start the one webhook dispatcher unless it runs (idempotent: a fixed id)."""
    with contextlib.suppress(WorkflowAlreadyStartedError):
        await client.start_workflow(
            WebhookDispatchWorkflow.run, id=WEBHOOK_DISPATCH_ID, task_queue=task_queue
        )


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
    warm_templates: bool = False,
    **worker_options: Any,
) -> Worker:
    """One worker for the shot clock workflows and all their activities.

    The workflow cache holds `settings.max_cached_workflows` runs
    (`CLEARANCE_MAX_CACHED_WORKFLOWS`); `worker_options` (any `Worker` argument, e.g.
    `max_cached_workflows`) override it. `warm_templates` compiles the notice templates
    before the worker polls (`clearance worker` does; tests needn't pay for it).
    """
    # Without a payload codec the SDK's walks over each activation and completion change
    # nothing and cost a sixth of an evicted clock's replay (operations/payload_visits.py).
    payload_visits.install()
    worker_options.setdefault("max_cached_workflows", settings.max_cached_workflows)
    worker_options.setdefault(
        "max_concurrent_workflow_tasks", settings.max_concurrent_workflow_tasks
    )
    worker_options.setdefault(
        "sticky_queue_schedule_to_start_timeout",
        timedelta(seconds=settings.sticky_queue_timeout_seconds),
    )
    # Take no more activities than there are threads to run them: the SDK's default (100)
    # lets a storm of reminders start 100 activities whose start-to-close timeouts run
    # while 84 of them wait for a thread, and keeps them from another worker that is free.
    threads = getattr(executor, "_max_workers", None)
    if isinstance(threads, int):
        worker_options.setdefault("max_concurrent_activities", threads)
        # A clock's notices and records are local activities (workflows/clock_common.py):
        # they run on the same threads.
        worker_options.setdefault("max_concurrent_local_activities", threads)
    renderer = NoticeRenderer()
    if warm_templates:
        renderer.warm()
    engine = make_engine(settings.database_url)
    records = ShotClockRecords(engine)
    projects = ProjectRecords(engine)
    permits = PermitClockRecords(engine)
    closures = ClosureActivities(client)
    webhooks = WebhookActivities(engine)
    notices = notice_activities or NoticeActivities(
        engine,
        renderer,
        transport or transport_from_settings(settings),
        mail_from=settings.mail_from,
        operator_alerts=OperatorAlerts(
            engine,
            settings.outbox_dir,
            operator_email=settings.operator_email,
            mail_from=settings.mail_from,
            after_attempts=settings.mail_alert_after_attempts,
        ),
        portal_links=PortalLinks(
            engine, settings.public_url, secret_key(settings), settings.applicant_link_days
        ),
    )
    return Worker(
        client,
        task_queue=task_queue or settings.task_queue,
        workflows=[
            ShotClockWorkflow,
            ProjectWorkflow,
            JurisdictionClosureWorkflow,
            PermitClockWorkflow,
            WebhookDispatchWorkflow,
        ],
        activities=[
            records.record_application,
            records.record_event,
            notices.send_notice,
            projects.record_project,
            notices.send_project_notice,
            closures.add_closure_to_clock,
            closures.add_closure_to_permit_clock,
            permits.record_permit_clock,
            permits.record_permit_event,
            notices.send_permit_notice,
            webhooks.dispatch_webhooks,
        ],
        activity_executor=executor,
        **{"workflow_runner": workflow_runner(settings), **worker_options},
    )


def lower_priority(niceness: int) -> None:
    """Yield the CPU to the web app and the server when they need it (Unix only)."""
    if niceness > 0 and hasattr(os, "nice"):
        try:
            os.nice(niceness)
        except OSError as err:  # a container may forbid it: run at normal priority
            log.warning("could not lower the worker's priority: %s", err)


async def main() -> None:
    """`clearance worker`: run until SIGTERM or SIGINT, then drain.

    On a signal the worker stops polling for new tasks and lets running activities
    finish for up to `CLEARANCE_GRACEFUL_SHUTDOWN_SECONDS` (a notice being sent is sent
    and recorded, not cut off and retried elsewhere), then exits 0.
    """
    settings = load_settings()
    configure_logging(settings.log_format, settings.log_level)
    # The outbox's letters and the data folder's other files: 0600, folders 0700.
    privacy = keep_private(settings.data_dir, sqlite_files(settings.database_url))
    if (fixed := privacy.message()) is not None:
        log.warning(fixed)
    lower_priority(settings.worker_niceness)
    client = await connect(settings)
    await ensure_search_attributes(client, settings.temporal_namespace)
    await ensure_webhook_dispatch(client, settings.task_queue)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    transport = transport_from_settings(settings)
    with ThreadPoolExecutor(
        max_workers=settings.activity_threads, thread_name_prefix="activity"
    ) as executor:
        worker = build_worker(
            client,
            settings,
            executor=executor,
            transport=transport,
            warm_templates=True,
            graceful_shutdown_timeout=timedelta(seconds=settings.graceful_shutdown_seconds),
        )
        running = asyncio.create_task(worker.run())
        log.info("worker on task queue %s at %s", settings.task_queue, settings.temporal_address)
        health: WorkerHealth | None = None
        if settings.worker_health_port:
            health = WorkerHealth(
                worker,
                client,
                make_engine(settings.database_url),
                settings.worker_health_port,
                # Ready only while the database takes a write: the worker's work is writes.
                database_probe=write_probe,
            )
            await health.start()
        stopping = asyncio.create_task(stop.wait())
        # Until a signal, or until the worker itself fails (then its error ends the command).
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            log.info(
                "stopping: draining running activities (up to %d s)",
                settings.graceful_shutdown_seconds,
            )
            await worker.shutdown()
        stopping.cancel()
        if health is not None:
            await health.stop()
        try:
            await running  # re-raises a fatal worker error
        finally:
            if isinstance(transport, SmtpTransport):
                transport.close()  # QUIT on the connections kept open between letters
        log.info("worker stopped")


if __name__ == "__main__":
    asyncio.run(main())
