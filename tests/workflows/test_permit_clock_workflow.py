"""PermitClockWorkflow end to end on the real dev server with per-workflow time skipping,
one lifecycle per rule family: reminders at their instants (business days for AB 2234),
an event moving the alerts, the lapse escalated once to the supervisor and the city
attorney, chained clocks, the sign permit following its building permit, refusals that
store nothing, and continue-as-new keeping the state."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import WorkflowUpdateFailedError

from models.permit_clock import PermitClockSummary, PermitEvent, PermitEventInput
from tests.polling import polls
from tests.workflows.clock_helpers import outbox_messages
from tests.workflows.permit_helpers import (
    PermitHarness,
    at_8am,
    days,
    permit_info,
    today,
    wait_for,
)
from workflows.permit_clock import PermitClockWorkflow
from workflows.permit_clock_support import PERMIT_RULE


def message(harness: PermitHarness, clock_id: str, key: str) -> Any:
    full = f"permit:{clock_id}:{key}"
    found = [m for m in outbox_messages(harness.outbox) if m["X-Clearance-Notice-Key"] == full]
    assert len(found) == 1, f"{full}: {len(found)} messages"
    return found[0]


async def test_building_permit_reminders_move_with_an_inspection_then_lapse_escalates(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    info = permit_info("building_permit_expiry", offsets=[14, 3])
    start = today()
    handle = await h.open(info, [PermitEvent("approved", start.isoformat())])
    clock = await handle.query(PermitClockWorkflow.clock)
    expiry = start + days(180)
    assert clock["conservative_date"] == expiry.isoformat()

    first = at_8am(expiry - days(14))
    await h.forward_to(handle, first - timedelta(minutes=5))
    await asyncio.sleep(0.3)
    assert h.sent(info.clock_id) == []
    await h.forward_to(handle, first + timedelta(minutes=5))
    key = f"building_permit_expiry:reminder:{expiry.isoformat()}:14"
    await wait_for(lambda: h.sent(info.clock_id) == [key], "the 14-day reminder")
    letter = message(h, info.clock_id, key)
    # The applicant is told, with how and by when to ask for an extension.
    assert letter["To"] == "owner@applicant.test"
    assert "planner@city.test" in letter["Cc"]
    text = letter.get_payload(0).get_payload(decode=True).decode()
    assert "How to ask for more time" in text
    assert "extension" in text and expiry.isoformat() in text

    # A qualifying inspection on that day restarts the 180 days: the alerts move.
    inspected = expiry - days(14)
    result = await handle.execute_update(
        PermitClockWorkflow.record_event,
        PermitEventInput(
            "inspection",
            inspected.isoformat(),
            {"result": "approved", "qualifying": True},
            recorded_by="inspector@city.test",
        ),
    )
    new_expiry = inspected + days(180)
    assert result.clock["due_date"] == new_expiry.isoformat()
    await wait_for(
        lambda: (
            (h.row(info.clock_id) or object()).__dict__.get("due_date") == new_expiry.isoformat()
        ),
        "the read model to show the new expiry",
    )
    assert h.event_count(info.clock_id) == 2

    # The old 3-day reminder never fires; the new 14-day one does.
    await h.forward_to(handle, at_8am(new_expiry - days(14)) + timedelta(minutes=5))
    new_key = f"building_permit_expiry:reminder:{new_expiry.isoformat()}:14"
    await wait_for(lambda: new_key in h.sent(info.clock_id), "the moved reminder")
    assert f"building_permit_expiry:reminder:{expiry.isoformat()}:3" not in h.sent(info.clock_id)

    # No final inspection: the permit expires and the lapse goes to supervisor and attorney.
    await h.forward_to(handle, at_8am(new_expiry + days(1)))
    lapse = f"building_permit_expiry:lapse:{new_expiry.isoformat()}"
    await wait_for(lambda: lapse in h.sent(info.clock_id), "the lapse escalation")
    escalation = message(h, info.clock_id, lapse)
    assert escalation["To"] == "supervisor@city.test, attorney@city.test"
    await wait_for(lambda: h.row(info.clock_id).escalated, "the escalated flag")
    row = h.row(info.clock_id)
    assert row.status == "lapsed" and row.consequence == "expired"
    final = await asyncio.wait_for(handle.result(), 20)
    assert final["status"] == "lapsed"
    sent = h.sent(info.clock_id)
    assert len(sent) == len(set(sent)) == 4


async def test_completeness_chains_the_haa_clock_and_its_lapse_escalates(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    info = permit_info("ca_psa_completeness", facts={"housing": True, "units": 24}, offsets=[7])
    start = today()
    handle = await h.open(info, [PermitEvent("received", start.isoformat())])
    clock = await handle.query(PermitClockWorkflow.clock)
    due = clock["conservative_date"]
    # An agency deadline: the alert goes to staff, not the applicant.
    await h.forward_to(handle, at_8am(due) - days(7) + timedelta(minutes=5))
    key = f"ca_psa_completeness:reminder:{due}:7"
    await wait_for(lambda: key in h.sent(info.clock_id), "the staff alert")
    assert message(h, info.clock_id, key)["To"] == "planner@city.test"

    complete = (await h.env.get_current_time(handle)).date().isoformat()
    result = await handle.execute_update(
        PermitClockWorkflow.record_event, PermitEventInput("complete", complete)
    )
    assert result.clock["status"] == "met"
    haa = result.clock["next"][0]
    assert haa["rule"] == "ca_haa_consistency" and haa["status"] == "running"
    desc = await handle.describe()
    assert desc.typed_search_attributes.get(PERMIT_RULE) == "ca_psa_completeness"

    await h.forward_to(handle, at_8am(haa["conservative_date"]) + days(1))
    lapse = f"ca_psa_completeness>ca_haa_consistency:lapse:{haa['conservative_date']}"
    await wait_for(lambda: lapse in h.sent(info.clock_id), "the HAA lapse escalation")
    body = message(h, info.clock_id, lapse).get_payload(0).get_payload(decode=True).decode()
    assert "deemed consistent" in body
    summary: PermitClockSummary = await handle.query(PermitClockWorkflow.summary)
    assert sorted(summary.sent_alerts) == sorted(h.sent(info.clock_id))


async def test_a_sign_permit_follows_its_companion_building_permit(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    start = today()
    building = permit_info("building_permit_expiry", offsets=[])
    bp = await h.open(building, [PermitEvent("approved", (start - days(170)).isoformat())])
    sign = permit_info("cotati_sign_permit_expiry", offsets=[], companion_id=building.clock_id)
    sp = await h.open(sign, [PermitEvent("approved", (start - days(360)).isoformat())])

    bp_expiry = (start + days(10)).isoformat()

    async def sign_due() -> str:
        return (await sp.query(PermitClockWorkflow.clock))["due_date"]

    for _ in polls():
        if await sign_due() == bp_expiry:
            break
        await asyncio.sleep(0.1)
    assert await sign_due() == bp_expiry

    await bp.execute_update(
        PermitClockWorkflow.record_event,
        PermitEventInput(
            "inspection", start.isoformat(), {"result": "approved", "qualifying": True}
        ),
    )
    moved = (start + days(180)).isoformat()
    for _ in range(100):
        if await sign_due() == moved:
            break
        await asyncio.sleep(0.1)
    assert await sign_due() == moved
    summary: PermitClockSummary = await bp.query(PermitClockWorkflow.summary)
    assert summary.followers == [sign.clock_id]


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (PermitEventInput("demolished", "2020-01-01"), "demolished"),
        (PermitEventInput("inspection", "2999-01-01"), "future"),
        (
            PermitEventInput("extension_granted", "2020-01-01", {"days": -5}),
            "positive whole number",
        ),
    ],
)
async def test_refused_events_store_nothing(
    permit_harness: PermitHarness, event: PermitEventInput, expected: str
) -> None:
    h = permit_harness
    info = permit_info("building_permit_expiry", offsets=[])
    # Issued a month ago: the clock is open (a permit that has already expired closes its
    # clock in its first workflow task, before any update could reach it).
    issued = (today() - timedelta(days=30)).isoformat()
    handle = await h.open(info, [PermitEvent("approved", issued)])
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(PermitClockWorkflow.record_event, event)
    assert expected in str(refused.value.cause).lower()
    summary: PermitClockSummary = await handle.query(PermitClockWorkflow.summary)
    assert [e.type for e in summary.events] == ["approved"]
    assert h.event_count(info.clock_id) == 1


async def test_an_extension_after_expiry_is_refused_with_the_reason(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    info = permit_info("building_permit_expiry", offsets=[])
    # Issued a month ago: the clock is open (a permit that has already expired closes its
    # clock in its first workflow task, before any update could reach it).
    issued = (today() - timedelta(days=30)).isoformat()
    handle = await h.open(info, [PermitEvent("approved", issued)])
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(
            PermitClockWorkflow.record_event,
            PermitEventInput("extension_granted", "2020-06-01", {"days": 180}),
        )
    assert "nothing was recorded" in str(refused.value.cause)
    assert h.event_count(info.clock_id) == 1
