"""Every clock has an owner who can log in, and staff hand it on: the new planner is on
the application's page and in the read model; someone who cannot log in is refused."""

from __future__ import annotations

from tests.web.helpers import Browser, Stackish, csrf_of

PM = "pm@cotati.example"


def test_a_wireless_application_is_handed_to_another_planner(
    browser: Browser, stack: Stackish
) -> None:
    app_id = stack.new_clock(prefix="OWN")
    client = browser.as_(PM)
    page = client.get(f"/applications/{app_id}")
    token = csrf_of(page.text)
    refused = client.post(
        f"/applications/{app_id}/owner", data={"csrf_token": token, "email": "nobody@x.example"}
    )
    assert refused.status_code == 400
    assert "nobody@x.example is not a user who can log in" in refused.text
    done = client.post(
        f"/applications/{app_id}/owner",
        data={"csrf_token": token, "email": "manager@cotati.example"},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    page = client.get(f"/applications/{app_id}").text
    assert 'data-testid="application-planner">manager@cotati.example<' in page


def test_a_condition_names_an_owner_who_can_log_in(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("COW")
    client = browser.as_(PM)
    # #1 is cleared by Public Works / Engineering: the reviewer the city's data names owns
    # it, and that reviewer has an account.
    page = client.get(f"/projects/{pid}/conditions/1").text
    assert 'data-testid="condition-owner" data-email="engineering@cotati.example"' in page
    # The owner is the reviewer whose inbox lists it once evidence arrives.
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    inbox = browser.api("engineering@cotati.example", "GET", "/api/v1/inbox").json()["items"]
    assert any(i["title"] == f"{pid} condition #1" for i in inbox)


def test_a_named_reviewer_without_an_account_is_not_the_owner(stack: Stackish) -> None:
    from sqlalchemy import select

    from models.database import make_engine, session_factory
    from models.schema import User
    from web.queries.readmodel import condition_owner

    engine = make_engine(stack.settings.database_url)
    with session_factory(engine)() as s:
        # The department's own reviewer account owns it instead.
        owner = condition_owner(s, "left.the.city@cotati.example", "engineering")
        user = s.scalars(select(User).where(User.email == owner)).one()
        assert (user.active, user.role, user.department) == (
            True,
            "department_reviewer",
            "engineering",
        )
        assert condition_owner(s, "", "no_such_department") == ""
    engine.dispose()


def test_the_project_manager_hands_a_condition_to_another_reviewer(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("CRE")
    page_url = f"/projects/{pid}/conditions/1"
    # A reviewer may not hand it on (only the project manager or an administrator).
    refused = browser.api(
        "publicworks@cotati.example",
        "POST",
        f"/api/v1/projects/{pid}/conditions/1/owner",
        {"email": "publicworks@cotati.example"},
    )
    assert refused.status_code == 403
    client = browser.as_(PM)
    page = client.get(page_url).text
    assert 'data-testid="owner-submit"' in page
    token = csrf_of(page)
    # Someone of another department cannot review it: refused in one line, nothing kept.
    wrong = client.post(
        f"{page_url}/owner", data={"csrf_token": token, "email": "planning@cotati.example"}
    )
    assert wrong.status_code == 409, wrong.text
    assert "planning@cotati.example cannot review condition #1" in wrong.text
    done = client.post(
        f"{page_url}/owner",
        data={"csrf_token": token, "email": "publicworks@cotati.example", "reason": "on leave"},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    page = client.get(page_url).text
    assert 'data-testid="condition-owner" data-email="publicworks@cotati.example"' in page
    assert "chosen by the project manager" in page
    assert "→ publicworks@cotati.example" in page and "on leave" in page  # the history
    # Evidence arrives: the owner's inbox names it as theirs; a colleague of the
    # department still has it in the department's queue, with its owner named.
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    title = f"{pid} condition #1"
    mine = browser.api("publicworks@cotati.example", "GET", "/api/v1/inbox").json()["items"]
    item = next(i for i in mine if i["title"] == title)
    assert (item["owner"], item["badge"].startswith("yours")) == (
        "publicworks@cotati.example",
        True,
    )
    theirs = browser.api("engineering@cotati.example", "GET", "/api/v1/inbox").json()["items"]
    item = next(i for i in theirs if i["title"] == title)
    assert "Owner: publicworks@cotati.example." in item["why"]
    assert not item["badge"].startswith("yours")


def test_a_condition_is_handed_on_through_the_api(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("CRA")
    path = f"/api/v1/projects/{pid}/conditions/1/owner"
    nobody = browser.api(PM, "POST", path, {"email": "nobody@x.example"})
    assert nobody.status_code == 409
    assert "nobody@x.example is not a user who can log in" in nobody.json()["error"]
    done = browser.api(PM, "POST", path, {"email": "admin@cotati.example", "reason": "escalated"})
    assert done.status_code == 200, done.text
    again = browser.api(PM, "POST", path, {"email": "admin@cotati.example"})
    assert again.status_code == 409
    assert "already with admin@cotati.example" in again.json()["error"]
    shown = browser.api(PM, "GET", f"/api/v1/projects/{pid}/conditions/1").json()
    assert shown["owner_email"] == "admin@cotati.example"
    assert any(h["action"] == "reassigned" and h["reason"] == "escalated" for h in shown["history"])


def test_a_person_of_another_city_is_not_handed_this_citys_records(
    browser: Browser, stack: Stackish
) -> None:
    """Someone who works only in another city would never see the record (their scope
    hides it): handing it to them is refused in one line, and the owner stays."""
    from models.database import make_engine, session_factory
    from tests.web.standalone import PASSWORD
    from web.auth.accounts import Accounts
    from web.queries.scope import grant

    elsewhere = "elsewhere.planner@sebastopol.example"
    engine = make_engine(stack.settings.database_url)
    accounts = Accounts(engine)
    if accounts.get_user(elsewhere) is None:
        user = accounts.add_user(elsewhere, "planning_manager", PASSWORD)
        grant(session_factory(engine), user.id, "sebastopol", "planning_manager")
    app_id = stack.new_clock(prefix="OWC")
    client = browser.as_(PM)
    token = csrf_of(client.get(f"/applications/{app_id}").text)
    refused = client.post(
        f"/applications/{app_id}/owner", data={"csrf_token": token, "email": elsewhere}
    )
    assert refused.status_code == 400
    assert f"{elsewhere} holds no role in cotati" in refused.text
    pid = stack.new_project("COC")
    answer = browser.api(
        PM, "POST", f"/api/v1/projects/{pid}/conditions/1/owner", {"email": elsewhere}
    )
    assert answer.status_code == 400, answer.text
    assert f"{elsewhere} holds no role in cotati" in answer.json()["error"]
