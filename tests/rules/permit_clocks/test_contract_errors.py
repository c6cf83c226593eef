"""Invalid permit-clock input: a PermitClockError (a TimelineError, so `clock compute`
exits 2) whose one-line message starts with the bad field."""

from __future__ import annotations

from typing import Any

import pytest

from rules.kernel.input import TimelineError
from rules.permit_clocks import PermitClockError, compute_permit_clock


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        ({"rule": "ca_psa_dcision"}, "rule", "unknown rule"),
        ({"rule": "ca_psa_decision", "colour": 1}, "colour", "unknown field"),
        (
            {"rule": "ca_psa_decision", "jurisdiction": "atlantis"},
            "jurisdiction",
            "unknown jurisdiction",
        ),
        (
            {"rule": "cotati_ltp_term", "jurisdiction": "federal"},
            "rule",
            "'cotati' pack",
        ),
        ({"rule": "ca_haa_consistency", "events": []}, "facts.units", "missing"),
        ({"rule": "ca_haa_consistency", "facts": {"units": -2}}, "facts.units", "outside"),
        (
            {"rule": "ca_tentative_map_expiry", "facts": {"ordinance_months": 13}},
            "facts.ordinance_months",
            "outside 0..12",
        ),
        ({"rule": "ca_psa_decision", "facts": {"unit": 3}}, "facts.unit", "no fact"),
        (
            {
                "rule": "ca_psa_decision",
                "events": [{"type": "ceqa", "date": "2026-02-30", "document": "eir"}],
            },
            "events[0].date",
            "not a valid calendar date",
        ),
        (
            {
                "rule": "ca_psa_decision",
                "events": [{"type": "ceqa", "date": "3026-02-01", "document": "eir"}],
            },
            "events[0].date",
            "out of range",
        ),
        (
            {"rule": "ca_psa_decision", "events": [{"type": "ceqa", "date": "2026-02-01"}]},
            "events[0].document",
            "missing",
        ),
        (
            {
                "rule": "ca_psa_decision",
                "events": [{"type": "extension_agreed", "date": "2026-02-01", "days": -5}],
            },
            "events[0].days",
            "positive whole number",
        ),
        (
            {
                "rule": "ca_psa_decision",
                "events": [{"type": "extension_agreed", "date": "2026-02-01", "days": 2.5}],
            },
            "events[0].days",
            "whole number",
        ),
        (
            {
                "rule": "building_permit_expiry",
                "events": [{"type": "ceqa", "date": "2026-02-01", "document": "eir"}],
            },
            "events[0].type",
            "does not take the event 'ceqa'",
        ),
        (
            {
                "rule": "building_permit_expiry",
                "events": [{"type": "inspection", "date": "2026-02-01", "result": "ok"}],
            },
            "events[0].result",
            "is not one of",
        ),
        (
            {
                "rule": "building_permit_expiry",
                "events": [{"type": "approved", "date": "2026-02-01"}],
                "as_of": "2026-01-01",
            },
            "events[0].date",
            "after as_of",
        ),
        (
            {"rule": "ca_psa_decision", "calendar": {"closures": ["soon"]}},
            "calendar.closures[0]",
            "YYYY-MM-DD",
        ),
        ({"rule": "ca_psa_decision", "events": {"type": "ceqa"}}, "events", "list"),
        ([1, 2], "input", "JSON object"),
    ],
)
def test_invalid_input_names_the_field(request_: Any, field: str, words: str) -> None:
    with pytest.raises(PermitClockError) as err:
        compute_permit_clock(request_)
    message = str(err.value)
    assert message.startswith(f"{field}:"), message
    assert words in message, message
    assert "\n" not in message
    assert isinstance(err.value, TimelineError)
