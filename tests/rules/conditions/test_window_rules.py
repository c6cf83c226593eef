"""Tests for rules.conditions.window_rules: the default rules from the data, and bad data
refused."""

from __future__ import annotations

import copy
import json

import pytest

from rules.conditions.window_rules import (
    DATA_FILE,
    DEFAULT_RULES,
    WindowDataError,
    parse_window_rules,
)

# ----------------------------------------------------------------- data validation


def _data() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def test_default_rules_loaded_from_data() -> None:
    assert [r.key for r in DEFAULT_RULES.rules] == [
        "nesting_bird_survey",
        "burrowing_owl_survey",
        "bat_exclusion",
        "erosion_control_before_rainy_season",
        "title_report_freshness",
        "dust_complaint_response",
        "construction_days",
    ]
    assert parse_window_rules(_data()) == DEFAULT_RULES
    assert DEFAULT_RULES.cite("109", "BIO-3") == "Condition 109 (BIO-3)"
    assert DEFAULT_RULES.cite("7", None) == "Condition 7"


def _broken(change) -> dict:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(_data())
    change(raw)
    return raw


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["rules"][0].update(computation="guess"),
        lambda r: r["rules"][0]["detect"].update(text_all=["(unclosed"]),
        lambda r: r["rules"][0]["detect"].update(codes=[], text_all=[]),
        # a code list without its jurisdiction would match the code in every city
        lambda r: r["rules"][0]["detect"].update(codes=["^BIO-3$"]),
        lambda r: r["rules"][0]["messages"].update(due="by {duedate}"),
        lambda r: r["rules"][0]["messages"].pop("missing_anchor"),
        lambda r: r["rules"][0]["reminders"].update(days_before=[-1]),
        lambda r: r["rules"][0]["reminders"].update(anchor="groundbreaking"),
        lambda r: r["rules"][0]["params"].update(anchor="ground_breaking"),
        lambda r: r["rules"][0]["params"]["trigger"].update(type="sometimes"),
        lambda r: r["rules"][0]["params"]["trigger"]["seasons"][0].update(end="02-30"),
        lambda r: r["rules"][0]["params"]["window"].update(last_day_offset=8),
        lambda r: r["rules"][2]["params"]["blackout"].update(
            seasons=[{"start": "01-01", "end": "12-31"}]
        ),
        lambda r: r["rules"][6]["params"].update(holiday_state="ZZ"),
        lambda r: r["rules"][6]["params"].update(closed_weekdays=[7]),
        lambda r: r["rules"].append(copy.deepcopy(r["rules"][0])),
        lambda r: r.update(citation="Condition {num}"),
    ],
)
def test_bad_window_data_is_refused(change) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WindowDataError):
        parse_window_rules(_broken(change))
