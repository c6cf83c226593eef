"""Human formatting: dates with weekdays in city time, labels not keys, a favicon, the
API docs offline and linked, applicant links that refuse a missing public address, the
clearance CSV with text, and a print stylesheet."""

from __future__ import annotations

import csv
import dataclasses
import io
import re

from fastapi.testclient import TestClient

from settings import Settings
from tests.web.helpers import Browser, Stackish, city_today, csrf_of
from web.app import create_app
from web.views.present import human_date

PM = "pm@cotati.example"


def test_dates_have_weekdays_and_keys_become_labels(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(category="swf_collocation", days_ago=3)
    html = browser.as_(PM).get(f"/applications/{app_id}").text
    conservative = re.search(r'data-testid="conservative-date" data-date="([^"]+)"', html)[1]
    assert human_date(conservative) in html  # e.g. "Mon 7 Dec 2026"
    assert re.search(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}", html)
    assert "small wireless facility on an existing structure" in html
    assert ">swf_collocation<" not in html and "swf_collocation (" not in html
    assert f"Today is {human_date(city_today())}" in html
    assert "America/Los_Angeles" in html  # the city's time zone, from its data file


def test_navigation_favicon_and_offline_api_docs(browser: Browser) -> None:
    client = browser.as_(PM)
    home = client.get("/").text
    assert '<link rel="icon" href="/static/favicon.svg"' in home
    assert 'href="/api/docs" data-testid="nav-api-docs"' in home
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and "<svg" in icon.text
    assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg")
    moved = client.get("/docs", follow_redirects=False)
    assert moved.status_code in (307, 308) and moved.headers["location"] == "/api/docs"
    docs = client.get("/api/docs").text
    # Swagger UI from this server, never a CDN: it works with no internet.
    assert "cdn" not in docs.lower()
    assert "/api/docs/assets/swagger-ui-bundle.js" in docs
    script = client.get("/api/docs/assets/swagger-ui-bundle.js")
    assert script.status_code == 200 and len(script.content) > 100_000
    assert client.get("/api/docs/assets/swagger-ui.css").status_code == 200


def test_applicant_links_need_a_public_address_outside_development(
    web_settings: Settings, stack: Stackish
) -> None:
    production = dataclasses.replace(
        web_settings, environment="production", public_url_configured=False
    )
    app_id = stack.new_clock(days_ago=3)
    with TestClient(create_app(production), base_url="http://testserver") as client:
        other = Browser(client)
        page = other.as_(PM).get(f"/applications/{app_id}").text
        refused = other.as_(PM).post(
            "/links",
            data={"csrf_token": csrf_of(page), "scope": "application", "scope_id": app_id},
        )
        assert refused.status_code == 400
        assert "CLEARANCE_PUBLIC_URL" in refused.text
        api = other.api(PM, "POST", "/api/v1/links", {"scope": "application", "scope_id": app_id})
        assert api.status_code == 400 and "CLEARANCE_PUBLIC_URL" in api.json()["error"]
    configured = dataclasses.replace(production, public_url_configured=True)
    with TestClient(create_app(configured), base_url="http://testserver") as client:
        made = Browser(client).api(
            PM, "POST", "/api/v1/links", {"scope": "application", "scope_id": app_id}
        )
        assert made.status_code == 201 and made.json()["url"].startswith("http://testserver/a/")


def test_clearance_csv_carries_text_and_department_names(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("CSV")
    text = browser.as_(PM).get(f"/reports/{pid}/clearance.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    first = next(r for r in rows if r["number"] == "1")
    assert first["text"] == "Submit an erosion control plan prior to grading permit."
    assert first["department"] == "Public Works / Engineering"
    assert first["department_heading"] == "PUBLIC WORKS"
    assert first["milestone_label"] and first["blocking"] == "yes"


def test_print_stylesheet_hides_the_app_around_the_record(browser: Browser) -> None:
    css = browser.as_(PM).get("/static/app.css").text
    rule = css[css.index("@media print") :]
    assert "header.top" in rule and "form" in rule and "display: none" in rule
