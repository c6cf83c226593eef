"""Safer actions: decisions, withdrawals and sign-offs are confirmed first; no outcome is
chosen for the user; a page offers only the forms that apply to the record, the role and
the department."""

from __future__ import annotations

import re

from tests.web.helpers import Browser, Stackish, csrf_of

PM = "pm@cotati.example"
PLANNING = "planning@cotati.example"
PUBLIC_WORKS = "publicworks@cotati.example"


def forms(html: str) -> set[str]:
    return set(re.findall(r'action="/applications/[^/]+/events/([a-z-]+)"', html))


def test_a_decision_is_confirmed_and_has_no_default_outcome(
    browser: Browser, stack: Stackish
) -> None:
    app_id = stack.new_clock(days_ago=20)
    pm = browser.as_(PM)
    page = pm.get(f"/applications/{app_id}").text
    select = re.search(r'<select name="outcome".*?</select>', page, re.S)[0]
    # The first, selected option is a prompt that cannot be submitted.
    assert re.search(r'<option value="" selected disabled>', select)
    assert "required" in select
    token = csrf_of(page)
    url = f"/applications/{app_id}/events/decision"
    # Without an outcome: refused, nothing recorded.
    missing = pm.post(url, data={"csrf_token": token, "date": ""})
    assert missing.status_code == 400 and "there is no default" in missing.text
    # With one: a confirmation page that says what it does; nothing recorded yet.
    confirm = pm.post(url, data={"csrf_token": token, "outcome": "denied", "note": "n"})
    assert confirm.status_code == 200 and 'data-testid="confirm-panel"' in confirm.text
    assert "Confirm: record the decision (denied)" in confirm.text
    assert "The clock stops for good" in confirm.text
    assert browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()["status"] == "running"
    done = pm.post(
        url,
        data={"csrf_token": token, "outcome": "denied", "note": "n", "confirmed": "yes"},
    )
    assert done.status_code == 200 and 'class="flash ok"' in done.text
    assert "decided on time" in done.text
    # A closed clock offers no forms at all.
    assert forms(pm.get(f"/applications/{app_id}").text) == set()


def test_a_withdrawal_is_confirmed(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=5)
    pm = browser.as_(PM)
    token = csrf_of(pm.get(f"/applications/{app_id}").text)
    url = f"/applications/{app_id}/events/withdrawal"
    confirm = pm.post(url, data={"csrf_token": token})
    assert "Confirm: record the withdrawal" in confirm.text
    assert 'data-testid="confirm-cancel"' in confirm.text
    done = pm.post(url, data={"csrf_token": token, "confirmed": "yes"})
    assert 'class="flash ok"' in done.text and "withdrawn" in done.text


def test_forms_follow_the_clock(browser: Browser, stack: Stackish) -> None:
    pm = browser.as_(PM)
    running = stack.new_clock(days_ago=5)
    page = pm.get(f"/applications/{running}").text
    assert 'data-testid="open-notice-builder"' in page
    assert "resubmission" not in forms(page)  # nothing outstanding to answer
    # A California non-EFR application: no deemed-granted choice at all.
    kinds = re.search(
        r'<select name="kind" required data-testid="applicant-notice-kind">.*?</select>', page, re.S
    )[0]
    assert "deemed_granted_notice" not in kinds and "deemed_approved_notice" in kinds

    efr = stack.new_clock(category="eligible_facilities_request", days_ago=5)
    kinds = re.findall(
        r'<option value="(\w+)">',
        re.search(
            r'data-testid="applicant-notice-kind">.*?</select>',
            pm.get(f"/applications/{efr}").text,
            re.S,
        )[0],
    )
    assert kinds == ["deemed_granted_notice"]

    expired = stack.new_clock(days_ago=120)
    page = pm.get(f"/applications/{expired}").text
    assert 'data-testid="open-notice-builder"' not in page
    assert "resubmission" not in forms(page)
    assert {"decision", "withdrawal"} <= forms(page)
    assert "The clock has expired" in page


def test_a_reviewer_of_another_department_sees_no_clear_or_return(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("DEP")
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    theirs = browser.as_(PLANNING).get(f"/projects/{pid}/conditions/1").text
    assert 'data-testid="review-clear"' not in theirs
    assert "Public Works / Engineering reviews this condition" in theirs
    mine = browser.as_(PUBLIC_WORKS).get(f"/projects/{pid}/conditions/1").text
    assert 'data-testid="review-clear"' in mine and 'data-testid="review-return"' in mine
