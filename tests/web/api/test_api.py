"""The JSON API drives every action through the real workflows (dev server + worker):
success changes what the pages read, a validator's refusal comes back as 409 with its
words, and nothing is recorded when an action is refused."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from models.database import make_engine, session_factory
from models.schema import Notice
from settings import Settings
from tests.web.helpers import Browser, Stackish, city_today

PM = "pm@cotati.example"
ENGINEER = "engineer@cotati.example"
PUBLIC_WORKS = "publicworks@cotati.example"  # reviews engineering's conditions
PLANNING = "planning@cotati.example"  # reviews planning's conditions
MANAGER = "manager@cotati.example"
ADMIN = "admin@cotati.example"
ITEM = {"id": "A", "text": "RF emissions compliance report", "rule": "CMC 17.44.070(A)"}


def _notices(settings: Settings, application_id: str) -> int:
    with session_factory(make_engine(settings.database_url))() as s:
        return (
            s.scalar(
                select(func.count())
                .select_from(Notice)
                .where(Notice.application_id == application_id)
            )
            or 0
        )


def test_notice_then_resubmission(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    app_id = stack.new_clock("macro_collocation", days_ago=10)
    before = browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()

    preview = browser.api(
        PM, "POST", f"/api/v1/applications/{app_id}/notice/preview", {"items": [ITEM]}
    )
    assert preview.status_code == 200, preview.text
    assert "RF emissions compliance report" in preview.json()["text"]
    assert "Municipal Code § 17.44.070(A)" in preview.json()["text"]
    assert preview.json()["after"]["status"] == "tolled"

    notice_day = (city_today() - timedelta(days=5)).isoformat()
    sent = browser.api(
        PM,
        "POST",
        f"/api/v1/applications/{app_id}/notice",
        {"items": [ITEM], "date": notice_day},
    )
    assert sent.status_code == 200, sent.text
    assert sent.json()["clock"]["status"] == "tolled"
    page = browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()
    assert page["status"] == "tolled"  # the read model already shows it
    assert [e["type"] for e in page["events"]] == ["submitted", "incomplete_notice"]
    assert page["events"][1]["recorded_by"] == PM

    back = browser.api(PM, "POST", f"/api/v1/applications/{app_id}/resubmission", {})
    assert back.status_code == 200, back.text
    after = back.json()["clock"]
    assert after["status"] == "running"
    assert after["shot_clock_date"] > before["shot_clock_date"]  # tolled days were added


def test_defective_notice_is_refused_before_it_goes_out(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    app_id = stack.new_clock("macro_collocation", days_ago=5)
    no_rule = {"id": "A", "text": "Photo simulations", "rule": ""}
    for path in ("notice/preview", "notice"):
        refused = browser.api(
            PM, "POST", f"/api/v1/applications/{app_id}/{path}", {"items": [no_rule]}
        )
        assert refused.status_code == 409, refused.text
        assert "cites no rule" in refused.json()["error"]
        assert "47 CFR 1.6003(d)" in refused.json()["error"]
    assert _notices(web_settings, app_id) == 0
    state = browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()
    assert state["status"] == "running" and len(state["events"]) == 1


def test_tolling_decision_and_records(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock("macro_collocation", days_ago=20)
    base = browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()["shot_clock_date"]
    tolled = browser.api(
        MANAGER, "POST", f"/api/v1/applications/{app_id}/tolling-agreement", {"days": 30}
    )
    assert tolled.status_code == 200, tolled.text
    assert tolled.json()["clock"]["shot_clock_date"] > base

    bad = browser.api(
        PM,
        "POST",
        f"/api/v1/applications/{app_id}/tolling-agreement",
        {"days": 3, "new_date": "2030-01-01"},
    )
    assert bad.status_code == 400 and "either days or" in bad.json()["error"]

    hearing = browser.api(
        PM, "POST", f"/api/v1/applications/{app_id}/non-tolling-event", {"kind": "hearing_notice"}
    )
    assert hearing.status_code == 200, hearing.text
    assert hearing.json()["clock"]["shot_clock_date"] == tolled.json()["clock"]["shot_clock_date"]

    future = (city_today() + timedelta(days=5)).isoformat()
    refused = browser.api(
        PM,
        "POST",
        f"/api/v1/applications/{app_id}/decision",
        {"outcome": "approved", "date": future},
    )
    assert refused.status_code == 409 and "in the future" in refused.json()["error"]

    decided = browser.api(
        PM, "POST", f"/api/v1/applications/{app_id}/decision", {"outcome": "approved"}
    )
    assert decided.status_code == 200, decided.text
    assert decided.json()["clock"]["status"] == "decided_on_time"

    closed = browser.api(PM, "POST", f"/api/v1/applications/{app_id}/withdrawal", {})
    assert closed.status_code in (404, 409)
    assert "closed" in closed.json()["error"]


def test_withdrawal_applicant_notice_and_closure(browser: Browser, stack: Stackish) -> None:
    first = stack.new_clock("macro_collocation", days_ago=3)
    withdrawn = browser.api(
        PM, "POST", f"/api/v1/applications/{first}/withdrawal", {"note": "by letter"}
    )
    assert withdrawn.status_code == 200 and withdrawn.json()["clock"]["status"] == "withdrawn"

    efr = stack.new_clock("macro_collocation", days_ago=100)
    wrong = browser.api(
        PM,
        "POST",
        f"/api/v1/applications/{efr}/applicant-notice",
        {"kind": "deemed_granted_notice"},
    )
    assert wrong.status_code == 409 and "eligible facilities" in wrong.json()["error"]
    notice = browser.api(
        PM,
        "POST",
        f"/api/v1/applications/{efr}/applicant-notice",
        {"kind": "deemed_approved_notice"},
    )
    assert notice.status_code == 200, notice.text

    other = stack.new_clock("macro_collocation", days_ago=3)
    day = (city_today() + timedelta(days=40)).isoformat()
    added = browser.api(ADMIN, "POST", f"/api/v1/applications/{other}/closures", {"date": day})
    assert added.status_code == 200, added.text
    again = browser.api(ADMIN, "POST", f"/api/v1/applications/{other}/closures", {"date": day})
    assert again.status_code == 409 and "already a local closure" in again.json()["error"]


def test_condition_actions_and_sign_off(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project()
    base = f"/api/v1/projects/{pid}"

    refused = browser.api(ENGINEER, "POST", f"{base}/milestones/grading_permit/sign-off")
    assert refused.status_code == 409
    assert "2 condition(s) still open" in refused.json()["error"]
    assert "#1" in refused.json()["error"] and "#2" in refused.json()["error"]

    submitted = browser.api(
        PM,
        "POST",
        f"{base}/conditions/1/evidence",
        {"description": "Erosion plan rev B", "filename": "plan.pdf"},
    )
    assert submitted.status_code == 200, submitted.text
    assert submitted.json()["condition"]["status"] == "submitted"

    wrong_dept = browser.api(
        PLANNING, "POST", f"{base}/conditions/1/review", {"decision": "cleared"}
    )
    assert wrong_dept.status_code == 409 and "is not its reviewer" in wrong_dept.json()["error"]
    returned = browser.api(
        PUBLIC_WORKS, "POST", f"{base}/conditions/1/review", {"decision": "returned"}
    )
    assert returned.status_code == 409 and "needs a comment" in returned.json()["error"]
    cleared = browser.api(
        PUBLIC_WORKS,
        "POST",
        f"{base}/conditions/1/review",
        {"decision": "cleared", "comment": "ok"},
    )
    assert cleared.status_code == 200, cleared.text

    no_reason = browser.api(
        MANAGER, "POST", f"{base}/conditions/2/resolve", {"resolution": "waived", "reason": " "}
    )
    assert no_reason.status_code == 409 and "needs a reason" in no_reason.json()["error"]
    waived = browser.api(
        MANAGER,
        "POST",
        f"{base}/conditions/2/resolve",
        {"resolution": "waived", "reason": "Fees paid under the development agreement"},
    )
    assert waived.status_code == 200, waived.text

    triggered = browser.api(
        PM, "POST", f"{base}/conditions/4/trigger", {"reason": "Bones found on site"}
    )
    assert triggered.status_code == 200 and triggered.json()["condition"]["status"] == "open"
    corrected = browser.api(
        PM,
        "POST",
        f"{base}/conditions/5/correct",
        {"reason": "Printed under the wrong heading", "department_key": "building"},
    )
    assert corrected.status_code == 200, corrected.text

    target = (city_today() + timedelta(days=30)).isoformat()
    planned = browser.api(
        PM, "POST", f"{base}/plan", {"milestone_targets": {"grading_permit": target}}
    )
    assert planned.status_code == 200, planned.text
    digest = browser.api(PM, "POST", f"{base}/digest", {})
    assert digest.status_code == 200 and "digest sent" in digest.json()["message"]

    signed = browser.api(ENGINEER, "POST", f"{base}/milestones/grading_permit/sign-off")
    assert signed.status_code == 200, signed.text
    project = browser.api(ENGINEER, "GET", base).json()
    assert [s["milestone"] for s in project["signoffs"]] == ["grading_permit"]
    condition = browser.api(ENGINEER, "GET", f"{base}/conditions/1").json()
    assert [h["action"] for h in condition["history"]][-2:] == [
        "evidence_submitted",
        "review_cleared",
    ]


def test_links_and_reads(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project()
    made = browser.api(
        PM, "POST", "/api/v1/links", {"scope": "project", "scope_id": pid, "email": "a@b.example"}
    )
    assert made.status_code == 201, made.text
    link = made.json()
    assert link["state"] == "active" and link["url"].startswith("http://testserver/a/")
    unknown = browser.api(PM, "POST", "/api/v1/links", {"scope": "project", "scope_id": "NOPE"})
    assert unknown.status_code == 400 and "no project" in unknown.json()["error"]
    revoked = browser.api(PM, "POST", f"/api/v1/links/{link['link_id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"

    assert browser.api(PM, "GET", "/api/v1/projects?q=" + pid).json()["total"] == 1
    # `%` and `_` are searched for as typed, not as LIKE's wildcards.
    underscored = stack.new_project("UNDER_SCORE")
    for typed, q in (("%", "%25"), ("_", "_")):
        listed = browser.api(PM, "GET", "/api/v1/projects?q=" + q)
        assert listed.headers["cache-control"] == "no-store"
        found = [p["project_id"] + p["name"] for p in listed.json()["items"]]
        assert all(typed in text for text in found), found
    assert any(underscored in text for text in found)
    filtered = browser.api(PM, "GET", f"/api/v1/projects/{pid}?department=planning").json()
    assert {c["number"] for c in filtered["conditions"]} == {"2", "3"}
    assert browser.api(PM, "GET", "/api/v1/queues/engineering").status_code == 200
    assert browser.api(PM, "GET", "/api/v1/outbox").status_code == 200
    assert browser.api(PM, "GET", "/api/v1/applications").json()["total"] >= 1
    assert browser.api(PM, "GET", "/api/v1/queues/nowhere").status_code == 404


def test_rebase_is_for_administrators_and_audited(browser: Browser, stack: Stackish) -> None:
    # shot-clocks.md 8.9: an explicit, audited rebase applies the current data.
    app_id = stack.new_clock("macro_collocation", days_ago=10)
    path = f"/api/v1/applications/{app_id}/rebase"
    refused = browser.api(PM, "POST", path, {"reason": "the calendar was corrected"})
    assert refused.status_code == 403, refused.text
    empty = browser.api(ADMIN, "POST", path, {"reason": "  "})
    assert empty.status_code == 400 and "reason" in empty.text
    done = browser.api(ADMIN, "POST", path, {"reason": "the calendar was corrected"})
    assert done.status_code == 200, done.text
    assert done.json()["event_id"] == "rebase-1"
    (line,) = [e for e in done.json()["clock"]["ledger"] if e["event"] == "rebase"]
    assert ADMIN in line["effect"] and "the calendar was corrected" in line["effect"]


def test_openapi_lists_every_action(browser: Browser) -> None:
    spec = browser.as_(None).get("/openapi.json").json()
    paths = set(spec["paths"])
    for path in (
        "/api/v1/applications/{application_id}/notice",
        "/api/v1/applications/{application_id}/resubmission",
        "/api/v1/applications/{application_id}/tolling-agreement",
        "/api/v1/applications/{application_id}/decision",
        "/api/v1/applications/{application_id}/withdrawal",
        "/api/v1/applications/{application_id}/applicant-notice",
        "/api/v1/applications/{application_id}/non-tolling-event",
        "/api/v1/applications/{application_id}/closures",
        "/api/v1/applications/{application_id}/rebase",
        "/api/v1/projects/{project_id}/conditions/{number}/evidence",
        "/api/v1/projects/{project_id}/conditions/{number}/review",
        "/api/v1/projects/{project_id}/conditions/{number}/resolve",
        "/api/v1/projects/{project_id}/conditions/{number}/trigger",
        "/api/v1/projects/{project_id}/conditions/{number}/correct",
        "/api/v1/projects/{project_id}/milestones/{milestone}/sign-off",
        "/api/v1/projects/{project_id}/plan",
        "/api/v1/projects/{project_id}/digest",
        "/api/v1/links",
        "/api/v1/links/{link_id}/revoke",
    ):
        assert path in paths, path
    assert not any(p.startswith("/projects") for p in paths)  # pages stay out of the API
    assert browser.as_(None).get("/api/docs").status_code == 200


def test_bearer_tokens(browser: Browser, web_settings: Settings) -> None:
    from web.auth.accounts import Accounts

    token = Accounts(make_engine(web_settings.database_url)).new_api_token(ENGINEER, "ci")
    client = browser.as_(None)
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["role"] == "engineering"
    # A bearer token needs no CSRF header, and the role still decides.
    refused = client.post(
        "/api/v1/links",
        json={"scope": "project", "scope_id": "x"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert (
        refused.status_code == 403 and "may not create an applicant link" in refused.json()["error"]
    )
    bad = client.get("/api/v1/me", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401


def test_a_nul_in_the_url_is_bad_input_not_a_server_error(browser: Browser) -> None:
    # PostgreSQL refuses a NUL in any query; the app names it instead of failing.
    for url in ("/api/v1/outbox?state=%00", "/api/v1/projects?q=a%00b"):
        response = browser.api(PM, "GET", url)
        assert response.status_code == 400, url
        assert "NUL" in response.text


INJECTION = "a@b.example\r\nBcc: x@y.example"


def test_an_address_that_would_add_a_recipient_is_refused_naming_the_field(
    browser: Browser, stack: Stackish
) -> None:
    """The shot clock, a permit clock, a project's import and an applicant link: each
    answers 400 naming the field, and nothing is opened."""
    app_id = f"API-ADDR-{city_today().toordinal()}"
    opened = browser.api(
        MANAGER,
        "POST",
        "/api/v1/applications",
        {
            "application_id": app_id,
            "planner_email": "planner@cotati.example",
            "category": "macro_collocation",
            "applicant_email": INJECTION,
        },
    )
    assert opened.status_code == 400, opened.text
    error = opened.json()["error"]
    assert error.startswith("applicant_email: ") and "is not a valid e-mail address" in error
    assert "\n" not in error
    summary = browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary")
    assert summary.status_code == 404

    planner = browser.api(
        MANAGER,
        "POST",
        "/api/v1/applications",
        {"application_id": app_id, "planner_email": INJECTION, "category": "macro_collocation"},
    )
    assert planner.status_code == 400 and planner.json()["error"].startswith("planner_email: ")

    permit = browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": f"BP-ADDR-{city_today().toordinal()}",
            "rule": "building_permit_expiry",
            "jurisdiction": "cotati",
            "events": [{"type": "approved", "date": city_today().isoformat()}],
            "applicant_email": INJECTION,
        },
    )
    assert permit.status_code == 400, permit.text
    assert permit.json()["error"].startswith("applicant_email: ")

    pid = stack.new_project()
    link = browser.api(
        PM, "POST", "/api/v1/links", {"scope": "project", "scope_id": pid, "email": INJECTION}
    )
    assert link.status_code == 400 and link.json()["error"].startswith("email: ")
