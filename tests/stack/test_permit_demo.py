"""The demo's permit clocks, opened through the same validation as the action layer: one
of each family, and the lapsed one's escalation in the outbox."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pendulum
from temporalio.testing import WorkflowEnvironment

from models.database import make_engine, session_factory
from models.schema import PermitClockRow
from stack.permit_demo import load_permit_demo
from tests.workflows.clock_helpers import notice_keys, settings_for_test
from tests.workflows.permit_helpers import wait_for
from worker import build_worker


async def test_the_demo_opens_a_clock_of_each_family(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = time_skipping_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    today = pendulum.now("America/Los_Angeles").date()
    engine = make_engine(settings.database_url)

    def rows() -> dict[str, PermitClockRow]:
        with session_factory(engine)() as session:
            found = {r.clock_id: r for r in session.query(PermitClockRow)}
            session.expunge_all()
            return found

    async with build_worker(env.client, settings, executor=activity_executor):
        with env.with_time_skipping_disabled():
            opened = await load_permit_demo(env.client, task_queue, today)
            assert len(opened) == 5
            # Loading again opens nothing twice.
            assert await load_permit_demo(env.client, task_queue, today) == []
            await wait_for(lambda: len(rows()) == 5, "the five demo rows")
            await wait_for(
                lambda: any(":lapse:" in k for k in notice_keys(settings.outbox_dir)),
                "the lapsed clock's escalation",
            )
            await wait_for(lambda: rows()["DEMO-APPEAL"].escalated, "the escalated flag")
            await wait_for(lambda: rows()["DEMO-AB2234"].status == "paused", "the pause")
    by_id = rows()
    psa = by_id["DEMO-PSA-24"]
    assert psa.status == "met"
    assert psa.clock["next"][0]["rule"] == "ca_haa_consistency"
    assert psa.clock["next"][0]["status"] == "running"
    assert psa.next_deadline == psa.clock["next"][0]["conservative_date"]
    sign = by_id["DEMO-SIGN"]
    assert sign.status == "running"
    assert today < pendulum.parse(sign.conservative_date).date() <= today + timedelta(days=30)
    assert by_id["DEMO-BP"].due_date == (today + timedelta(days=170)).isoformat()
    appeal = by_id["DEMO-APPEAL"]
    assert appeal.status == "lapsed" and appeal.consequence == "missed"
    keys = [k for k in notice_keys(settings.outbox_dir) if k.startswith("permit:DEMO-APPEAL:")]
    assert keys == [
        f"permit:DEMO-APPEAL:cotati_sign_appeal_decision:lapse:{appeal.conservative_date}"
    ]
