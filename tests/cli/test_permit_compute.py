"""`clearance clock compute` with a permit clock (`rule`, permit-clocks.md §4), run as the
real command: the contract's output on worked examples, and exit 2 with one line naming
the field for bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cli.runner import Result, assert_one_line_error, clearance

OUTPUT_KEYS = {
    "rule", "citation", "rule_version", "provisional", "unit", "start_date", "due_date",
    "conservative_date", "hard_stop", "status", "conservative_status", "consequence",
    "days_remaining", "extensions", "ledger", "alternatives", "next", "warnings",
}  # fmt: skip


def compute(request: Any) -> Result:
    text = request if isinstance(request, str) else json.dumps(request)
    return clearance("clock", "compute", input=text)


def ok(result: Result) -> dict[str, Any]:
    assert result.returncode == 0, result
    assert result.stderr == "", result
    return json.loads(result.stdout)


def test_the_section_4_example_from_the_command_line() -> None:
    out = ok(
        compute(
            {
                "rule": "ca_post_entitlement_review",
                "calendar": {
                    "adopted": [
                        "2026-11-11",
                        "2026-11-26",
                        "2026-11-27",
                        "2026-12-25",
                        "2027-01-01",
                    ],
                    "closures": ["2026-12-24"],
                },
                "facts": {"units": 12},
                "events": [{"type": "complete", "date": "2026-11-20"}],
                "as_of": "2026-12-15",
            }
        )
    )
    assert set(out) >= OUTPUT_KEYS
    assert (out["due_date"], out["conservative_date"]) == ("2027-01-08", "2027-01-07")
    assert (out["status"], out["days_remaining"], out["unit"]) == ("running", 15, "business_days")
    assert out["extensions"] == {"used": 0, "left": 0}
    assert {"date", "event", "effect", "days", "rule", "reading"} <= set(out["ledger"][0])
    assert {"reading", "due_date", "status"} <= set(out["alternatives"][0])


def test_a_chained_clock_comes_back_under_next(tmp_path: Any) -> None:
    path = tmp_path / "psa.json"
    path.write_text(
        json.dumps(
            {
                "rule": "ca_psa_completeness",
                "jurisdiction": "cotati",
                "facts": {"housing": True, "units": 24},
                "events": [{"type": "received", "date": "2026-10-30"}],
                "as_of": "2026-12-01",
            }
        )
    )
    out = ok(clearance("clock", "compute", str(path)))
    assert (out["due_date"], out["status"], out["consequence"]) == (
        "2026-11-30",
        "lapsed",
        "deemed_complete",
    )
    haa = out["next"][0]
    assert (haa["due_date"], haa["conservative_date"]) == ("2026-12-30", "2026-12-29")


def test_a_shot_clock_timeline_still_computes() -> None:
    out = ok(
        compute(
            {
                "category": "macro_collocation",
                "events": [{"type": "submitted", "date": "2025-09-02"}],
            }
        )
    )
    assert out["shot_clock_date"] == "2025-12-01"


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ('{"rule": "ca_psa_dcision"}', "rule", "unknown rule"),
        (
            '{"rule": "ca_psa_decision", "events": [{"type": "extension_agreed", '
            '"date": "2026-02-01", "days": -5}]}',
            "events[0].days",
            "positive whole number",
        ),
        (
            '{"rule": "building_permit_expiry", "events": [{"type": "ceqa", '
            '"date": "2026-02-01", "document": "eir"}]}',
            "events[0].type",
            "does not take the event 'ceqa'",
        ),
        ('{"rule": "ca_psa_decision", "events": [', "input", "not valid JSON"),
        ('{"rule": "ca_psa_decision", "rule": "cotati_ltp_term"}', "rule", "appears twice"),
    ],
)
def test_invalid_input_exits_2_naming_the_field(text: str, field: str, words: str) -> None:
    result = compute(text)
    line = assert_one_line_error(result, 2, words)
    assert line.startswith(f"error: {field}:"), line
    assert result.stdout == ""
