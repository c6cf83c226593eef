"""Importing through the API carries the whole parse contract: what `clearance conditions
parse --json` prints comes back unchanged from the request the action layer receives
(time limits, the adoption date, sub-items, departments), and a malformed one is refused
naming the field."""

from __future__ import annotations

import pytest

from actions.errors import ActionFailed
from actions.project_requests import resolution_from_contract
from rules.conditions.parser import parse_resolution
from settings import PROJECT_ROOT

RESOLUTION = PROJECT_ROOT / "stack" / "data" / "cotati-village-resolution.txt"


def test_the_parse_contract_round_trips() -> None:
    parsed = parse_resolution(RESOLUTION.read_text(encoding="utf-8"))
    contract = parsed.to_contract()
    assert resolution_from_contract(contract).to_contract() == contract


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"title": "x"}, "resolution"),
        ({"conditions": [{"number": "1", "text": "t"}]}, "resolution.conditions[0]"),
        (
            {"conditions": [{"number": "1", "text": "t", "gates": [], "time_limits": "soon"}]},
            "time_limits",
        ),
        (
            {"adopted": "2026-13-01", "conditions": [{"number": "1", "text": "t", "gates": []}]},
            "resolution.adopted",
        ),
    ],
)
def test_a_malformed_contract_is_refused_naming_the_field(raw: dict, field: str) -> None:
    with pytest.raises(ActionFailed) as refused:
        resolution_from_contract(raw)
    assert refused.value.status == 400 and field in refused.value.message
