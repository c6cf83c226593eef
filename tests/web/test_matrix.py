"""Every role × every action, over HTTP against the real workflows: a role the table
refuses gets 403 with a readable reason (nothing reaches Temporal); a role it allows gets
through to the workflow, which records the action or refuses it on the facts (409)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from models.database import make_engine
from rules.access import ACTIONS, STAFF_ROLES, allowed
from settings import Settings
from tests.web.helpers import ROLE_USERS, Browser, Stackish, city_today, csrf_of
from web.accounts import Accounts


@pytest.fixture(scope="module")
def targets(stack: Stackish, web_settings: Settings) -> dict[str, str]:
    project = stack.new_project("MX")
    accounts = Accounts(make_engine(web_settings.database_url))
    link = accounts.create_link("project", project, "pm@cotati.example", 30)
    return {"project": project, "clock": stack.new_clock(days_ago=30), "link": link.link_id}


def api_calls(t: dict[str, str]) -> dict[str, tuple[str, str, Any]]:
    clock, pid = f"/api/v1/applications/{t['clock']}", f"/api/v1/projects/{t['project']}"
    item = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}
    later = (city_today() + timedelta(days=60)).isoformat()
    return {
        "clock.notice": ("POST", f"{clock}/notice", {"items": [item]}),
        "clock.resubmission": ("POST", f"{clock}/resubmission", {}),
        "clock.tolling_agreement": ("POST", f"{clock}/tolling-agreement", {"days": 5}),
        "clock.non_tolling_event": ("POST", f"{clock}/non-tolling-event", {"kind": "appeal"}),
        "clock.applicant_notice": (
            "POST",
            f"{clock}/applicant-notice",
            {"kind": "applicant_public_notice"},
        ),
        "clock.closure": ("POST", f"{clock}/closures", {"date": later}),
        "clock.decision": ("POST", f"{clock}/decision", {"outcome": "denied"}),
        "clock.withdrawal": ("POST", f"{clock}/withdrawal", {}),
        "condition.submit_evidence": ("POST", f"{pid}/conditions/1/evidence", {"description": "x"}),
        "condition.review": ("POST", f"{pid}/conditions/1/review", {"decision": "in_review"}),
        "condition.waive": (
            "POST",
            f"{pid}/conditions/2/resolve",
            {"resolution": "waived", "reason": "r"},
        ),
        "condition.not_applicable": (
            "POST",
            f"{pid}/conditions/5/resolve",
            {"resolution": "not_applicable", "reason": "r"},
        ),
        "condition.satisfied_by_alternative": (
            "POST",
            f"{pid}/conditions/5/resolve",
            {"resolution": "satisfied_by_alternative", "reason": "r"},
        ),
        "condition.trigger": ("POST", f"{pid}/conditions/4/trigger", {"reason": "found"}),
        "condition.correct": (
            "POST",
            f"{pid}/conditions/3/correct",
            {"reason": "r", "kind": "advisory"},
        ),
        "project.plan": ("POST", f"{pid}/plan", {"grading_start": later}),
        "project.digest": ("POST", f"{pid}/digest", {}),
        "project.sign_off": ("POST", f"{pid}/milestones/grading_permit/sign-off", None),
        # a further resolution into the project: the first allowed role imports it, the
        # others are refused on the facts (its numbers are taken by then)
        "project.import": (
            "POST",
            "/api/v1/projects/import",
            {
                "text": "RESOLUTION OF THE CITY COUNCIL APPROVING AN AMENDMENT\n"
                "CONDITIONS OF APPROVAL\n1. The applicant shall pay the amendment fee.\n",
                "project_id": t["project"],
                "existing": True,
                "prefix": "AM-",
            },
        ),
        "link.create": ("POST", "/api/v1/links", {"scope": "project", "scope_id": t["project"]}),
        "link.revoke": ("POST", f"/api/v1/links/{t['link']}/revoke", None),
        "read": ("GET", pid, None),
    }


# Actions with no API endpoint of their own: admin pages (covered by the page matrix).
PAGE_ONLY = {"admin.calendar", "admin.users"}


def test_every_action_is_exercised(targets: dict[str, str]) -> None:
    assert set(api_calls(targets)) | PAGE_ONLY == set(ACTIONS)


@pytest.mark.parametrize("role", STAFF_ROLES)
def test_api_role_matrix(role: str, browser: Browser, targets: dict[str, str]) -> None:
    email = ROLE_USERS[role]
    results = {}
    for action, (method, path, body) in api_calls(targets).items():
        response = browser.api(email, method, path, body)
        results[action] = response.status_code
        if allowed(role, action):
            assert response.status_code in (200, 201, 409), (action, response.text)
            if response.status_code == 409:
                assert "not permitted" not in response.json()["error"]
        else:
            assert response.status_code == 403, (action, response.text)
            assert response.json()["error"].startswith(f"not permitted: {email}")
    assert results["read"] == 200


def test_no_session_no_api(browser: Browser, targets: dict[str, str]) -> None:
    client = browser.as_(None)
    for method, path, body in api_calls(targets).values():
        response = client.request(method, path, json=body)
        assert response.status_code == 401, path


PAGE_POSTS = {
    "clock.resubmission": "/applications/{clock}/events/resubmission",
    "clock.decision": "/applications/{clock}/events/decision",
    "clock.notice": "/applications/{clock}/notice",
    "condition.submit_evidence": "/projects/{project}/conditions/1/submit-evidence",
    "condition.review": "/projects/{project}/conditions/1/review",
    "condition.trigger": "/projects/{project}/conditions/4/trigger",
    "condition.correct": "/projects/{project}/conditions/3/correct",
    "project.sign_off": "/projects/{project}/milestones/grading_permit/sign-off",
    "project.plan": "/projects/{project}/plan",
    "project.digest": "/projects/{project}/digest",
    "project.import": "/projects/import",
    "link.create": "/links",
    "link.revoke": "/links/{link}/revoke",
    "admin.calendar": "/admin/calendar/closures",
    "admin.users": "/admin/users",
}


@pytest.mark.parametrize("role", STAFF_ROLES)
def test_page_forms_refuse_roles_that_may_not(
    role: str, browser: Browser, targets: dict[str, str]
) -> None:
    email = ROLE_USERS[role]
    client = browser.as_(email)
    token = csrf_of(client.get("/me").text)
    for action, template in PAGE_POSTS.items():
        if allowed(role, action):
            continue
        data = {"csrf_token": token, "scope": "project", "scope_id": targets["project"]}
        response = client.post(template.format(**targets), data=data)
        assert response.status_code == 403, (action, response.text[:500])
        assert 'class="flash error"' in response.text
        assert "may not" in response.text


@pytest.mark.parametrize("role", STAFF_ROLES)
def test_pages_show_only_the_forms_a_role_may_use(
    role: str, browser: Browser, targets: dict[str, str]
) -> None:
    client = browser.as_(ROLE_USERS[role])
    project = client.get(f"/projects/{targets['project']}").text
    assert ('data-testid="link-create"' in project) == allowed(role, "link.create")
    assert ('data-testid="plan-submit"' in project) == allowed(role, "project.plan")
    signoff = client.get(f"/projects/{targets['project']}/milestones/grading_permit/sign-off").text
    signed = "not yet" not in signoff
    assert ('data-testid="signoff-submit"' in signoff) == (
        allowed(role, "project.sign_off") and not signed
    )
    calendar = client.get("/admin/calendar").text
    assert ('data-testid="closure-submit"' in calendar) == allowed(role, "admin.calendar")
