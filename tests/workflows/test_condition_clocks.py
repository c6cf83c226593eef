"""A condition's time limit becomes a clock of its project (conditions.md §8): the pure
plan (which limits open a clock, which wait), and the hook on the real workflows with a
hand-made condition: reminders to the applicant with the project manager copied."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pendulum
from temporalio.testing import WorkflowEnvironment

from actions.condition_clock_requests import OpenConditionClocks
from actions.condition_clocks import plan_condition_clocks
from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine
from models.workflow_ids import permit_clock_workflow_id
from rules.access import Principal
from tests.workflows.clock_helpers import outbox_messages, settings_for_test
from tests.workflows.permit_helpers import wait_for
from worker import build_worker

EXPIRY = {
    "kind": "expiry",
    "months": 24,
    "anchor": "approval",
    "extensions": {"count": 1, "months": 12},
    "text": "shall expire twenty-four (24) months from the date of approval",
}
CONDITIONS = [
    {"number": "3", "time_limits": [EXPIRY]},
    {
        "number": "7",
        "time_limits": [
            {"kind": "due", "days": 30, "anchor": "approval", "text": "within thirty days"},
            {"kind": "due", "days": 30, "anchor": "invoice", "text": "within 30 days of invoice"},
            {"kind": "until", "until": "2027-12-31", "anchor": "approval", "text": "until 2027"},
        ],
    },
    {"number": "9", "text": "no time limit"},
]


def test_the_plan_opens_known_anchors_and_reports_the_rest() -> None:
    plans, skipped = plan_condition_clocks("PRJ-1", CONDITIONS, {"approval": "2024-02-27"})
    assert [(p.clock_id, p.rule, p.facts, p.start_date) for p in plans] == [
        (
            "PRJ-1-COA-3",
            "condition_expiry_months",
            {"months": 24, "extensions_allowed": 1},
            "2024-02-27",
        ),
        ("PRJ-1-COA-7", "condition_due_days", {"days": 30}, "2024-02-27"),
    ]
    assert [(s.condition_number, s.reason.split(":")[0]) for s in skipped] == [
        ("7", "waits for its anchor 'invoice' to be recorded"),
        ("7", "an end date, not a counted period"),
    ]


async def test_a_hand_made_condition_becomes_a_clock_with_reminders(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = time_skipping_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    actions = Actions(settings, make_engine(settings.database_url), Gateway(settings, env.client))
    pm = Principal("pm@city.test", "project_manager")
    today = pendulum.now("America/Los_Angeles").date()
    adopted = today - timedelta(days=20)
    request = OpenConditionClocks(
        project_id="PRJ-COA",
        conditions=CONDITIONS,
        anchors={"approval": adopted.isoformat()},
        jurisdiction="cotati",
        applicant_name="Village Partners",
        applicant_email="applicant@village.test",
        project_manager_email="pm@city.test",
    )
    async with build_worker(env.client, settings, executor=activity_executor):
        with env.with_time_skipping_disabled():
            done = await actions.condition_clocks.open(pm, request)
            assert done.opened == ["PRJ-COA-COA-3", "PRJ-COA-COA-7"]
            assert len(done.skipped) == 2
            again = await actions.condition_clocks.open(pm, request)
            assert again.opened == [] and again.already_open == done.opened

        row = actions.permit_clocks.row("PRJ-COA-COA-3")
        assert row is not None and row.project_id == "PRJ-COA" and row.condition_number == "3"
        assert row.due_date == date(adopted.year + 2, adopted.month, adopted.day).isoformat()

        # The 30-day limit: its 7-day reminder goes to the applicant, the PM copied.
        due = date.fromisoformat(actions.permit_clocks.row("PRJ-COA-COA-7").conservative_date)
        handle = env.client.get_workflow_handle(permit_clock_workflow_id("PRJ-COA-COA-7"))
        now = await env.get_current_time(handle)
        remind_at = pendulum.datetime(
            (due - timedelta(days=7)).year,
            (due - timedelta(days=7)).month,
            (due - timedelta(days=7)).day,
            9,
            tz="America/Los_Angeles",
        )
        await env.fast_forward(handle, remind_at - now)
        key = f"permit:PRJ-COA-COA-7:condition_due_days:reminder:{due.isoformat()}:7"
        await wait_for(
            lambda: any(
                m["X-Clearance-Notice-Key"] == key for m in outbox_messages(settings.outbox_dir)
            ),
            "the condition's reminder",
        )
        letter = next(
            m for m in outbox_messages(settings.outbox_dir) if m["X-Clearance-Notice-Key"] == key
        )
        assert letter["To"] == "applicant@village.test"
        assert "pm@city.test" in letter["Cc"]
        assert "is due" in letter["Subject"] or "due" in letter["Subject"]


def test_a_recurring_review_is_a_series_of_clocks() -> None:
    from rules.conditions.time_limits import find_time_limits

    limits = find_time_limits(
        "The use permit shall be reviewed by the Planning Commission at six months, at one "
        "year and then annually thereafter."
    )
    plans, skipped = plan_condition_clocks(
        "P-9", [{"number": "7", "time_limits": limits}], {"approval": "2026-01-15"}
    )
    assert not skipped
    assert [(p.clock_id, p.rule, p.facts) for p in plans] == [
        (f"P-9-COA-7-review-{m}m", "condition_due_months", {"months": m})
        for m in (6, 12, 24, 36, 48, 60)
    ]
    assert {p.start_date for p in plans} == {"2026-01-15"}
    # before the approval is known, the series waits for it
    assert plan_condition_clocks("P-9", [{"number": "7", "time_limits": limits}], {})[0] == []
