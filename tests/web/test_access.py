"""The authorization table (rules/access.py): every role × every action, and agreement
with the lifecycle rules the project workflow's validators apply."""

from __future__ import annotations

import pytest

from models.conditions import SUBMITTED, Actor, ConditionState
from rules import access
from rules.access import ACTIONS, STAFF_ROLES, NotPermitted, Principal, allowed, require
from rules.conditions import lifecycle
from tests.web.helpers import spec

EXPECTED = {
    "clock.open": {"project_manager", "planning_manager", "admin"},
    "clock.notice": {"project_manager", "planning_manager", "admin"},
    "clock.resubmission": {"project_manager", "planning_manager", "admin"},
    "clock.tolling_agreement": {"project_manager", "planning_manager", "admin"},
    "clock.decision": {"project_manager", "planning_manager", "admin"},
    "clock.withdrawal": {"project_manager", "planning_manager", "admin"},
    "clock.applicant_notice": {"project_manager", "planning_manager", "admin"},
    "clock.non_tolling_event": {"project_manager", "planning_manager", "admin"},
    "clock.closure": {"admin"},
    "clock.rebase": {"admin"},
    "permit.open": {"project_manager", "planning_manager", "admin"},
    "permit.record": {"project_manager", "planning_manager", "admin", "engineering"},
    "permit.reassign": {"project_manager", "planning_manager", "admin"},
    "clock.reassign": {"project_manager", "planning_manager", "admin"},
    "condition.submit_evidence": {"applicant", "project_manager", "admin"},
    "condition.review": {"department_reviewer", "admin"},
    "condition.waive": {"planning_manager", "admin"},
    "condition.not_applicable": {"planning_manager", "department_reviewer", "admin"},
    "condition.satisfied_by_alternative": {"planning_manager", "department_reviewer", "admin"},
    "condition.trigger": {"project_manager", "department_reviewer", "planning_manager", "admin"},
    "condition.correct": {"project_manager", "planning_manager", "admin"},
    "condition.reassign": {"project_manager", "admin"},
    "project.plan": {"project_manager", "engineering", "admin"},
    "project.sign_off": {"engineering", "admin"},
    "project.digest": {"project_manager", "planning_manager", "admin"},
    "project.digest_pause": {"project_manager", "planning_manager", "admin"},
    "project.import": {"project_manager", "planning_manager", "admin"},
    "link.create": {"project_manager", "planning_manager", "admin"},
    "link.revoke": {"project_manager", "planning_manager", "admin"},
    "admin.calendar": {"admin"},
    "admin.users": {"admin"},
    "admin.rules": {"admin"},
    "admin.import": {"admin"},
    "admin.jurisdictions": {"admin"},
    "admin.webhooks": {"admin"},
    "account.tokens": set(STAFF_ROLES),
    "read": set(STAFF_ROLES),
}


def test_every_action_is_in_the_expected_table() -> None:
    assert set(ACTIONS) == set(EXPECTED)


@pytest.mark.parametrize("action", sorted(EXPECTED))
@pytest.mark.parametrize("role", [*STAFF_ROLES, "applicant", "nobody"])
def test_role_action_matrix(role: str, action: str) -> None:
    who = Principal(f"{role}@city.example", role)
    if role in EXPECTED[action]:
        assert allowed(role, action)
        require(who, action)
    else:
        assert not allowed(role, action)
        with pytest.raises(NotPermitted) as refused:
            require(who, action)
        # The refusal names the user and who may do it instead.
        assert who.email in str(refused.value)
        assert "this is for:" in str(refused.value)


def test_the_city_attorney_reads_everything_and_changes_nothing() -> None:
    # (Their own access tokens, to read from the CLI, change no record.)
    assert sorted(a for a in ACTIONS if allowed("city_attorney", a)) == ["account.tokens", "read"]


def test_unknown_action_is_an_error_not_a_refusal() -> None:
    with pytest.raises(KeyError):
        allowed("admin", "clock.explode")


def _condition(status: str = SUBMITTED, kind: str = "conditional") -> ConditionState:
    return ConditionState(
        spec("1", "PUBLIC WORKS", "text", ["grading_permit"], kind), "engineering", status
    )


def _role_refused(check, *args) -> bool:  # type: ignore[no-untyped-def]
    """Did the lifecycle rule refuse because of the role (not the condition's state)?"""
    try:
        check(*args)
    except lifecycle.ActionRefused as refused:
        text = str(refused)
        return any(
            phrase in text
            for phrase in (
                "cannot submit",
                "is not its reviewer",
                "only ",
                "cannot trigger",
                "cannot reassign",
            )
        )
    return False


@pytest.mark.parametrize("role", STAFF_ROLES)
def test_the_table_agrees_with_the_lifecycle_rules(role: str) -> None:
    """A role the table allows is never refused by the workflow for its role, and a role
    it refuses would be refused by the workflow too."""
    actor = Actor(
        f"{role}@city.example", role, "engineering" if role == "department_reviewer" else ""
    )
    cases = {
        "condition.submit_evidence": (
            lifecycle.check_submit_evidence,
            _condition("open", "requirement"),
            "1",
            actor,
        ),
        "condition.review": (lifecycle.check_review, _condition(), "1", actor, "cleared"),
        "condition.waive": (lifecycle.check_resolve, _condition(), "1", actor, "waived", "why"),
        "condition.not_applicable": (
            lifecycle.check_resolve,
            _condition(),
            "1",
            actor,
            "not_applicable",
            "why",
        ),
        "condition.satisfied_by_alternative": (
            lifecycle.check_resolve,
            _condition(),
            "1",
            actor,
            "satisfied_by_alternative",
            "why",
        ),
        "condition.trigger": (lifecycle.check_trigger, _condition("open"), "1", actor, "found"),
        "condition.reassign": (
            lifecycle.check_reassign,
            _condition(),
            "1",
            actor,
            Actor("r@city.example", "department_reviewer", "engineering"),
            True,
            "",
        ),
    }
    for action, (check, *args) in cases.items():
        refused = _role_refused(check, *args)
        assert refused == (not access.allowed(role, action)), (role, action)
    signoff_refused = _role_refused_signoff(actor)
    assert signoff_refused == (not access.allowed(role, "project.sign_off"))


def _role_refused_signoff(actor: Actor) -> bool:
    try:
        lifecycle.check_sign_off([], "grading_permit", actor, ["grading_permit"], [])
    except lifecycle.ActionRefused as refused:
        return "signed off by engineering" in str(refused)
    return False
