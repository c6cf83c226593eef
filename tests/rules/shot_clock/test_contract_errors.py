"""Invalid input to the compute contract (reference §5): a TimelineError whose one-line
message starts with the bad field, so the CLI can print it as is (exit 2)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.kernel.input import TimelineError
from rules.shot_clock.engine import compute_json
from rules.shot_clock.timeline import parse_timeline

SUBMITTED = {"type": "submitted", "date": "2026-01-05"}
ITEM = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}


def valid(**overrides: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"category": "macro_collocation", "events": [dict(SUBMITTED)]}
    raw.update(overrides)
    return raw


def with_event(event: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """A valid timeline plus one more event (it is events[1])."""
    return valid(events=[dict(SUBMITTED), event], **overrides)


def assert_rejected(raw: Any, field: str, *needles: str) -> str:
    with pytest.raises(TimelineError) as err:
        parse_timeline(raw)
    message = str(err.value)
    assert message.startswith(f"{field}:"), message
    assert "\n" not in message
    for needle in needles:
        assert needle in message, message
    # compute_json goes through the same validation.
    with pytest.raises(TimelineError):
        compute_json(raw)
    return message


def test_the_valid_baseline_parses() -> None:
    assert parse_timeline(valid()).category == "macro_collocation"
    assert issubclass(TimelineError, ValueError)


# --------------------------------------------------------------------- category and batch


@pytest.mark.parametrize(
    "bad", ["small_cell", "SWF_COLLOCATION", "", 3, None, ["swf_collocation"], {"a": 1}]
)
def test_unknown_category(bad: Any) -> None:
    if bad is None:
        assert_rejected({"events": [SUBMITTED]}, "category", "missing")
    else:
        assert_rejected(valid(category=bad), "category", "unknown category")


@pytest.mark.parametrize(
    ("sites", "field", "needle"),
    [
        (["swf_collocation", "macro_collocation"], "batch[1]", "macro_collocation"),
        (["macro_new_structure"], "batch[0]", "small wireless"),
        (["swf_new_structure", "eligible_facilities_request"], "batch[1]", "1.6003(c)(2)"),
        (["swf_collocation", "tower"], "batch[1]", "unknown category"),
        (["swf_collocation", ["swf_collocation"]], "batch[1]", "unknown category"),
    ],
)
def test_batch_with_a_non_swf_site(sites: list[str], field: str, needle: str) -> None:
    raw = {"batch": sites, "events": [SUBMITTED]}
    assert_rejected(raw, field, needle)


@pytest.mark.parametrize("bad", [[], "swf_collocation", {"a": 1}])
def test_batch_not_a_non_empty_list(bad: Any) -> None:
    assert_rejected({"batch": bad, "events": [SUBMITTED]}, "batch")


def test_both_category_and_batch() -> None:
    raw = valid(batch=["swf_collocation"])
    assert_rejected(raw, "category, batch", "not both")


# ------------------------------------------------------------------------------- dates


@pytest.mark.parametrize("bad", ["2026-02-30", "2026/01/05", 20260105, "2026-1-5", "", None])
def test_malformed_event_date(bad: Any) -> None:
    raw = valid(events=[{"type": "submitted", "date": bad}])
    assert_rejected(raw, "events[0].date", repr(bad))


def test_missing_event_date() -> None:
    assert_rejected(valid(events=[{"type": "submitted"}]), "events[0].date", "missing")


@pytest.mark.parametrize("bad", ["2026-02-30", "2026/01/05", 20260105])
def test_malformed_as_of(bad: Any) -> None:
    assert_rejected(valid(as_of=bad), "as_of")


@pytest.mark.parametrize("bad", ["2026-13-01", "April 6", 20260406])
def test_malformed_local_holiday(bad: Any) -> None:
    assert_rejected(valid(local_holidays=["2026-04-06", bad]), "local_holidays[1]")


def test_local_holidays_not_a_list() -> None:
    assert_rejected(valid(local_holidays="2026-04-06"), "local_holidays")


def test_malformed_agreed_new_date() -> None:
    event = {"type": "tolling_agreement", "date": "2026-02-01", "new_date": "2026-02-30"}
    assert_rejected(with_event(event), "events[1].new_date")


def test_agreed_new_date_before_the_agreement() -> None:
    event = {"type": "tolling_agreement", "date": "2026-02-01", "new_date": "2026-01-31"}
    assert_rejected(with_event(event), "events[1].new_date")


# ----------------------------------------------------------------------------- notices


def test_notice_without_items() -> None:
    event = {"type": "incomplete_notice", "date": "2026-01-15"}
    assert_rejected(with_event(event), "events[1].items", "1.6003(d)")


def test_notice_with_empty_items() -> None:
    event = {"type": "incomplete_notice", "date": "2026-01-15", "items": []}
    assert_rejected(with_event(event), "events[1].items", "1.6003(d)")


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ("A", "events[1].items"),
        ([""], "events[1].items[0]"),
        ([ITEM, {"text": "", "rule": "x"}], "events[1].items[1]"),
        ([ITEM, 7], "events[1].items[1]"),
        ([{"id": "A", "colour": "red"}], "events[1].items[0]"),
        ([{"id": 1}], "events[1].items[0].id"),
    ],
)
def test_notice_with_bad_items(items: Any, field: str) -> None:
    event = {"type": "incomplete_notice", "date": "2026-01-15", "items": items}
    assert_rejected(with_event(event), field)


def test_items_on_an_event_that_is_not_a_notice() -> None:
    event = {"type": "resubmitted", "date": "2026-01-15", "items": ["A"]}
    assert_rejected(with_event(event), "events[1].items")


def test_notice_items_may_be_strings_or_objects() -> None:
    event = {"type": "incomplete_notice", "date": "2026-01-15", "items": ["A", ITEM]}
    parsed = parse_timeline(with_event(event))
    assert [i.id for i in parsed.events[1].items] == ["A", "A"]


# ------------------------------------------------------------------------------ events


@pytest.mark.parametrize("bad", ["notice", "SUBMITTED", "deemed_approved", "", ["submitted"]])
def test_unknown_event_type(bad: Any) -> None:
    assert_rejected(with_event({"type": bad, "date": "2026-01-15"}), "events[1].type", "unknown")


def test_event_without_type() -> None:
    assert_rejected(with_event({"date": "2026-01-15"}), "events[1].type", "missing")


@pytest.mark.parametrize("bad", ["submitted", ["submitted"], None])
def test_event_not_an_object(bad: Any) -> None:
    assert_rejected(valid(events=[dict(SUBMITTED), bad]), "events[1]")


def test_events_not_a_list() -> None:
    assert_rejected(valid(events={"type": "submitted"}), "events")


def test_unknown_event_field() -> None:
    event = {"type": "resubmitted", "date": "2026-01-15", "when": "today"}
    assert_rejected(with_event(event), "events[1]", "when")


def test_two_submitted_events() -> None:
    raw = with_event({"type": "submitted", "date": "2026-01-06"})
    assert_rejected(raw, "events", "submitted", "2026-01-05", "2026-01-06")


def test_two_pre_application_events() -> None:
    raw = valid(
        events=[
            dict(SUBMITTED),
            {"type": "pre_application", "date": "2026-01-01"},
            {"type": "pre_application", "date": "2026-01-02"},
        ]
    )
    assert_rejected(raw, "events", "pre_application")


def test_pre_application_after_submission() -> None:
    raw = with_event({"type": "pre_application", "date": "2026-01-06"})
    assert_rejected(raw, "events", "pre_application")


# ------------------------------------------------------------------- tolling agreements


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"days": None, "new_date": None},
        {"days": 30, "new_date": "2026-06-01"},
    ],
)
def test_tolling_agreement_needs_exactly_one_of_days_and_new_date(extra: dict[str, Any]) -> None:
    event = {"type": "tolling_agreement", "date": "2026-02-01", **extra}
    assert_rejected(with_event(event), "events[1]", "days", "new_date")


@pytest.mark.parametrize("bad", [0, -5, 2.5, "30", True])
def test_tolling_agreement_days_must_be_a_positive_whole_number(bad: Any) -> None:
    event = {"type": "tolling_agreement", "date": "2026-02-01", "days": bad}
    assert_rejected(with_event(event), "events[1].days")


# ----------------------------------------------------------------------------- decisions


@pytest.mark.parametrize("bad", ["granted", "Approved", "", None, 1])
def test_bad_decision_outcome(bad: Any) -> None:
    event = {"type": "decision", "date": "2026-03-01", "outcome": bad}
    assert_rejected(with_event(event), "events[1].outcome", "approved")


def test_decision_without_outcome() -> None:
    assert_rejected(with_event({"type": "decision", "date": "2026-03-01"}), "events[1].outcome")


# ---------------------------------------------------------------------- top level, state


@pytest.mark.parametrize("bad", [[], ["category"], "macro_collocation", 5, None, True])
def test_non_object_input(bad: Any) -> None:
    assert_rejected(bad, "input", "object")


@pytest.mark.parametrize("bad", ["NY", "XX", "California", "C", 6])
def test_unknown_state(bad: Any) -> None:
    assert_rejected(valid(state=bad), "state", repr(bad))


def test_lower_case_state_is_accepted() -> None:
    assert parse_timeline(valid(state="ca")).state == "CA"


def test_unknown_top_level_field() -> None:
    # Revision 2 made "jurisdiction" a field (the city's calendar layers and pack).
    assert_rejected(valid(city="cotati"), "city", "unknown field")


@pytest.mark.parametrize("bad", ["oakland", ["cotati"], 1])
def test_unknown_jurisdiction(bad: Any) -> None:
    assert_rejected(valid(jurisdiction=bad), "jurisdiction", "unknown jurisdiction")


@pytest.mark.parametrize("bad", ["oakland", ["federal"], 1])
def test_unknown_rule_pack(bad: Any) -> None:
    assert_rejected(valid(rule_pack=bad), "rule_pack", repr(bad))
