"""Replay saved histories of permit clocks with today's code: a change to
PermitClockWorkflow that would break clocks already running fails here (use
`workflow.patched` for such changes). Regenerate the history with
`.venv/bin/python -m tests.workflows.test_permit_replay` only when a change is compatible.
(Kept apart from histories/*.json, which replay against the shot clock and project.)"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from temporalio.client import WorkflowHistory
from temporalio.converter import DataConverter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from models.permit_clock import PermitClockInput, PermitEvent, PermitEventInput
from models.workflow_ids import permit_clock_workflow_id
from settings import load_settings
from stack.temporal_server import TIME_SKIPPING_ARGS, temporal_binary
from tests.conftest import SEARCH_ATTRIBUTE_KEYS
from tests.workflows.clock_helpers import notice_keys, settings_for_test
from tests.workflows.permit_helpers import permit_info, today, wait_for
from worker import WORKFLOW_RUNNER, build_worker, data_converter
from workflows.permit_clock import PermitClockWorkflow

HISTORIES = Path(__file__).parent / "histories" / "permit"


@pytest.mark.parametrize("converter", ["sdk default", "worker's"])
async def test_saved_permit_histories_replay_with_current_code(converter: str) -> None:
    """With the worker's own payload converter too: it reads what the SDK wrote."""
    files = sorted(HISTORIES.glob("*.json"))
    assert files, "no saved permit-clock histories"
    replayer = Replayer(
        workflows=[PermitClockWorkflow],
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=(
            DataConverter.default if converter == "sdk default" else data_converter(load_settings())
        ),
    )
    for path in files:
        await replayer.replay_workflow(WorkflowHistory.from_json(path.stem, path.read_text()))


async def record_permit_history(target: Path) -> None:
    """A PSA completeness clock chained to its HAA clock: an alert, an incomplete
    notice, a resubmission, completion, the chained clock's alerts and its lapse."""
    env = await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=TIME_SKIPPING_ARGS,
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
    )
    try:
        with TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as executor:
            settings = settings_for_test(Path(tmp), "replay-permit")
            async with build_worker(env.client, settings, executor=executor):
                info = permit_info(
                    "ca_psa_completeness",
                    facts={"housing": True, "units": 24},
                    offsets=[14, 3],
                    clock_id="REPLAY-PSA",
                )
                start = today()
                with env.with_time_skipping_disabled():
                    handle = await env.client.start_workflow(
                        PermitClockWorkflow.run,
                        PermitClockInput(info, [PermitEvent("received", start.isoformat())]),
                        id=permit_clock_workflow_id(info.clock_id),
                        task_queue="replay-permit",
                    )
                await env.fast_forward(handle, timedelta(days=20))
                await handle.execute_update(
                    PermitClockWorkflow.record_event,
                    PermitEventInput(
                        "incomplete_notice",
                        (start + timedelta(days=20)).isoformat(),
                        {"items": [{"id": "A", "text": "Site plan", "rule": "CMC 17.62"}]},
                    ),
                )
                await env.fast_forward(handle, timedelta(days=10))
                await handle.execute_update(
                    PermitClockWorkflow.record_event,
                    PermitEventInput("resubmitted", (start + timedelta(days=30)).isoformat()),
                )
                await env.fast_forward(handle, timedelta(days=5))
                await handle.execute_update(
                    PermitClockWorkflow.record_event,
                    PermitEventInput("complete", (start + timedelta(days=35)).isoformat()),
                )
                await env.fast_forward(handle, timedelta(days=40))
                await wait_for(
                    lambda: any(":lapse:" in k for k in notice_keys(settings.outbox_dir)),
                    "the HAA clock's lapse escalation",
                )
                history = await handle.fetch_history()
        target.write_text(history.to_json())
    finally:
        await env.shutdown()


if __name__ == "__main__":
    asyncio.run(record_permit_history(HISTORIES / "psa_chained_lifecycle.json"))
