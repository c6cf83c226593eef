"""check_new_event: what the workflow's validator and the action layer refuse, in words a
planner reads; an accepted event comes back with its warnings."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules.permit_clocks import PermitClockError, PermitEventRefused, check_new_event

DECISION = {
    "rule": "ca_psa_decision",
    "events": [{"type": "ceqa", "date": "2026-06-01", "document": "exempt"}],
}
BUILDING = {
    "rule": "building_permit_expiry",
    "events": [{"type": "approved", "date": "2026-01-12"}],
}


def refused(request: dict[str, Any], event: dict[str, Any]) -> str:
    before = copy.deepcopy(request)
    with pytest.raises(PermitEventRefused) as err:
        check_new_event(request, event)
    assert request == before  # nothing stored, nothing changed
    message = str(err.value)
    assert "\n" not in message
    return message


def test_unknown_rule() -> None:
    with pytest.raises(PermitClockError, match=r"^rule: unknown rule 'ca_psa_dcision'"):
        check_new_event({"rule": "ca_psa_dcision"}, {"type": "ceqa", "date": "2026-06-01"})


def test_an_event_the_rule_does_not_take() -> None:
    message = refused(BUILDING, {"type": "ceqa", "date": "2026-02-01", "document": "exempt"})
    assert message.startswith("type: building_permit_expiry does not take the event 'ceqa'")
    assert "inspection" in message  # it lists what the rule takes


def test_an_extension_after_expiry() -> None:
    message = refused(BUILDING, {"type": "extension_granted", "date": "2026-07-20", "days": 90})
    assert message.startswith("refused: extension_granted on 2026-07-20: an extension after expiry")
    assert "2026-07-11" in message
    assert message.endswith("nothing was recorded")


def test_a_second_65957_extension() -> None:
    first = {"type": "extension_agreed", "date": "2026-07-15", "days": 90}
    request = {**DECISION, "events": [*DECISION["events"], first]}
    message = refused(request, {"type": "extension_agreed", "date": "2026-08-01", "days": 30})
    assert "only one extension is allowed" in message
    assert "Gov. Code 65957" in message


@pytest.mark.parametrize("days", [-5, 0])
def test_negative_or_zero_days(days: int) -> None:
    message = refused(DECISION, {"type": "extension_agreed", "date": "2026-07-15", "days": days})
    assert message.startswith("days: must be a positive whole number")


def test_more_days_than_the_statute_allows() -> None:
    message = refused(DECISION, {"type": "extension_agreed", "date": "2026-07-15", "days": 120})
    assert "120 exceeds the 90 days" in message


def test_a_second_start_event_points_to_the_right_one() -> None:
    request = {
        "rule": "ca_psa_completeness",
        "events": [{"type": "received", "date": "2026-03-02"}],
    }
    message = refused(request, {"type": "received", "date": "2026-03-20"})
    assert "already started on 2026-03-02" in message
    assert "resubmitted" in message


def test_an_event_after_today_is_refused() -> None:
    message = refused(
        {**BUILDING, "as_of": "2026-03-01"},
        {"type": "inspection", "date": "2026-03-02", "result": "approved", "qualifying": True},
    )
    assert message.startswith("date: 2026-03-02 is after as_of 2026-03-01")


def test_a_resume_without_a_pause() -> None:
    request = {
        "rule": "ca_post_entitlement_review",
        "facts": {"units": 10},
        "events": [{"type": "complete", "date": "2026-11-20"}],
    }
    assert "not paused" in refused(request, {"type": "resumed", "date": "2026-11-25"})


def test_an_accepted_event_returns_its_warnings() -> None:
    request = {
        "rule": "ca_psa_completeness",
        "events": [{"type": "received", "date": "2026-03-02"}],
    }
    warnings = check_new_event(
        request, {"type": "incomplete_notice", "date": "2026-03-10", "items": ["site plan"]}
    )
    assert any("cite no checklist rule" in w for w in warnings)
    assert check_new_event(BUILDING, {"type": "exercised", "date": "2026-06-01"}) == []


def test_a_chained_clock_refuses_its_event_before_it_starts() -> None:
    request = {
        "rule": "ca_psa_completeness",
        "facts": {"housing": True, "units": 12},
        "events": [{"type": "received", "date": "2026-03-02"}],
    }
    message = refused(request, {"type": "inconsistency_notice", "date": "2026-03-10"})
    assert "before the clock started" in message
