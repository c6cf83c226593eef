"""One "next milestone": the read model's (project page, lists), the digest's and the
rule's own answer are the same, and a nearer target date makes a later milestone next."""

from __future__ import annotations

from datetime import UTC, datetime

from activities.project_records import progress_columns
from models.conditions import ConditionState
from notices.vocabulary import milestone_keys
from rules.conditions.alerts import plan_project_alerts
from rules.conditions.progress import next_milestone_of
from tests.rules.conditions.test_reminder_ladder import info
from tests.workflows.test_project_workflow import spec

CONDITIONS = [
    ConditionState(spec("1", "Prior to a grading permit, a report.", ["grading_permit"], "W"), "x"),
    ConditionState(spec("2", "Prior to a building permit, fees.", ["building_permit"], "P"), "y"),
]


def test_the_read_model_the_digest_and_the_rule_agree() -> None:
    for targets, expected in (
        ({}, "grading_permit"),
        ({"building_permit": "2027-04-01"}, "building_permit"),
    ):
        planned = {"milestone_targets": targets}
        rule = next_milestone_of(milestone_keys(), CONDITIONS, targets, [])
        assert rule is not None and rule.milestone == expected
        columns = progress_columns(milestone_keys(), CONDITIONS, planned, [])
        assert columns["next_milestone"] == expected
        project = info()
        project.milestones = milestone_keys()
        now = datetime(2027, 3, 1, 20, tzinfo=UTC)
        weekly = [
            a
            for a in plan_project_alerts(project, CONDITIONS, planned, [], now)
            if a.key.startswith("digest:weekly:")
        ]
        assert weekly and weekly[0].details["milestone"] == expected
