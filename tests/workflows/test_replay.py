"""Replay saved histories of long-lived clocks with today's code: a change to
ShotClockWorkflow that would break clocks already running fails here (use
`workflow.patched` for such changes). Regenerate the history with
`.venv/bin/python -m tests.workflows.test_replay` only when a change is compatible."""

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

from models.shot_clock import (
    ApplicantNoticeInput,
    DecisionInput,
    IncompleteNoticeInput,
    NoticeItem,
    RebaseInput,
    ResubmissionInput,
)
from models.workflow_ids import project_workflow_id
from settings import load_settings
from stack.temporal_server import TIME_SKIPPING_ARGS, temporal_binary
from tests.conftest import SEARCH_ATTRIBUTE_KEYS
from tests.workflows.clock_helpers import application, open_clock, settings_for_test
from tests.workflows.test_shot_clock_workflow import today
from worker import WORKFLOW_RUNNER, build_worker, data_converter
from workflows.project import ProjectWorkflow
from workflows.shot_clock import ShotClockWorkflow

HISTORIES = Path(__file__).parent / "histories"


@pytest.mark.parametrize("converter", ["sdk default", "worker's"])
async def test_saved_histories_replay_with_current_code(converter: str) -> None:
    """With the worker's own payload converter too: it reads what the SDK wrote."""
    files = sorted(HISTORIES.glob("*.json"))
    assert files, "no saved histories"
    replayer = Replayer(
        workflows=[ShotClockWorkflow, ProjectWorkflow],
        workflow_runner=WORKFLOW_RUNNER,
        data_converter=(
            DataConverter.default if converter == "sdk default" else data_converter(load_settings())
        ),
    )
    for path in files:
        history = WorkflowHistory.from_json(path.stem, path.read_text())
        await replayer.replay_workflow(history)


async def record_lifecycle_history(target: Path) -> None:
    """Drive one clock through notice, resubmission, reminders and a decision."""
    env = await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=TIME_SKIPPING_ARGS,
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
    )
    try:
        with TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as executor:
            settings = settings_for_test(Path(tmp), "replay-history")
            async with build_worker(env.client, settings, executor=executor):
                app = application("macro_collocation", reminder_offsets=[30, 7])
                app.application_id = "REPLAY-1"
                with env.with_time_skipping_disabled():
                    handle = await open_clock(env.client, "replay-history", app, today())
                start = today()
                await env.fast_forward(handle, timedelta(days=6))
                await handle.execute_update(
                    ShotClockWorkflow.record_incomplete_notice,
                    IncompleteNoticeInput(
                        (start + timedelta(days=6)).isoformat(),
                        [NoticeItem("A", "RF emissions report", "CMC 17.44.070(A)")],
                    ),
                )
                await env.fast_forward(handle, timedelta(days=10))
                await handle.execute_update(
                    ShotClockWorkflow.record_resubmission,
                    ResubmissionInput((start + timedelta(days=16)).isoformat()),
                )
                await env.fast_forward(handle, timedelta(days=70))
                decided = start + timedelta(days=86)
                await handle.execute_update(
                    ShotClockWorkflow.record_decision,
                    DecisionInput(decided.isoformat(), "approved"),
                )
                await asyncio.wait_for(handle.result(), 30)
                history = await handle.fetch_history()
        target.write_text(history.to_json())
    finally:
        await env.shutdown()


async def record_revision2_history(target: Path) -> None:
    """A clock with a frozen calendar and the Cotati pack (shot-clocks.md 8): a notice
    effective only under the earliest reading, its countdown, an audited rebase and a
    decision, taken with the code of revision 2 (the other saved clock predates it)."""
    from rules.kernel.jurisdictions import jurisdiction
    from rules.shot_clock.packs import rule_pack

    env = await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=TIME_SKIPPING_ARGS,
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
    )
    try:
        with TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as executor:
            settings = settings_for_test(Path(tmp), "replay-revision2")
            async with build_worker(env.client, settings, executor=executor):
                app = application(
                    "swf_new_structure",
                    rule_pack="cotati-2024",
                    reminder_offsets=[7],
                    window_alert_offsets=[],
                    frozen=True,
                )
                app.judicial_review_offsets = [7, 0]
                app.application_id = "REPLAY-2"
                start = today()
                with env.with_time_skipping_disabled():
                    handle = await open_clock(env.client, "replay-revision2", app, start)
                await env.fast_forward(handle, timedelta(days=93))
                notice_day = (start + timedelta(days=93)).isoformat()
                for kind in ("applicant_public_notice", "deemed_approved_notice"):
                    await handle.execute_update(
                        ShotClockWorkflow.record_applicant_notice,
                        ApplicantNoticeInput(notice_day, kind),
                    )
                await env.fast_forward(handle, timedelta(days=10))
                cotati = jurisdiction("cotati")
                await handle.execute_update(
                    ShotClockWorkflow.rebase,
                    RebaseInput(
                        "the city's adopted holidays entered",
                        "admin@city.test",
                        cotati.calendar_layers().to_dict(),
                        dict(rule_pack("cotati-2024").data),
                    ),
                )
                await env.fast_forward(handle, timedelta(days=25))
                decided = start + timedelta(days=128)
                await handle.execute_update(
                    ShotClockWorkflow.record_decision,
                    DecisionInput(decided.isoformat(), "approved"),
                )
                await asyncio.wait_for(handle.result(), 30)
                history = await handle.fetch_history()
        target.write_text(history.to_json())
    finally:
        await env.shutdown()


async def record_project_history(target: Path) -> None:
    """Drive a project through evidence, a return, reviews, planned dates and a sign-off."""
    from models.conditions import (
        PlannedDatesInput,
        ReviewInput,
        SignOffInput,
        SubmitEvidenceInput,
    )
    from tests.workflows.test_project_workflow import (
        APPLICANT,
        ENGINEER,
        ENGINEERING_REVIEWER,
        PM,
        project,
    )

    env = await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=TIME_SKIPPING_ARGS,
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
    )
    try:
        with TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as executor:
            settings = settings_for_test(Path(tmp), "replay-project")
            async with build_worker(env.client, settings, executor=executor):
                start = project()
                start.info.project_id = "REPLAY-PROJECT"
                with env.with_time_skipping_disabled():
                    handle = await env.client.start_workflow(
                        ProjectWorkflow.run,
                        start,
                        id=project_workflow_id("REPLAY-PROJECT"),
                        task_queue="replay-project",
                    )
                await handle.execute_update(
                    ProjectWorkflow.set_planned_dates,
                    PlannedDatesInput(
                        PM,
                        milestone_targets={
                            "grading_permit": (today() + timedelta(days=20)).isoformat()
                        },
                    ),
                )
                for number in ("1", "2"):
                    await handle.execute_update(
                        ProjectWorkflow.submit_evidence,
                        SubmitEvidenceInput(number, APPLICANT, f"document for #{number}"),
                    )
                await handle.execute_update(
                    ProjectWorkflow.review_condition,
                    ReviewInput("1", ENGINEERING_REVIEWER, "returned", "sheet C-3 missing"),
                )
                await env.fast_forward(handle, timedelta(days=16))
                await handle.execute_update(
                    ProjectWorkflow.submit_evidence,
                    SubmitEvidenceInput("1", APPLICANT, "revised with sheet C-3"),
                )
                for number in ("1", "2"):
                    await handle.execute_update(
                        ProjectWorkflow.review_condition,
                        ReviewInput(number, ENGINEERING_REVIEWER, "cleared"),
                    )
                await handle.execute_update(
                    ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", ENGINEER)
                )
                await env.fast_forward(handle, timedelta(days=8))
                history = await handle.fetch_history()
        target.write_text(history.to_json())
    finally:
        await env.shutdown()


if __name__ == "__main__":
    import sys

    # `... test_replay revision2` records only the revision-2 clock; shot_clock_lifecycle
    # stays as taken before revision 2, so that its replay proves the patch keeps it.
    if sys.argv[1:] != ["revision2"]:
        asyncio.run(record_lifecycle_history(HISTORIES / "shot_clock_lifecycle.json"))
        asyncio.run(record_project_history(HISTORIES / "project_lifecycle.json"))
    asyncio.run(record_revision2_history(HISTORIES / "shot_clock_revision2.json"))
