"""ShotClockWorkflow end to end on the real dev server, with per-workflow time skipping:
reminders at the right instants, tolling and resets moving them, escalation with the
risk flag, the deemed-approved countdown, refused updates, and continue-as-new."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import func, select
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from activities.names import RECORD_APPLICATION
from models.database import make_engine, session_factory
from models.schema import Application, ClockEventRow, Notice
from models.shot_clock import (
    ApplicantNoticeInput,
    ClockEvent,
    ClockSummary,
    DecisionInput,
    IncompleteNoticeInput,
    NoticeItem,
    ResubmissionInput,
    ShotClockInput,
    TollingAgreementInput,
)
from models.workflow_ids import shot_clock_workflow_id
from rules.kernel.alerts import local_instant
from rules.shot_clock.engine import compute_json
from settings import Settings
from tests.conftest import start_time_skipping_server
from tests.polling import polls
from tests.workflows.clock_helpers import application, notice_keys, open_clock, settings_for_test
from worker import build_worker
from workflows.clock_common import ONE_RECORD_AT_OPENING
from workflows.shot_clock import DEEMED_APPROVAL_RISK, ShotClockWorkflow

RF = NoticeItem("A", "RF emissions compliance report", "CMC 17.44.070(A)")
PHOTOS = NoticeItem("B", "Photo simulations", "CMC 17.44.070(C)")
EIGHT_AM = datetime.min.time().replace(hour=8)


@dataclass
class Harness:
    env: WorkflowEnvironment
    settings: Settings
    task_queue: str

    @property
    def outbox(self) -> Path:
        return self.settings.outbox_dir

    def sent(self, app_id: str) -> list[str]:
        prefix = f"{app_id}:"
        return [k[len(prefix) :] for k in notice_keys(self.outbox) if k.startswith(prefix)]

    async def open(self, app: Any, submitted: date | None = None) -> WorkflowHandle[Any, Any]:
        with self.env.with_time_skipping_disabled():
            handle = await open_clock(self.env.client, self.task_queue, app, submitted or today())
        await wait_for(lambda: self.row(app.application_id) is not None, "the first record")
        return handle

    def row(self, app_id: str) -> Application | None:
        with session_factory(make_engine(self.settings.database_url))() as session:
            return session.get(Application, app_id)

    def count(self, model: Any, app_id: str) -> int:
        with session_factory(make_engine(self.settings.database_url))() as session:
            return session.scalar(
                select(func.count()).select_from(model).where(model.application_id == app_id)
            )

    async def forward_to(self, handle: WorkflowHandle[Any, Any], instant: datetime) -> None:
        """Move the workflow's virtual clock to `instant`."""
        now = await self.env.get_current_time(handle)
        assert instant > now, f"cannot go back from {now} to {instant}"
        await self.env.fast_forward(handle, instant - now)


def today() -> date:
    return datetime.now().astimezone().date()


async def wait_for(check: Callable[[], Any], what: str, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def opening_markers(
    handle: WorkflowHandle[Any, Any], timeout: float = 60.0
) -> list[tuple[str, str]]:
    """The markers a clock recorded before it armed its first timer (its opening done), as
    (marker name, the local activity's type or the patch's id). Waits for that timer: the
    rows a local activity writes can be seen before the task recording its marker ends."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        history = await handle.fetch_history()
        markers: list[tuple[str, str]] = []
        for event in history.events:
            if event.HasField("timer_started_event_attributes"):
                return markers
            if event.HasField("marker_recorded_event_attributes"):
                marker = event.marker_recorded_event_attributes
                markers.append((marker.marker_name, _marker_subject(marker)))
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the clock never went to sleep; markers so far: {markers}")
        await asyncio.sleep(0.05)


def _marker_subject(marker: Any) -> str:
    """A local activity marker's activity type, a patch marker's patch id ('' otherwise)."""
    for key, field in (("data", "activity_type"), ("patch-data", "id")):
        payloads = marker.details[key].payloads if key in marker.details else []
        if payloads:
            return str(json.loads(payloads[0].data).get(field, ""))
    return ""


async def summary(handle: WorkflowHandle[Any, Any]) -> ClockSummary:
    return await handle.query(ShotClockWorkflow.summary)


async def query_when_ready(handle: WorkflowHandle[Any, Any], query: Any) -> Any:
    for _ in polls():
        try:
            return await handle.query(query)
        except RPCError as err:
            if err.status != RPCStatusCode.FAILED_PRECONDITION:
                raise
            await asyncio.sleep(0.1)
    return await handle.query(query)


def at_8am(day: str | date) -> datetime:
    return local_instant(date.fromisoformat(str(day)), EIGHT_AM, "UTC")


@pytest_asyncio.fixture
async def harness(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> AsyncIterator[Harness]:
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(time_skipping_env.client, settings, executor=activity_executor):
        yield Harness(time_skipping_env, settings, task_queue)


async def test_reminders_fire_at_their_instants_and_only_once(harness: Harness) -> None:
    app = application("macro_collocation", reminder_offsets=[14, 7], window_alert_offsets=[1])
    handle = await harness.open(app)
    clock = await handle.query(ShotClockWorkflow.clock)
    deadline = clock["conservative_date"]
    window = clock["notice_windows"][0]
    assert window["kind"] == "first_notice" and window["state"] == "open"

    # The window alert: 08:00 the day before the first-notice window closes.
    window_alert = at_8am(date.fromisoformat(window["closes"]) - timedelta(days=1))
    await harness.forward_to(handle, window_alert - timedelta(minutes=5))
    await asyncio.sleep(0.5)
    assert harness.sent(app.application_id) == []
    await harness.forward_to(handle, window_alert + timedelta(minutes=5))
    key = f"window:first_notice:{window['closes']}:1d"
    await wait_for(lambda: key in harness.sent(app.application_id), "the window alert")

    fourteen = at_8am(date.fromisoformat(deadline) - timedelta(days=14))
    await harness.forward_to(handle, fourteen - timedelta(minutes=5))
    await asyncio.sleep(0.5)
    assert f"reminder:{deadline}:14d" not in harness.sent(app.application_id)
    await harness.forward_to(handle, fourteen + timedelta(hours=1))
    await wait_for(
        lambda: f"reminder:{deadline}:14d" in harness.sent(app.application_id),
        "the 14-day reminder",
    )
    seven = at_8am(date.fromisoformat(deadline) - timedelta(days=7))
    await harness.forward_to(handle, seven + timedelta(hours=1))
    await wait_for(
        lambda: f"reminder:{deadline}:7d" in harness.sent(app.application_id), "the 7-day reminder"
    )
    assert sorted(harness.sent(app.application_id)) == sorted(
        [key, f"reminder:{deadline}:14d", f"reminder:{deadline}:7d"]
    )
    # One row per notice, delivered once.
    assert harness.count(Notice, app.application_id) == 3


async def test_tolling_notice_moves_the_pending_reminders(harness: Harness) -> None:
    app = application("macro_collocation", reminder_offsets=[7], window_alert_offsets=[])
    start = today()
    handle = await harness.open(app, start)
    before = (await handle.query(ShotClockWorkflow.clock))["conservative_date"]

    await harness.forward_to(handle, at_8am(start + timedelta(days=10)))
    notice_day = (start + timedelta(days=10)).isoformat()
    result = await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice, IncompleteNoticeInput(notice_day, [RF, PHOTOS])
    )
    assert result.clock["status"] == "tolled"
    assert result.clock["shot_clock_date"] is None
    paused = await summary(handle)
    assert not [a for a in paused.upcoming_alerts if a["kind"] == "reminder"]
    await wait_for(
        lambda: any(k.startswith("incompleteness:") for k in harness.sent(app.application_id)),
        "the incompleteness letter",
    )

    await harness.forward_to(handle, at_8am(start + timedelta(days=24)))
    resubmitted = await handle.execute_update(
        ShotClockWorkflow.record_resubmission,
        ResubmissionInput((start + timedelta(days=24)).isoformat()),
    )
    after = resubmitted.clock["conservative_date"]
    assert resubmitted.clock["tolled_days"] == 14
    expected = compute_json(
        {
            "category": "macro_collocation",
            "state": "CA",
            "events": [
                {"type": "submitted", "date": start.isoformat()},
                {
                    "type": "incomplete_notice",
                    "date": notice_day,
                    "items": [
                        {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"},
                        {"id": "B", "text": "site plan", "rule": "CMC 17.44.070(B)"},
                    ],
                },
                {"type": "resubmitted", "date": (start + timedelta(days=24)).isoformat()},
            ],
        }
    )["conservative_date"]
    assert after == expected and after > before
    moved = await summary(handle)
    assert [a["key"] for a in moved.upcoming_alerts if a["kind"] == "reminder"] == [
        f"reminder:{after}:7d"
    ]
    await harness.forward_to(
        handle, at_8am(date.fromisoformat(after) - timedelta(days=7)) + timedelta(hours=1)
    )
    await wait_for(
        lambda: f"reminder:{after}:7d" in harness.sent(app.application_id), "the moved reminder"
    )
    assert f"reminder:{before}:7d" not in harness.sent(app.application_id)


async def test_small_wireless_reset_restarts_the_clock(harness: Harness) -> None:
    app = application("swf_collocation", reminder_offsets=[3], window_alert_offsets=[1])
    start = today()
    handle = await harness.open(app, start)
    clock = await handle.query(ShotClockWorkflow.clock)
    assert clock["notice_windows"][0]["kind"] == "reset_notice"

    await harness.forward_to(handle, at_8am(start + timedelta(days=8)))
    noticed = await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice,
        IncompleteNoticeInput((start + timedelta(days=8)).isoformat(), [RF]),
    )
    assert noticed.clock["status"] == "reset_pending"
    await harness.forward_to(handle, at_8am(start + timedelta(days=30)))
    resub_day = start + timedelta(days=30)
    reset = await handle.execute_update(
        ShotClockWorkflow.record_resubmission, ResubmissionInput(resub_day.isoformat())
    )
    assert reset.clock["reset_on"] == resub_day.isoformat()
    assert reset.clock["start_date"] == start.isoformat()
    # 60 days from the complete resubmission, rolled to a business day.
    counted = resub_day + timedelta(days=60)
    assert reset.clock["shot_clock_date"] >= counted.isoformat()
    assert reset.clock["shot_clock_date"] <= (counted + timedelta(days=4)).isoformat()
    # A later notice window opens after the resubmission and gets its alert.
    later = [w for w in reset.clock["notice_windows"] if w["kind"] == "later_notice"][0]
    assert later["closes"] == (resub_day + timedelta(days=10)).isoformat()
    await harness.forward_to(handle, at_8am(later["closes"]) + timedelta(hours=1))
    await wait_for(
        lambda: f"window:later_notice:{later['closes']}:1d" in harness.sent(app.application_id),
        "the later-notice window alert",
    )


async def test_expiry_escalates_and_flags_deemed_approval_risk(harness: Harness) -> None:
    app = application(
        "macro_collocation", state=None, reminder_offsets=[1], window_alert_offsets=[]
    )
    handle = await harness.open(app)
    deadline = (await handle.query(ShotClockWorkflow.clock))["conservative_date"]
    runs_out = local_instant(
        date.fromisoformat(deadline) + timedelta(days=1), datetime.min.time(), "UTC"
    )

    await harness.forward_to(handle, runs_out - timedelta(minutes=10))
    await wait_for(
        lambda: f"reminder:{deadline}:1d" in harness.sent(app.application_id), "reminder"
    )
    assert f"expiry:{deadline}" not in harness.sent(app.application_id)
    await harness.forward_to(handle, runs_out + timedelta(minutes=10))
    await wait_for(
        lambda: f"expiry:{deadline}" in harness.sent(app.application_id), "the escalation"
    )
    escalation = [
        m for m in _messages(harness) if m["X-Clearance-Notice-Key"].endswith(f"expiry:{deadline}")
    ][0]
    assert "supervisor@city.test" in escalation["To"] and "attorney@city.test" in escalation["To"]
    assert "planner@city.test" in escalation["Cc"]

    await wait_for(lambda: harness.row(app.application_id).risk_flagged, "the risk flag in the DB")
    clock = await handle.query(ShotClockWorkflow.clock)
    assert clock["status"] == "expired"
    assert any("presumptively unreasonable" in w for w in clock["warnings"])

    async def flagged() -> bool:
        desc = await handle.describe()
        return desc.typed_search_attributes.get(DEEMED_APPROVAL_RISK) is True

    for _ in polls():
        if await flagged():
            break
        await asyncio.sleep(0.05)
    assert await flagged()

    # An operator lists at-risk clocks in the Temporal UI with this very query.
    query = f"DeemedApprovalRisk = true AND ClockStatus = 'expired' AND WorkflowId = '{handle.id}'"

    async def listed() -> list[str]:
        return [w.id async for w in harness.env.client.list_workflows(query)]

    for _ in range(100):
        if await listed():
            break
        await asyncio.sleep(0.1)
    assert await listed() == [handle.id]


async def test_deemed_approved_starts_the_judicial_review_countdown(harness: Harness) -> None:
    app = application("macro_collocation", state="CA", reminder_offsets=[], window_alert_offsets=[])
    app.judicial_review_offsets = [7, 0]
    start = today()
    handle = await harness.open(app, start)
    deadline = date.fromisoformat((await handle.query(ShotClockWorkflow.clock))["shot_clock_date"])

    notice_day = deadline + timedelta(days=3)
    await harness.forward_to(handle, at_8am(notice_day))
    await handle.execute_update(
        ShotClockWorkflow.record_applicant_notice,
        ApplicantNoticeInput(notice_day.isoformat(), "applicant_public_notice"),
    )
    result = await handle.execute_update(
        ShotClockWorkflow.record_applicant_notice,
        ApplicantNoticeInput(notice_day.isoformat(), "deemed_approved_notice"),
    )
    review_by = notice_day + timedelta(days=30)
    assert result.clock["status"] == "deemed_approved"
    assert result.clock["judicial_review_deadline"] == review_by.isoformat()
    await wait_for(
        lambda: "status:deemed_approved" in harness.sent(app.application_id),
        "the deemed-approved notice to the attorney",
    )
    await harness.forward_to(handle, at_8am(review_by) + timedelta(hours=1))
    for offset in ("7d", "0d"):
        key = f"judicial-review:{review_by}:{offset}"
        await wait_for(lambda key=key: key in harness.sent(app.application_id), key)
    # Nothing is left to watch: the workflow completes with the final clock.
    final = await asyncio.wait_for(handle.result(), timeout=60)
    assert final["status"] == "deemed_approved"


@pytest.mark.parametrize(
    ("update", "payload", "reason"),
    [
        (
            "record_incomplete_notice",
            lambda d: IncompleteNoticeInput(d, [NoticeItem("A", "RF report", "")]),
            "cites no rule",
        ),
        ("record_resubmission", lambda d: ResubmissionInput(d), "no outstanding notice"),
        (
            "record_applicant_notice",
            lambda d: ApplicantNoticeInput(d, "deemed_granted_notice"),
            "only to eligible facilities requests",
        ),
        ("record_decision", lambda d: DecisionInput(d, "maybe"), "outcome"),
        (
            "record_tolling_agreement",
            lambda d: TollingAgreementInput(d),
            "either 'days' or 'new_date'",
        ),
        (
            "record_decision",
            lambda d: DecisionInput(
                (date.fromisoformat(d) + timedelta(days=3)).isoformat(), "approved"
            ),
            "in the future",
        ),
    ],
)
async def test_invalid_updates_are_refused_before_anything_is_recorded(
    harness: Harness, update: str, payload: Callable[[str], Any], reason: str
) -> None:
    app = application("macro_collocation")
    handle = await harness.open(app)
    await wait_for(lambda: harness.count(ClockEventRow, app.application_id) == 1, "submission row")
    before = await summary(handle)
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(update, payload(today().isoformat()))
    assert reason in str(refused.value.cause)
    after = await summary(handle)
    assert len(after.events) == len(before.events) == 1
    assert harness.count(ClockEventRow, app.application_id) == 1


async def test_later_notice_with_a_new_item_is_refused(harness: Harness) -> None:
    app = application("macro_collocation", reminder_offsets=[], window_alert_offsets=[])
    start = today()
    handle = await harness.open(app, start)
    await harness.forward_to(handle, at_8am(start + timedelta(days=5)))
    day5 = (start + timedelta(days=5)).isoformat()
    await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice, IncompleteNoticeInput(day5, [RF])
    )
    await handle.execute_update(ShotClockWorkflow.record_resubmission, ResubmissionInput(day5))
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(
            ShotClockWorkflow.record_incomplete_notice, IncompleteNoticeInput(day5, [RF, PHOTOS])
        )
    assert "were not in the first notice" in str(refused.value.cause)
    assert "1.6003(d)(3)" in str(refused.value.cause)
    # The same items again are fine: the later notice tolls.
    ok = await handle.execute_update(
        ShotClockWorkflow.record_incomplete_notice, IncompleteNoticeInput(day5, [RF])
    )
    assert ok.clock["status"] == "tolled"


async def test_query_returns_the_compute_contract(harness: Harness) -> None:
    app = application("eligible_facilities_request", state="CA")
    start = today()
    handle = await harness.open(app, start)
    clock = await handle.query(ShotClockWorkflow.clock)
    assert clock == compute_json(
        {
            "category": "eligible_facilities_request",
            "state": "CA",
            "events": [{"type": "submitted", "date": start.isoformat()}],
            "as_of": today().isoformat(),
        }
    )


@pytest_asyncio.fixture
async def early_continue_as_new_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_time_skipping_server(40)
    yield env
    await env.shutdown()


async def test_continue_as_new_keeps_timeline_and_sent_notices(
    early_continue_as_new_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = early_continue_as_new_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(env.client, settings, executor=activity_executor):
        h = Harness(env, settings, task_queue)
        app = application(
            "macro_collocation", reminder_offsets=[30, 14, 7], window_alert_offsets=[3, 1]
        )
        start = today()
        handle = await h.open(app, start)
        first_run = (await handle.describe()).run_id
        for day in (3, 4):
            when = (start + timedelta(days=day)).isoformat()
            await h.forward_to(handle, at_8am(when) + timedelta(hours=2))
            await handle.execute_update(
                ShotClockWorkflow.record_incomplete_notice, IncompleteNoticeInput(when, [RF])
            )
            await handle.execute_update(
                ShotClockWorkflow.record_resubmission, ResubmissionInput(when)
            )
        # Just after continue-as-new the new run may not have its first task yet.
        deadline = (await query_when_ready(handle, ShotClockWorkflow.clock))["conservative_date"]
        await h.forward_to(
            handle, at_8am(date.fromisoformat(deadline) - timedelta(days=7)) + timedelta(hours=1)
        )
        await wait_for(
            lambda: f"reminder:{deadline}:7d" in h.sent(app.application_id), "7d reminder"
        )

        async def continued() -> bool:
            return (await handle.describe()).run_id != first_run

        for _ in polls():
            if await continued():
                break
            await asyncio.sleep(0.1)
        assert await continued(), "the workflow did not continue as new"
        after = await query_when_ready(handle, ShotClockWorkflow.summary)
        assert [e.type for e in after.events] == [
            "submitted",
            "incomplete_notice",
            "resubmitted",
            "incomplete_notice",
            "resubmitted",
        ]
        assert f"reminder:{deadline}:7d" in after.sent_alerts
        sent = h.sent(app.application_id)
        assert len(sent) == len(set(sent))
        assert h.count(ClockEventRow, app.application_id) == 5


def _messages(harness: Harness) -> list[Any]:
    from tests.workflows.clock_helpers import outbox_messages

    return outbox_messages(harness.outbox)


async def test_opening_records_the_clock_and_its_events_in_one_activity(harness: Harness) -> None:
    """A clock opened with its timeline so far (an imported application) writes the
    application row and every event in one local activity, so a replay of the clock (at
    every reminder once it is evicted) resolves one activity for its opening, not four."""
    app = application("macro_collocation")
    start = today() - timedelta(days=20)
    events = [
        ClockEvent("submitted", start.isoformat()),
        ClockEvent("incomplete_notice", (start + timedelta(days=5)).isoformat(), items=[RF]),
        ClockEvent("resubmitted", (start + timedelta(days=12)).isoformat()),
    ]
    with harness.env.with_time_skipping_disabled():
        handle = await harness.env.client.start_workflow(
            ShotClockWorkflow.run,
            ShotClockInput(application=app, events=events),
            id=shot_clock_workflow_id(app.application_id),
            task_queue=harness.task_queue,
        )
    await wait_for(lambda: harness.count(ClockEventRow, app.application_id) == 3, "the events")
    assert harness.row(app.application_id) is not None

    # The opening's records: the markers up to the clock's first sleep, however many
    # workflow tasks (and history events) a loaded machine took to get there.
    markers = await opening_markers(handle)
    local_activities = [what for name, what in markers if name == "core_local_activity"]
    assert local_activities == [RECORD_APPLICATION], markers
    assert ("core_patch", ONE_RECORD_AT_OPENING) in markers, markers
