"""ShotClockWorkflow under revision 2 (shot-clocks.md 8.1, 8.2, 8.3, 8.9), end to end on
the real dev server with time skipping: a deemed-approved notice effective only under the
earliest reading reaches the attorney and the planner at once and starts the judicial
review countdown; a decision late under the federal reading raises the risk flag; a
frozen clock keeps its calendar until an audited rebase."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

import pytest
from temporalio.client import WorkflowUpdateFailedError

from models.shot_clock import ApplicantNoticeInput, DecisionInput, RebaseInput
from rules.kernel.calendars import jurisdiction_layers
from rules.kernel.jurisdictions import jurisdiction
from rules.shot_clock.packs import rule_pack
from tests.workflows.clock_helpers import application
from tests.workflows.test_shot_clock_workflow import (
    Harness,
    _messages,
    at_8am,
    today,
    wait_for,
)
from workflows.shot_clock import CLOCK_STATUS, DEEMED_APPROVAL_RISK, ShotClockWorkflow


def cotati_new_structure(**kwargs: Any) -> Any:
    """Cotati's pack: 150 days for a new small-wireless structure; 47 CFR 1.6003: 90."""
    app = application(
        "swf_new_structure",
        state="CA",
        rule_pack="cotati-2024",
        reminder_offsets=[],
        window_alert_offsets=[],
        frozen=True,
        **kwargs,
    )
    app.judicial_review_offsets = [7, 0]
    return app


async def search_attributes(handle: Any) -> Any:
    return (await handle.describe()).typed_search_attributes


async def test_deemed_approved_under_the_earliest_reading_starts_the_countdown(
    harness: Harness,
) -> None:
    app = cotati_new_structure()
    handle = await harness.open(app, today())
    clock = await handle.query(ShotClockWorkflow.clock)
    federal = date.fromisoformat(clock["conservative_date"])
    literal = date.fromisoformat(clock["shot_clock_date"])
    assert (literal - federal).days >= 55  # 150 against 90 days

    # Three days after the federal date, before the Cotati date, the applicant gives
    # public notice and notifies the city that the time has lapsed.
    notice_day = federal + timedelta(days=3)
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
    assert result.clock["status"] == "running"  # the literal reading keeps its answer
    assert result.clock["conservative_status"] == "deemed_approved"
    assert result.clock["judicial_review_deadline"] == review_by.isoformat()
    assert any(e["event"] == "deemed_approved_earliest_reading" for e in result.clock["ledger"]), (
        "the ledger records it"
    )

    # At once: the attorney and the planner are told the notice may be effective.
    key = f"status:conservative:deemed_approved:{review_by}"
    await wait_for(lambda: key in harness.sent(app.application_id), "the act-now notice")
    (message,) = [m for m in _messages(harness) if m["X-Clearance-Notice-Key"].endswith(key)]
    assert "attorney@city.test" in message["To"] and "planner@city.test" in message["To"]
    assert "Act now" in message["Subject"]
    body = message.get_payload(0).get_payload(decode=True).decode()
    assert review_by.isoformat() in body
    assert "federal default rule pack" in body

    # The read model, the risk flag and the search attributes follow the earliest reading.
    await wait_for(
        lambda: harness.row(app.application_id).conservative_status == "deemed_approved",
        "the conservative status in the read model",
    )
    assert harness.row(app.application_id).risk_flagged
    attrs = await search_attributes(handle)
    assert attrs.get(CLOCK_STATUS) == "deemed_approved"
    assert attrs.get(DEEMED_APPROVAL_RISK) is True

    # The 30-day countdown reaches the attorney with its reminders.
    await harness.forward_to(handle, at_8am(review_by) + timedelta(hours=1))
    for offset in ("7d", "0d"):
        reminder = f"judicial-review:{review_by}:{offset}"
        await wait_for(lambda k=reminder: k in harness.sent(app.application_id), reminder)
    reminder_mail = [
        m
        for m in _messages(harness)
        if m["X-Clearance-Notice-Key"].endswith(f"judicial-review:{review_by}:0d")
    ][0]
    assert "attorney@city.test" in reminder_mail["To"]
    assert "may be deemed approved" in reminder_mail["Subject"]


async def test_a_decision_after_the_federal_date_is_late_and_flags_risk(
    harness: Harness,
) -> None:
    app = cotati_new_structure()
    handle = await harness.open(app, today())
    clock = await handle.query(ShotClockWorkflow.clock)
    federal = date.fromisoformat(clock["conservative_date"])
    decided = federal + timedelta(days=5)
    await harness.forward_to(handle, at_8am(decided))
    result = await handle.execute_update(
        ShotClockWorkflow.record_decision, DecisionInput(decided.isoformat(), "approved")
    )
    assert result.clock["status"] == "decided_on_time"
    assert result.clock["conservative_status"] == "decided_late"
    final = await asyncio.wait_for(handle.result(), timeout=60)
    assert final["conservative_status"] == "decided_late"
    await wait_for(
        lambda: harness.row(app.application_id).conservative_status == "decided_late",
        "decided_late in the read model",
    )
    row = harness.row(app.application_id)
    assert row.status == "decided_on_time" and row.risk_flagged
    attrs = await search_attributes(handle)
    assert attrs.get(CLOCK_STATUS) == "decided_late"
    assert attrs.get(DEEMED_APPROVAL_RISK) is True
    # The escalation went out on the federal date, not on Cotati's.
    assert f"expiry:{federal}" in harness.sent(app.application_id)


def _last_adopted_day_after_thanksgiving() -> date:
    """The most recent day after Thanksgiving that is at least 60 days after a date in
    the past (so a 60-day clock submitted then ends on it)."""
    layer = jurisdiction("cotati").adopted_holidays
    assert layer is not None
    year = today().year
    while True:
        for day, names in layer.dates_in(year).items():
            if "Day after Thanksgiving" in names and day <= today():
                return day
        year -= 1


async def test_a_frozen_clock_keeps_its_calendar_until_an_audited_rebase(
    harness: Harness,
) -> None:
    # Frozen with California's layers only: the day after Thanksgiving is no holiday.
    app = application("swf_collocation", state="CA", frozen=True, reminder_offsets=[])
    friday = _last_adopted_day_after_thanksgiving()
    handle = await harness.open(app, friday - timedelta(days=60))
    before = await handle.query(ShotClockWorkflow.clock)
    assert before["shot_clock_date"] == friday.isoformat()

    layers = jurisdiction("cotati").calendar_layers().to_dict()
    pack = dict(rule_pack("federal").data)
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(
            ShotClockWorkflow.rebase, RebaseInput(" ", "admin@city.test", layers, pack)
        )
    assert "reason" in str(refused.value.cause)

    result = await handle.execute_update(
        ShotClockWorkflow.rebase,
        RebaseInput("Cotati adopted the day after Thanksgiving", "admin@city.test", layers, pack),
    )
    assert result.event_id == "rebase-1"
    monday = friday + timedelta(days=3)
    assert result.clock["shot_clock_date"] == monday.isoformat()
    (line,) = [e for e in result.clock["ledger"] if e["event"] == "rebase"]
    assert "admin@city.test" in line["effect"]
    assert "Cotati adopted the day after Thanksgiving" in line["effect"]
    assert f"cotati_adopted: {friday} Day after Thanksgiving added" in line["effect"]
    assert f"shot_clock_date {friday} -> {monday}" in line["effect"]
    summary = await handle.query(ShotClockWorkflow.summary)
    assert summary.application.calendar.layers == layers


async def test_a_clock_opened_without_frozen_data_counts_on_the_current_files(
    harness: Harness,
) -> None:
    # Clocks opened before freezing existed keep today's behaviour (and their histories
    # replay): the current layers of their state.
    app = application("swf_collocation", state="CA", reminder_offsets=[])
    handle = await harness.open(app, today())
    clock = await handle.query(ShotClockWorkflow.clock)
    assert clock["rules"]["calendar"] == jurisdiction_layers("CA").fingerprint


def test_rebasing_a_clock_opened_before_freezing_lists_what_moved() -> None:
    # Pure (no server): such a clock counted on the current files; the rebase freezes the
    # given data and its ledger line compares with what the clock counted on before.
    from datetime import UTC, datetime

    from models.shot_clock import CalendarSnapshot, ClockEvent, ShotClockInput
    from workflows.shot_clock_support import ClockState, rebase_input

    app = application("swf_collocation", state="CA")
    assert app.calendar.layers is None
    state = ClockState(ShotClockInput(app, [ClockEvent("submitted", "2026-09-28")]))
    now = datetime(2026, 12, 3, tzinfo=UTC)
    assert state.clock(now)["shot_clock_date"] == "2026-11-27"
    data = rebase_input(jurisdiction("cotati"), "adopted days entered", "admin@city.test")
    data.pack_data = dict(rule_pack("federal").data)
    state.check_rebase(data, now)
    record = state.rebase(data, now)
    assert "cotati_adopted: 2026-11-27 Day after Thanksgiving added" in record["effect"]
    assert "shot_clock_date 2026-11-27 -> 2026-11-30" in record["effect"]
    assert isinstance(app.calendar, CalendarSnapshot) and app.calendar.layers is not None
