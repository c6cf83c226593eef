"""The applicant's stepper starts at the first step still owed, whatever milestone is
most urgent by its target date."""

from __future__ import annotations

from types import SimpleNamespace

from web.pages.portal import applicant_steps


def test_the_first_owed_step_is_next_even_when_a_later_one_is_more_urgent() -> None:
    project = SimpleNamespace(
        milestones=[
            {"milestone": "grading_permit"},
            {"milestone": "building_permit"},
            {"milestone": "occupancy", "target": "2027-01-10"},
        ],
        next_milestone="occupancy",  # nearest target date
    )
    owed = [
        SimpleNamespace(number="1", gates=["grading_permit"]),
        SimpleNamespace(number="2", gates=["building_permit"]),
        SimpleNamespace(number="3", gates=["occupancy"]),
    ]
    steps = applicant_steps(project, owed)
    assert [(s["milestone"], s["state"]) for s in steps] == [
        ("grading_permit", "next"),
        ("building_permit", "later"),
        ("occupancy", "later"),
    ]
