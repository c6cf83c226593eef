"""A map clock opened before revision 3 of the permit rules: its saved history (recorded
with the code before the change, histories/permit/map_clock_opened_before_revision3.json)
replays with today's code, it keeps the rules it was opened under (no 120-day floor after
its moratorium, no statutory_extension event) until an administrator rebases it, and the
rebase is audited in the ledger and the read model."""

from __future__ import annotations

import base64
import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowHistory, WorkflowUpdateFailedError
from temporalio.converter import DataConverter
from temporalio.worker import Replayer

from models.permit_clock import PermitClockInput, PermitEvent, PermitEventInput, PermitRebaseInput
from rules.kernel.counting import add_months
from rules.permit_clocks import PERMIT_RULES
from tests.workflows.permit_helpers import PermitHarness, permit_info, today, wait_for
from worker import WORKFLOW_RUNNER
from workflows.permit_clock import PermitClockWorkflow
from workflows.permit_clock_support import PermitClockState

HISTORY = Path(__file__).parent / "histories" / "permit" / "map_clock_opened_before_revision3.json"
OLD = "california@2026.12.1"
CURRENT = PERMIT_RULES["ca_tentative_map_expiry"].rule_version


def _decode(payload: dict[str, Any]) -> Any:
    """A JSON payload's value (None for a null payload, which carries no data)."""
    return json.loads(base64.b64decode(payload["data"])) if "data" in payload else None


def _saved() -> tuple[PermitClockInput, list[PermitEvent], str]:
    """The clock's input, the events recorded by update, and the due date the old code
    last wrote to the search attribute PermitDueDate."""
    raw = json.loads(HISTORY.read_text())
    started = raw["events"][0]["workflowExecutionStartedEventAttributes"]["input"]["payloads"]
    (start,) = DataConverter.default.payload_converter.from_payloads(
        [DataConverter.default.payload_converter.to_payloads([_decode(started[0])])[0]],
        [PermitClockInput],
    )
    events = list(start.events)
    due = ""
    for event in raw["events"]:
        accepted = event.get("workflowExecutionUpdateAcceptedEventAttributes")
        if accepted:
            args = accepted["acceptedRequest"]["input"]["args"]["payloads"]
            body = _decode(args[0])
            events.append(PermitEvent(body["type"], body["date"], body.get("fields") or {}))
        upsert = event.get("upsertWorkflowSearchAttributesEventAttributes")
        if upsert:
            fields = upsert["searchAttributes"]["indexedFields"]
            value = _decode(fields.get("PermitDueDate", {}))
            if value:
                due = str(value)[:10]
    return start, events, due


async def test_the_saved_map_clock_replays_with_todays_code() -> None:
    replayer = Replayer(workflows=[PermitClockWorkflow], workflow_runner=WORKFLOW_RUNNER)
    await replayer.replay_workflow(WorkflowHistory.from_json(HISTORY.stem, HISTORY.read_text()))


def test_the_saved_clock_keeps_its_frozen_rules_until_rebased() -> None:
    start, events, recorded_due = _saved()
    assert start.info.calendar.rule_version == OLD
    resumed = date.fromisoformat(next(e.date for e in events if e.type == "resumed"))
    state = PermitClockState(PermitClockInput(start.info, events))
    now = datetime.combine(resumed + timedelta(days=1), datetime.min.time()).astimezone()
    # The old rules: the 40 days left when the moratorium began run after it ends.
    clock = state.clock(now)
    assert clock["rule_version"] == OLD
    assert clock["due_date"] == recorded_due == (resumed + timedelta(days=40)).isoformat()
    assert any("frozen when the clock opened" in w for w in clock["warnings"])
    with pytest.raises(ValueError, match="reason"):
        state.check_rebase(PermitRebaseInput(CURRENT, "admin@city.test", " "))
    with pytest.raises(ValueError, match="not the current version"):
        state.check_rebase(PermitRebaseInput(OLD, "admin@city.test", "revision 3"))
    record = state.rebase(
        PermitRebaseInput(CURRENT, "admin@city.test", "Gov. Code 66452.6(b)(3) floor"), now
    )
    after = state.clock(now)
    # Gov. Code 66452.6(b)(3): at least 120 days after the moratorium ends.
    assert after["due_date"] == (resumed + timedelta(days=120)).isoformat()
    assert after["rule_version"] == CURRENT
    assert "admin@city.test" in record["effect"] and recorded_due in record["effect"]
    line = next(li for li in after["ledger"] if li["event"] == "rebase")
    assert OLD in line["rule"] and CURRENT in line["rule"]
    with pytest.raises(ValueError, match="already counts on"):
        state.check_rebase(PermitRebaseInput(CURRENT, "admin@city.test", "again"))


async def test_a_running_clock_opened_before_the_change_until_an_audited_rebase(
    permit_harness: PermitHarness,
) -> None:
    h = permit_harness
    info = permit_info("ca_tentative_map_expiry", facts={"ordinance_months": 12})
    info.calendar.rule_version = OLD  # opened before revision 3
    start = today()
    # Expires in 30 days; a moratorium from 10 days ago to today leaves 40 days.
    approved = add_months(start, -36) + timedelta(days=30)
    paused = start - timedelta(days=10)
    handle = await h.open(
        info,
        [
            PermitEvent("approved", approved.isoformat()),
            PermitEvent("paused", paused.isoformat(), {"reason": "moratorium"}),
            PermitEvent("resumed", start.isoformat()),
        ],
    )
    clock = await handle.query(PermitClockWorkflow.clock)
    assert clock["due_date"] == (start + timedelta(days=40)).isoformat()
    # The frozen rules take no statutory_extension: refused, nothing stored.
    statute = PermitEventInput(
        "statutory_extension", start.isoformat(), {"months": 12, "citation": "Gov. Code 66452.25"}
    )
    with pytest.raises(WorkflowUpdateFailedError):
        await handle.execute_update(PermitClockWorkflow.record_event, statute)
    assert h.event_count(info.clock_id) == 3

    result = await handle.execute_update(
        PermitClockWorkflow.rebase,
        PermitRebaseInput(CURRENT, "admin@city.test", "apply revision 3 of the map rules"),
    )
    floor = start + timedelta(days=120)
    assert result.clock["due_date"] == floor.isoformat()
    await wait_for(
        lambda: getattr(h.row(info.clock_id), "rule_version", "") == CURRENT,
        "the read model to show the new rule version",
    )
    assert any(li["event"] == "rebase" for li in result.clock["ledger"])
    # Now the current rules take it, outside the cap.
    done = await handle.execute_update(PermitClockWorkflow.record_event, statute)
    assert done.clock["due_date"] == add_months(floor, 12).isoformat()
    assert done.clock["extensions"]["months_left"] == 72
    with pytest.raises(WorkflowUpdateFailedError):
        await handle.execute_update(
            PermitClockWorkflow.rebase, PermitRebaseInput(CURRENT, "admin@city.test", "again")
        )
