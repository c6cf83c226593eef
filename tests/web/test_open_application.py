"""Opening a wireless application in the web app: the form, refusals in the form's own
words with what was typed kept and nothing stored, and the new clock's page."""

from __future__ import annotations

import uuid
from datetime import timedelta

from tests.web.helpers import Browser, city_today, csrf_of

MANAGER = "manager@cotati.example"
ENGINEER = "engineer@cotati.example"


def form(browser: Browser, **values: str) -> dict[str, str]:
    token = csrf_of(browser.as_(MANAGER).get("/applications/new").text)
    return {
        "csrf_token": token,
        "application_id": values.pop("application_id", f"WEB-{uuid.uuid4().hex[:8]}"),
        "category": "macro_collocation",
        "planner_email": "planner@cotati.example",
        "submitted": (city_today() - timedelta(days=3)).isoformat(),
        "site_address": "201 W Sierra Ave",
        "applicant_email": "siteacq@carrier.example",
        **values,
    }


def stored(browser: Browser, app_id: str) -> bool:
    response = browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary")
    return response.status_code == 200


def test_the_form_offers_the_citys_defaults(browser: Browser) -> None:
    client = browser.as_(MANAGER)
    listing = client.get("/applications").text
    assert 'data-testid="open-application"' in listing
    page = client.get("/applications/new").text
    assert 'data-testid="open-form"' in page
    assert f'value="{city_today().isoformat()}"' in page  # submitted: today in the city
    assert 'value="30, 14, 7, 3, 1"' in page  # the jurisdiction's reminder offsets
    assert "Macro collocation" in page or "macro" in page.lower()


def test_refusals_are_shown_in_the_form_and_nothing_is_stored(browser: Browser) -> None:
    client = browser.as_(MANAGER)
    app_id = f"WEB-{uuid.uuid4().hex[:8]}"
    bad_category = client.post(
        "/applications/new", data=form(browser, application_id=app_id, category="small_cell")
    )
    assert bad_category.status_code == 400
    assert 'data-testid="flash-error"' in bad_category.text
    assert "small_cell" in bad_category.text
    assert f'value="{app_id}"' in bad_category.text  # what was typed is kept
    assert 'value="201 W Sierra Ave"' in bad_category.text

    future = (city_today() + timedelta(days=2)).isoformat()
    in_future = client.post(
        "/applications/new", data=form(browser, application_id=app_id, submitted=future)
    )
    assert in_future.status_code == 400 and "in the future" in in_future.text

    no_planner = client.post(
        "/applications/new", data=form(browser, application_id=app_id, planner_email="nobody")
    )
    assert no_planner.status_code == 400 and "planner_email" in no_planner.text
    assert not stored(browser, app_id)


def test_opening_starts_the_clock_and_shows_its_page(browser: Browser) -> None:
    client = browser.as_(MANAGER)
    fields = form(browser)
    app_id = fields["application_id"]
    response = client.post("/applications/new", data=fields, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert response.headers["location"] == f"/applications/{app_id}"
    page = client.get(f"/applications/{app_id}").text
    assert 'data-testid="flash-ok"' in page and f"Opened {app_id}" in page
    assert 'data-testid="shot-clock-date"' in page
    summary = browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary").json()
    assert summary["events"][0] == {
        **summary["events"][0],
        "type": "submitted",
        "date": fields["submitted"],
        "recorded_by": MANAGER,
    }
    assert summary["application"]["contacts"]["applicant_email"] == "siteacq@carrier.example"

    again = client.post("/applications/new", data=form(browser, application_id=app_id))
    assert again.status_code == 409 and "already exists" in again.text
    # The error summary leads to the field that is wrong.
    assert 'href="#field-application_id"' in again.text


def test_only_planning_staff_may_open(browser: Browser) -> None:
    client = browser.as_(ENGINEER)
    assert 'data-testid="open-application"' not in client.get("/applications").text
    refused = client.get("/applications/new")
    assert refused.status_code == 403 and "may not open a wireless application" in refused.text


INJECTION = "a@b.example\r\nBcc: x@y.example"


def test_an_address_that_would_add_a_recipient_is_refused_and_nothing_is_stored(
    browser: Browser,
) -> None:
    client = browser.as_(MANAGER)
    app_id = f"WEB-{uuid.uuid4().hex[:8]}"
    refused = client.post(
        "/applications/new",
        data=form(browser, application_id=app_id, applicant_email=INJECTION),
    )
    assert refused.status_code == 400
    assert 'data-testid="flash-error"' in refused.text
    assert "applicant_email:" in refused.text and "is not a valid e-mail address" in refused.text
    assert not stored(browser, app_id)


def test_an_address_is_stored_normalised(browser: Browser) -> None:
    client = browser.as_(MANAGER)
    fields = form(browser, applicant_email="  SiteAcq@Carrier.EXAMPLE ")
    response = client.post("/applications/new", data=fields, follow_redirects=False)
    assert response.status_code == 303, response.text
    app_id = fields["application_id"]
    summary = browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary").json()
    # The domain in lower case, the local part as given (email-validator's normal form).
    assert summary["application"]["contacts"]["applicant_email"] == "SiteAcq@carrier.example"
