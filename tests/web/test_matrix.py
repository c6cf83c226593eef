"""Every route × every role, driven by the app's own routes: each route the app serves must
be listed here with the permission that guards it (or as public), so a new route without
a role check fails `test_every_route_says_what_guards_it`. A request without a session or
token is refused on every guarded route; a role the table refuses gets 403 with a readable
reason (nothing reaches Temporal); a role it allows gets through to the workflow, which
records the action or refuses it on the facts (409)."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI

from models.database import make_engine
from rules.access import ACTIONS, STAFF_ROLES, allowed
from settings import Settings
from tests.web.helpers import ROLE_USERS, Browser, Stackish, city_today, csrf_of
from web.auth.accounts import Accounts

# Reached without a staff session: log-in, health, the API's docs, the applicant portal
# (its signed link is the credential), calendar feeds (their token), and the CLI's
# password log-in and token revocation (the password or the token is the credential).
PUBLIC = {
    ("GET", "/openapi.json"),
    ("GET", "/api/docs"),
    ("GET", "/docs"),  # a redirect to /api/docs
    ("GET", "/favicon.ico"),
    ("GET", "/login"),
    ("POST", "/login"),
    # Signing in with the city's identity provider (404 unless one is set up).
    ("GET", "/login/oidc"),
    ("GET", "/login/oidc/callback"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/a/{token}"),
    ("POST", "/a/{token}/conditions/{number}/evidence"),
    ("POST", "/a/{token}/files"),
    ("GET", "/calendar/{token}.ics"),
    ("POST", "/api/v1/tokens"),
    ("POST", "/api/v1/tokens/current/revoke"),
}

# Every other route, with the permission (rules/access.ACTIONS) it checks. Resolving a
# condition is guarded by the resolution's own permission (waive, not applicable, ...).
GUARDS: dict[tuple[str, str], str] = {
    ("POST", "/logout"): "read",
    ("GET", "/"): "read",
    ("GET", "/inbox"): "read",
    ("GET", "/queues"): "read",
    ("GET", "/queues/{department}"): "read",
    ("GET", "/applications"): "read",
    ("GET", "/applications/new"): "clock.open",
    ("POST", "/applications/new"): "clock.open",
    ("GET", "/applications/{application_id}"): "read",
    ("POST", "/applications/{application_id}/events/{name}"): "clock.*",
    ("GET", "/applications/{application_id}/notice"): "clock.notice",
    ("POST", "/applications/{application_id}/owner"): "clock.reassign",
    ("POST", "/applications/{application_id}/notice"): "clock.notice",
    ("GET", "/projects"): "read",
    ("GET", "/projects/import"): "project.import",
    ("POST", "/projects/import"): "project.import",
    ("GET", "/projects/import/{job_id}"): "project.import",
    ("POST", "/projects/import/{job_id}"): "project.import",
    ("GET", "/projects/{project_id}"): "read",
    ("GET", "/projects/{project_id}/conditions/{number}"): "read",
    ("POST", "/projects/{project_id}/conditions/{number}/{name}"): "condition.*",
    ("GET", "/evidence/{file_id}"): "read",
    ("GET", "/projects/{project_id}/milestones/{milestone}/sign-off"): "read",
    ("POST", "/projects/{project_id}/milestones/{milestone}/sign-off"): "project.sign_off",
    ("POST", "/projects/{project_id}/plan"): "project.plan",
    ("POST", "/projects/{project_id}/digest"): "project.digest",
    ("POST", "/projects/{project_id}/digest-pause"): "project.digest_pause",
    ("GET", "/outbox"): "read",
    ("GET", "/outbox/{notice_key:path}"): "read",
    ("GET", "/reports"): "read",
    ("GET", "/reports/all/{report}"): "read",
    ("GET", "/reports/all/{report}.{fmt}"): "read",
    ("GET", "/search"): "read",
    ("GET", "/projects/{project_id}/bulk"): "read",
    # Each selected condition is then judged by its own action's permission (refused items
    # are listed with the reason).
    ("POST", "/projects/{project_id}/bulk"): "read",
    ("GET", "/applications/{application_id}/record.pdf"): "read",
    ("GET", "/permits/{clock_id}/record.pdf"): "read",
    ("GET", "/projects/{project_id}/record.pdf"): "read",
    ("GET", "/api/v1/reports/{report}"): "read",
    ("GET", "/api/v1/search"): "read",
    ("POST", "/api/v1/conditions/bulk"): "read",
    ("GET", "/api/v1/webhooks"): "admin.webhooks",
    ("POST", "/api/v1/webhooks"): "admin.webhooks",
    ("POST", "/api/v1/webhooks/{subscription_id}/disable"): "admin.webhooks",
    ("GET", "/reports/{project_id}/{kind}.{fmt}"): "read",
    ("GET", "/admin/calendar"): "read",
    ("POST", "/admin/calendar/closures"): "admin.calendar",
    ("GET", "/admin/users"): "admin.users",
    ("GET", "/admin/jurisdictions"): "admin.jurisdictions",
    ("POST", "/admin/users/{user_id}/jurisdictions"): "admin.users",
    ("GET", "/admin/jurisdictions/new"): "admin.jurisdictions",
    ("POST", "/admin/jurisdictions/new"): "admin.jurisdictions",
    ("POST", "/admin/jurisdictions/import"): "admin.jurisdictions",
    ("GET", "/admin/jurisdictions/{key}"): "admin.jurisdictions",
    ("POST", "/admin/jurisdictions/{key}"): "admin.jurisdictions",
    ("GET", "/admin/jurisdictions/{key}/export"): "admin.jurisdictions",
    ("POST", "/admin/users"): "admin.users",
    ("POST", "/admin/users/{user_id}/disable"): "admin.users",
    ("GET", "/admin/rules"): "admin.rules",
    ("POST", "/admin/users/import"): "admin.users",
    ("GET", "/admin/import"): "admin.import",
    ("POST", "/admin/import"): "admin.import",
    ("GET", "/admin/import/templates/{name}"): "admin.import",
    ("GET", "/admin/import/{run_id}"): "admin.import",
    ("POST", "/admin/import/{run_id}/start"): "admin.import",
    ("GET", "/admin/import/{run_id}/errors.csv"): "admin.import",
    ("POST", "/api/v1/caseload/previews"): "admin.import",
    ("POST", "/api/v1/caseload/imports/{run_id}"): "admin.import",
    ("GET", "/api/v1/caseload/imports/{run_id}"): "admin.import",
    ("GET", "/api/v1/caseload/imports/{run_id}/errors.csv"): "admin.import",
    ("GET", "/api/v1/caseload/templates/{kind}"): "admin.import",
    ("POST", "/links"): "link.create",
    ("POST", "/links/{link_id}/revoke"): "link.revoke",
    ("GET", "/me"): "read",
    ("POST", "/me/calendar"): "read",
    ("POST", "/me/password"): "read",
    ("GET", "/me/tokens"): "account.tokens",
    ("POST", "/me/tokens"): "account.tokens",
    ("POST", "/me/tokens/{token_id}/revoke"): "account.tokens",
    ("GET", "/deadlines"): "read",
    ("GET", "/permits"): "read",
    ("GET", "/permits/new"): "permit.open",
    ("POST", "/permits/new"): "permit.open",
    ("GET", "/permits/{clock_id}"): "read",
    ("POST", "/permits/{clock_id}/events"): "permit.record",
    ("POST", "/permits/{clock_id}/owner"): "permit.reassign",
    # The JSON API.
    ("GET", "/api/v1/deadlines"): "read",
    ("GET", "/api/v1/permits"): "read",
    ("GET", "/api/v1/permits/{clock_id}"): "read",
    ("POST", "/api/v1/permits"): "permit.open",
    ("POST", "/api/v1/permits/{clock_id}/events"): "permit.record",
    ("POST", "/api/v1/permits/{clock_id}/rebase"): "clock.rebase",
    ("POST", "/api/v1/permits/{clock_id}/owner"): "permit.reassign",
    # A condition's time limits become permit clocks of the project.
    ("POST", "/api/v1/projects/{project_id}/time-limits"): "permit.open",
    ("GET", "/api/v1/me"): "read",
    ("GET", "/api/v1/inbox"): "read",
    ("GET", "/api/v1/applications"): "read",
    ("POST", "/api/v1/applications"): "clock.open",
    ("GET", "/api/v1/applications/{application_id}"): "read",
    ("GET", "/api/v1/applications/{application_id}/summary"): "read",
    ("POST", "/api/v1/applications/{application_id}/notice"): "clock.notice",
    ("POST", "/api/v1/applications/{application_id}/notice/preview"): "clock.notice",
    ("POST", "/api/v1/applications/{application_id}/resubmission"): "clock.resubmission",
    ("POST", "/api/v1/applications/{application_id}/tolling-agreement"): (
        "clock.tolling_agreement"
    ),
    ("POST", "/api/v1/applications/{application_id}/decision"): "clock.decision",
    ("POST", "/api/v1/applications/{application_id}/withdrawal"): "clock.withdrawal",
    ("POST", "/api/v1/applications/{application_id}/applicant-notice"): ("clock.applicant_notice"),
    ("POST", "/api/v1/applications/{application_id}/non-tolling-event"): (
        "clock.non_tolling_event"
    ),
    ("POST", "/api/v1/applications/{application_id}/closures"): "clock.closure",
    ("POST", "/api/v1/applications/{application_id}/rebase"): "clock.rebase",
    ("POST", "/api/v1/applications/{application_id}/owner"): "clock.reassign",
    ("GET", "/api/v1/projects"): "read",
    ("POST", "/api/v1/projects"): "project.import",
    ("POST", "/api/v1/resolutions"): "project.import",
    ("GET", "/api/v1/resolutions/{job_id}"): "project.import",
    ("POST", "/api/v1/resolutions/{job_id}/import"): "project.import",
    ("GET", "/api/v1/projects/{project_id}"): "read",
    ("GET", "/api/v1/projects/{project_id}/status"): "read",
    ("GET", "/api/v1/projects/{project_id}/owes"): "read",
    ("GET", "/api/v1/projects/{project_id}/milestones/{milestone}/blockers"): "read",
    ("GET", "/api/v1/projects/{project_id}/reports/{kind}"): "read",
    ("GET", "/api/v1/projects/{project_id}/conditions/{number}"): "read",
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/evidence"): (
        "condition.submit_evidence"
    ),
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/review"): "condition.review",
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/resolve"): "condition.resolve",
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/trigger"): "condition.trigger",
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/correct"): "condition.correct",
    ("POST", "/api/v1/projects/{project_id}/conditions/{number}/owner"): "condition.reassign",
    ("POST", "/api/v1/projects/{project_id}/milestones/{milestone}/sign-off"): ("project.sign_off"),
    ("POST", "/api/v1/projects/{project_id}/plan"): "project.plan",
    ("POST", "/api/v1/projects/{project_id}/digest"): "project.digest",
    ("POST", "/api/v1/projects/{project_id}/digest-pause"): "project.digest_pause",
    ("GET", "/api/v1/queues/{department}"): "read",
    ("GET", "/api/v1/outbox"): "read",
    ("POST", "/api/v1/links"): "link.create",
    ("POST", "/api/v1/links/{link_id}/revoke"): "link.revoke",
}


def app_routes(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) the app serves, through its included routers."""

    def walk(routes: Any, prefix: str = "") -> Any:
        for route in routes:
            if hasattr(route, "original_router"):  # an included router
                inner = getattr(route.include_context, "prefix", "") or ""
                yield from walk(route.original_router.routes, prefix + inner)
            elif getattr(route, "methods", None):
                for method in route.methods - {"HEAD"}:
                    yield method, prefix + route.path

    return set(walk(app.routes))


def test_every_route_says_what_guards_it(browser: Browser) -> None:
    served = app_routes(browser.client.app)  # type: ignore[arg-type]
    unlisted = sorted(served - set(GUARDS) - PUBLIC)
    assert not unlisted, (
        "routes with no entry in tests/web/test_matrix.py GUARDS (say which permission of "
        f"rules/access.py guards each, and check it in the route): {unlisted}"
    )
    assert not sorted((set(GUARDS) | PUBLIC) - served), "listed routes the app no longer serves"
    families = {g.split(".")[0] for g in GUARDS.values() if g.endswith(".*")}
    for permission in GUARDS.values():
        assert (
            permission in ACTIONS
            or permission == "condition.resolve"
            or (permission.endswith(".*") and permission[:-2] in families)
        ), permission
    # Every permission guards at least one route (or is a resolution's, via resolve).
    guarded = set(GUARDS.values())
    for action in ACTIONS:
        family = action.split(".")[0] + ".*"
        assert action in guarded or family in guarded or action.startswith("condition."), action


def _fill(path: str) -> str:
    """A concrete URL for a route (numbers fit every path parameter's type)."""
    return re.sub(r"\{([a-z_]+)(:path)?\}", "1", path)


def test_every_guarded_route_refuses_a_request_without_a_session(browser: Browser) -> None:
    client = browser.as_(None)
    for method, path in sorted(GUARDS):
        response = client.request(method, _fill(path), follow_redirects=False)
        if path.startswith("/api/"):
            assert response.status_code == 401, (method, path, response.status_code)
        else:
            # Pages send the visitor to log in (or refuse a form without its session).
            assert response.status_code in (303, 401, 403), (method, path, response.status_code)
            if response.status_code == 303:
                assert response.headers["location"].startswith("/login"), (method, path)


@pytest.fixture(scope="module")
def targets(stack: Stackish, web_settings: Settings, browser: Browser) -> dict[str, str]:
    project = stack.new_project("MX")
    accounts = Accounts(make_engine(web_settings.database_url))
    link = accounts.create_link("project", project, "pm@cotati.example", 30)
    permit = f"MX-BP-{project}"
    opened = browser.api(
        "pm@cotati.example",
        "POST",
        "/api/v1/permits",
        {
            "clock_id": permit,
            "rule": "building_permit_expiry",
            "events": [{"type": "approved", "date": city_today().isoformat()}],
        },
    )
    assert opened.status_code == 201, opened.text
    return {
        "project": project,
        "clock": stack.new_clock(days_ago=30),
        "link": link.link_id,
        "permit": permit,
    }


def api_calls(t: dict[str, str]) -> dict[str, tuple[str, str, Any]]:
    clock, pid = f"/api/v1/applications/{t['clock']}", f"/api/v1/projects/{t['project']}"
    item = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}
    later = (city_today() + timedelta(days=60)).isoformat()
    opened = {
        "application_id": f"MX-OPEN-{uuid.uuid4().hex[:8]}",
        "planner_email": "planner@cotati.example",
        "category": "macro_collocation",
    }
    resolution = {
        "title": "Matrix",
        "conditions": [
            {
                "number": "1",
                "department": "PLANNING",
                "text": "Pay fees.",
                "gates": ["grading_permit"],
            }
        ],
    }
    imported = {
        "project_id": f"MX-IMP-{uuid.uuid4().hex[:8]}",
        "name": "Matrix import",
        "project_manager_email": "pm@cotati.example",
        "applicant_email": "applicant@test.example",
        "resolution": resolution,
    }
    return {
        "clock.open": ("POST", "/api/v1/applications", opened),
        "project.import": ("POST", "/api/v1/projects", imported),
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
        "clock.rebase": ("POST", f"{clock}/rebase", {"reason": "matrix: current rules"}),
        "clock.reassign": ("POST", f"{clock}/owner", {"email": "pm@cotati.example"}),
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
        "condition.reassign": (
            "POST",
            f"{pid}/conditions/1/owner",
            {"email": "publicworks@cotati.example"},
        ),
        "project.plan": ("POST", f"{pid}/plan", {"grading_start": later}),
        "project.digest": ("POST", f"{pid}/digest", {}),
        "project.digest_pause": ("POST", f"{pid}/digest-pause", {"paused": True, "reason": "r"}),
        "project.sign_off": ("POST", f"{pid}/milestones/grading_permit/sign-off", None),
        "link.create": ("POST", "/api/v1/links", {"scope": "project", "scope_id": t["project"]}),
        "link.revoke": ("POST", f"/api/v1/links/{t['link']}/revoke", None),
        "permit.open": (
            "POST",
            "/api/v1/permits",
            {
                "clock_id": f"{t['permit']}-2",
                "rule": "building_permit_expiry",
                "events": [{"type": "approved", "date": city_today().isoformat()}],
            },
        ),
        "permit.record": (
            "POST",
            f"/api/v1/permits/{t['permit']}/events",
            {"type": "inspection", "date": city_today().isoformat(), "result": "failed"},
        ),
        "admin.import": ("GET", "/api/v1/caseload/templates/wireless", None),
        "admin.webhooks": ("GET", "/api/v1/webhooks", None),
        "permit.reassign": (
            "POST",
            f"/api/v1/permits/{t['permit']}/owner",
            {"email": "pm@cotati.example", "reason": "r"},
        ),
        "read": ("GET", pid, None),
    }


# Actions with no API endpoint of their own: admin pages (covered by the page matrix) and
# each user's own tokens (every staff role may: tests/cli/test_tokens.py).
PAGE_ONLY = {
    "admin.calendar",
    "admin.users",
    "admin.rules",
    "admin.jurisdictions",
    "account.tokens",
}


def test_every_action_is_exercised(targets: dict[str, str]) -> None:
    assert set(api_calls(targets)) | PAGE_ONLY == set(ACTIONS)
    # ... through the route that guards it.
    for action, (method, path, _) in api_calls(targets).items():
        template = next(
            (p for (m, p) in GUARDS if m == method and re.fullmatch(_pattern(p), path)), None
        )
        assert template is not None, (action, path)
        guard = GUARDS[(method, template)]
        assert guard in (action, "condition.resolve", "read"), (action, guard)


def _pattern(template: str) -> str:
    return re.sub(r"\\\{[a-z_]+(:path)?\\\}", "[^/]+", re.escape(template))


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
    "clock.open": "/applications/new",
    "clock.resubmission": "/applications/{clock}/events/resubmission",
    "clock.decision": "/applications/{clock}/events/decision",
    "clock.reassign": "/applications/{clock}/owner",
    "clock.notice": "/applications/{clock}/notice",
    "condition.submit_evidence": "/projects/{project}/conditions/1/submit-evidence",
    "condition.review": "/projects/{project}/conditions/1/review",
    "condition.trigger": "/projects/{project}/conditions/4/trigger",
    "condition.correct": "/projects/{project}/conditions/3/correct",
    "condition.reassign": "/projects/{project}/conditions/1/owner",
    "project.sign_off": "/projects/{project}/milestones/grading_permit/sign-off",
    "project.plan": "/projects/{project}/plan",
    "project.digest": "/projects/{project}/digest",
    "project.digest_pause": "/projects/{project}/digest-pause",
    "project.import": "/projects/import",
    "link.create": "/links",
    "link.revoke": "/links/{link}/revoke",
    "admin.calendar": "/admin/calendar/closures",
    "admin.users": "/admin/users",
    "admin.import": "/admin/import",
    "permit.open": "/permits/new",
    "permit.record": "/permits/{permit}/events",
    "permit.reassign": "/permits/{permit}/owner",
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
    condition = client.get(f"/projects/{targets['project']}/conditions/1").text
    assert ('data-testid="owner-submit"' in condition) == allowed(role, "condition.reassign")
