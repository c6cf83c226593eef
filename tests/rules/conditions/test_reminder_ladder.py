"""The reminder ladder is the city's data: the weekly digest's day (or none), the digests
before a target date, the reminders before a condition's due date; staff may pause the
digests, never a due-date reminder."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from models.conditions import ConditionState, ProjectInfo
from rules.conditions.alerts import plan_project_alerts
from rules.kernel import jurisdictions
from rules.kernel.jurisdictions import jurisdiction
from tests.workflows.test_project_workflow import NESTING_BIRDS, spec

NOW = datetime(2027, 3, 2, 20, 0, tzinfo=UTC)  # a Tuesday


def info(**ladder: object) -> ProjectInfo:
    return ProjectInfo(
        project_id="P-LADDER",
        name="Ladder",
        jurisdiction="cotati",
        resolution_title="",
        applicant_name="A",
        applicant_email="a@example.test",
        project_manager_email="pm@example.test",
        departments=[],
        time_zone="UTC",
        **ladder,  # type: ignore[arg-type]
    )


CONDITIONS = [
    ConditionState(
        spec(
            "1", "Prior to a grading permit, submit a report.", ["grading_permit"], "Public Works"
        ),
        "engineering",
    ),
    ConditionState(
        spec("8", NESTING_BIRDS, ["grading_permit"], "Planning", code="BIO-3"), "planning"
    ),
]
PLANNED = {
    "groundbreaking": "2027-04-15",
    "milestone_targets": {"grading_permit": "2027-04-01"},
}


def kinds_and_days(alerts: list) -> set[tuple[str, date]]:  # type: ignore[type-arg]
    return {(a.kind, a.fire_at.date()) for a in alerts}


def test_the_weekly_digest_comes_on_the_citys_day_and_target_digests_at_its_offsets() -> None:
    plan = kinds_and_days(
        plan_project_alerts(
            info(digest_weekday=2, target_digest_offsets=[10]), CONDITIONS, PLANNED, [], NOW
        )
    )
    assert ("applicant_digest", date(2027, 3, 3)) in plan  # Wednesday
    assert ("applicant_digest", date(2027, 3, 22)) in plan  # 10 days before April 1
    assert ("applicant_digest", date(2027, 3, 18)) not in plan  # not 14


def test_no_weekly_digest_when_the_city_sends_none() -> None:
    alerts = plan_project_alerts(info(digest_weekday=None), CONDITIONS, PLANNED, [], NOW)
    assert not [a for a in alerts if a.key.startswith("digest:weekly:")]


def test_reminders_before_a_conditions_due_date_follow_the_ladder() -> None:
    alerts = plan_project_alerts(info(condition_due_offsets=[3]), CONDITIONS, PLANNED, [], NOW)
    windows = [a for a in alerts if a.kind == "window_reminder"]
    assert windows
    for alert in windows:
        due = date.fromisoformat(alert.details["due"])
        assert (due - alert.fire_at.date()).days == 3


def test_paused_digests_stop_only_the_digests() -> None:
    running = plan_project_alerts(info(), CONDITIONS, PLANNED, [], NOW)
    paused = plan_project_alerts(info(), CONDITIONS, PLANNED, [], NOW, digests_paused=True)
    assert [a for a in running if a.kind == "applicant_digest"]
    assert not [a for a in paused if a.kind == "applicant_digest"]
    assert [a.key for a in paused] == [a.key for a in running if a.kind != "applicant_digest"]


def test_cotati_states_its_ladder_as_data() -> None:
    ladder = jurisdiction("cotati").reminder_ladder
    assert ladder.weekly_digest_weekday == 0
    assert ladder.target_digest_days_before == (14, 7)
    assert ladder.permit_expiry_days_before == (90, 30, 14, 7, 1)


@pytest.mark.parametrize(
    ("ladder", "message"),
    [
        ({"weekly_digest": "someday"}, "reminder_ladder.weekly_digest: a weekday name"),
        ({"target_digest_days_before": [0]}, "reminder_ladder.target_digest_days_before"),
        ({"permit_expiry_days_before": "30"}, "reminder_ladder.permit_expiry_days_before"),
        ({"every_day": True}, "reminder_ladder.every_day: unknown field"),
    ],
)
def test_a_bad_ladder_is_refused_in_one_line(
    tmp_path: Path, ladder: dict[str, object], message: str
) -> None:
    raw = json.loads((jurisdictions.DATA_DIR / "jurisdictions" / "cotati.json").read_text())
    raw["reminder_ladder"] = ladder
    path = tmp_path / "cotati.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match=message) as err:
        jurisdictions._load_jurisdiction(path)
    assert "\n" not in str(err.value)
