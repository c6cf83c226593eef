"""`clearance clock compute`, run as the real command: the JSON contract of the reference
(section 5) on its worked examples (section 6), and one clear line for bad input."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import Result, assert_one_line_error, clearance
from tests.contract import CONTRACT_KEYS as CONTRACT_KEY_ORDER

# The output keys of the contract (reference section 5); days_remaining only with as_of.
CONTRACT_KEYS = set(CONTRACT_KEY_ORDER)


def compute_stdin(timeline: Any) -> Result:
    text = timeline if isinstance(timeline, str) else json.dumps(timeline)
    return clearance("clock", "compute", input=text)


def ok_json(result: Result) -> dict[str, Any]:
    assert result.returncode == 0, result
    assert result.stderr == "", result
    out = json.loads(result.stdout)
    assert isinstance(out, dict)
    return out


def check_shape(out: dict[str, Any], with_as_of: bool) -> None:
    expected = (
        CONTRACT_KEYS
        if with_as_of
        else CONTRACT_KEYS - {"days_remaining", "conservative_days_remaining"}
    )
    assert set(out) == expected
    for entry in out["ledger"]:
        assert {"date", "event", "effect", "days", "rule"} <= set(entry)
    for window in out["notice_windows"]:
        assert {"kind", "closes", "rule"} <= set(window)
    for alt in out["alternatives"]:
        assert {"reading", "shot_clock_date"} <= set(alt)
    assert all(isinstance(w, str) for w in out["warnings"])


# -- section 6, worked examples (federal holidays only) ---------------------------------------

EXAMPLE_1 = {
    "category": "macro_collocation",
    "events": [{"type": "submitted", "date": "2025-09-02"}],
}
EXAMPLE_2 = {
    "category": "macro_new_structure",
    "events": [
        {"type": "submitted", "date": "2026-01-05"},
        {
            "type": "incomplete_notice",
            "date": "2026-01-26",
            "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
        },
        {"type": "resubmitted", "date": "2026-02-20"},
    ],
}
EXAMPLE_3 = {
    "category": "swf_collocation",
    "events": [
        {"type": "submitted", "date": "2026-03-02"},
        {
            "type": "incomplete_notice",
            "date": "2026-03-10",
            "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
        },
        {"type": "resubmitted", "date": "2026-03-30"},
    ],
}
EXAMPLE_4 = {
    "category": "eligible_facilities_request",
    "events": [
        {"type": "submitted", "date": "2025-10-02"},
        {"type": "deemed_granted_notice", "date": "2025-12-03"},
    ],
}


def test_example_1_macro_collocation_on_stdin() -> None:
    out = ok_json(compute_stdin(EXAMPLE_1))
    check_shape(out, with_as_of=False)
    assert out["category"] == "macro_collocation"
    assert out["period_days"] == 90
    assert out["start_date"] == "2025-09-02"
    assert out["shot_clock_date"] == "2025-12-01"
    assert out["conservative_date"] == "2025-12-01"
    assert out["tolled_days"] == 0
    assert out["status"] == "running"


def test_example_2_tolled_notice_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps({**EXAMPLE_2, "as_of": "2026-03-01"}))
    out = ok_json(clearance("clock", "compute", str(path)))
    check_shape(out, with_as_of=True)
    assert out["period_days"] == 150
    assert out["tolled_days"] == 25
    assert out["shot_clock_date"] == "2026-06-29"
    assert out["status"] == "running"
    assert out["days_remaining"] == (date(2026, 6, 29) - date(2026, 3, 1)).days
    notice = [e for e in out["ledger"] if e["event"] == "incomplete_notice"]
    assert notice and notice[0]["days"] == 25
    assert "1.6003(d)(2)" in notice[0]["rule"]


def test_example_3_swf_reset_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "swf.json"
    path.write_text(json.dumps(EXAMPLE_3))
    out = ok_json(clearance("clock", "compute", str(path)))
    check_shape(out, with_as_of=False)
    assert out["reset_on"] == "2026-03-30"
    assert out["shot_clock_date"] == "2026-05-29"
    assert out["status"] == "running"
    assert any("1.6003(d)(1)" in e["rule"] for e in out["ledger"])


def test_example_4_efr_deemed_granted_with_dash_for_stdin() -> None:
    result = clearance(
        "clock", "compute", "-", input=json.dumps({**EXAMPLE_4, "as_of": "2025-12-10"})
    )
    out = ok_json(result)
    check_shape(out, with_as_of=True)
    assert out["period_days"] == 60
    assert out["shot_clock_date"] == "2025-12-01"
    assert out["status"] == "deemed_granted"
    assert out["days_remaining"] == -9


def test_example_1_as_of_gives_days_remaining() -> None:
    out = ok_json(compute_stdin({**EXAMPLE_1, "as_of": "2025-11-01"}))
    check_shape(out, with_as_of=True)
    assert out["days_remaining"] == 30


# -- invalid input: exit 2, one line naming the field ----------------------------------------

SUBMITTED = {"type": "submitted", "date": "2026-01-05"}


@pytest.mark.parametrize(
    ("timeline", "fragments"),
    [
        pytest.param(
            {"category": "small_cell", "events": [SUBMITTED]},
            ["category", "small_cell"],
            id="unknown-category",
        ),
        pytest.param(
            {"batch": ["swf_collocation", "macro_collocation"], "events": [SUBMITTED]},
            ["batch[1]", "macro_collocation"],
            id="batch-with-non-swf-site",
        ),
        pytest.param(
            {
                "category": "macro_collocation",
                "events": [{"type": "submitted", "date": "2026-02-30"}],
            },
            ["events[0].date", "2026-02-30"],
            id="malformed-date",
        ),
        pytest.param(
            {
                "category": "macro_collocation",
                "events": [SUBMITTED, {"type": "incomplete_notice", "date": "2026-01-10"}],
            },
            ["events[1].items"],
            id="notice-without-items-key",
        ),
        pytest.param(
            {
                "category": "macro_collocation",
                "events": [
                    SUBMITTED,
                    {"type": "incomplete_notice", "date": "2026-01-10", "items": []},
                ],
            },
            ["events[1].items"],
            id="notice-with-empty-items",
        ),
        pytest.param(
            {
                "category": "macro_collocation",
                "events": [SUBMITTED, {"type": "permit", "date": "2026-01-10"}],
            },
            ["events[1].type", "permit"],
            id="unknown-event-type",
        ),
        pytest.param("{'category': 'macro_collocation'}", ["input", "JSON"], id="not-json"),
        pytest.param("", ["input"], id="empty-stdin"),
    ],
)
def test_invalid_input_is_one_line_exit_2(timeline: Any, fragments: list[str]) -> None:
    result = compute_stdin(timeline)
    assert result.stdout == "", result
    assert_one_line_error(result, 2, *fragments)


def test_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = clearance("clock", "compute", str(missing))
    assert result.stdout == "", result
    assert_one_line_error(result, 2, "nope.json")


def test_invalid_file_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"category": "tower", "events": [SUBMITTED]}))
    result = clearance("clock", "compute", str(path))
    assert_one_line_error(result, 2, "category", "tower")
