"""Each role's "What needs you": the items, their next action and why, ranked by date."""

from __future__ import annotations

import re
from datetime import timedelta

from tests.web.helpers import Browser, Stackish, city_today, csrf_of
from web.queries.inbox import INBOX_CAP, Inbox
from web.views.present import human_date

PM = "pm@cotati.example"
ENGINEER = "engineer@cotati.example"
PUBLIC_WORKS = "publicworks@cotati.example"
ATTORNEY = "attorney@cotati.example"


def items(browser: Browser, email: str) -> list[dict]:
    response = browser.api(email, "GET", "/api/v1/inbox")
    assert response.status_code == 200, response.text
    return response.json()["items"]


def test_the_api_inbox_says_whether_it_holds_only_the_nearest_items(browser: Browser) -> None:
    body = browser.api(PM, "GET", "/api/v1/inbox").json()
    # Other tests share the city, so its size is not known here: the flag is there and
    # the list never passes the cap.
    assert isinstance(body["capped"], bool)
    assert len(body["items"]) <= INBOX_CAP
    assert Inbox([], ["x"], capped=True).to_json()["capped"] is True


def test_planner_sees_closing_notice_windows_and_clocks_near_their_date(
    browser: Browser, stack: Stackish
) -> None:
    fresh = stack.new_clock(days_ago=25)  # the 30-day notice window closes in 5 days
    near = stack.new_clock(days_ago=85)  # a 90-day clock: 5 days left
    mine = items(browser, PM)
    window = next(i for i in mine if i["kind"] == "notice_window" and fresh in i["title"])
    closes = (city_today() + timedelta(days=5)).isoformat()
    assert window["due"] == closes and window["days_left"] == 5
    assert window["urgency"] == "urgent"
    assert window["action_href"] == f"/applications/{fresh}/notice"
    assert human_date(closes) in window["why"]
    clock = next(i for i in mine if i["kind"] == "clock" and near in i["title"])
    assert clock["action"] == "Record the decision"
    assert "earliest reading of the law" in clock["why"]
    # Ranked by date: no item is listed before one that is due earlier.
    dues = [i["due"] for i in mine if i["due"]]
    assert dues == sorted(dues)
    # The page shows the same, each with its next action as a link.
    html = browser.as_(PM).get("/").text
    assert f'href="/applications/{fresh}/notice" data-testid="inbox-action"' in html
    assert human_date(closes) in html


def test_reviewer_sees_their_department_with_service_level_badges(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("INB")
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/2/evidence", {"description": "d"})
    reviews = [i for i in items(browser, PUBLIC_WORKS) if pid in i["title"]]
    # #1 is Public Works'; #2 is Planning's and not in this reviewer's inbox.
    assert [i["title"] for i in reviews] == [f"{pid} condition #1"]
    review = reviews[0]
    assert review["kind"] == "review" and review["badge"].startswith("service level: in ")
    assert "within 10 business days" in review["why"]
    assert review["action_href"] == f"/projects/{pid}/conditions/1#review"


def test_engineering_and_the_project_manager_see_the_most_urgent_milestone(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("MIL")
    target = (city_today() + timedelta(days=20)).isoformat()
    response = browser.api(
        PM,
        "POST",
        f"/api/v1/projects/{pid}/plan",
        {"milestone_targets": {"building_permit": target}},
    )
    assert response.status_code == 200, response.text
    stack_project = browser.api(PM, "GET", f"/api/v1/projects/{pid}").json()
    # The dated milestone comes first, though the grading permit is earlier in order.
    assert stack_project["next_milestone"] == "building_permit"
    assert stack_project["next_milestone_target"] == target
    pm_item = next(i for i in items(browser, PM) if pid in i["href"])
    assert pm_item["due"] == target and "1 condition still block" in pm_item["why"]
    engineer = [i for i in items(browser, ENGINEER) if pid in i["href"]]
    assert engineer and engineer[0]["kind"] == "milestone" and engineer[0]["due"] == target
    assert engineer[0]["action_href"].endswith("/milestones/building_permit/sign-off#blockers")


def test_engineering_is_told_when_a_milestone_awaits_sign_off(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("RDY")
    for number in ("1", "2"):
        browser.api(
            "manager@cotati.example",
            "POST",
            f"/api/v1/projects/{pid}/conditions/{number}/resolve",
            {"resolution": "waived", "reason": "Covered by the development agreement"},
        )
    ready = [i for i in items(browser, ENGINEER) if pid in i["href"] and i["kind"] == "signoff"]
    assert [i["action_href"] for i in ready] == [
        f"/projects/{pid}/milestones/grading_permit/sign-off"
    ]
    assert ready[0]["badge"] == "awaiting sign-off"


def test_attorney_sees_deemed_approval_risks(browser: Browser, stack: Stackish) -> None:
    late = stack.new_clock(days_ago=120)  # a 90-day clock, a month past its date
    risks = [i for i in items(browser, ATTORNEY) if late in i["title"]]
    assert risks and risks[0]["kind"] == "risk" and risks[0]["urgency"] == "expired"
    assert "deemed-approval risk" in risks[0]["why"]
    # Nobody else's role list leaks in: the attorney has no review or sign-off items.
    assert {i["kind"] for i in items(browser, ATTORNEY)} <= {"risk", "judicial_review"}
    html = browser.as_(ATTORNEY).get("/").text
    assert re.search(r"City attorney.*deemed-approval risks", html, re.S)
    assert csrf_of(html)
