"""Revision 3 on the web app and the JSON API: a statutory extension recorded through the
API and the page form (its statute required), the map page's months of the cap used and
left, the administrator's law-watch page, and the permit-clock rebase's refusals."""

from __future__ import annotations

from datetime import date, timedelta

from rules.kernel.counting import add_months
from settings import Settings
from tests.web.helpers import Browser, city_today, csrf_of
from tests.web.test_permit_clocks import ATTORNEY, PM, new_id, stored, wait_row

ADMIN = "admin@cotati.example"


def open_map(browser: Browser, web_settings: Settings, approved: date) -> str:
    """A tentative map's clock opened through the API; its id once it is in the read model."""
    clock_id = new_id("TM")
    opened = browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "ca_tentative_map_expiry",
            "jurisdiction": "cotati",
            "events": [{"type": "approved", "date": approved.isoformat()}],
            "title": "Tentative map, 12 lots",
        },
    )
    assert opened.status_code == 201, opened.text
    wait_row(web_settings, clock_id)
    return clock_id


def test_a_statutory_extension_through_the_api_and_the_form_outside_the_cap(
    browser: Browser, web_settings: Settings
) -> None:
    approved = city_today() - timedelta(days=100)
    clock_id = open_map(browser, web_settings, approved)
    recorded = browser.api(
        PM,
        "POST",
        f"/api/v1/permits/{clock_id}/events",
        {
            "type": "statutory_extension",
            "date": city_today().isoformat(),
            "months": 12,
            "citation": "Gov. Code 66452.25",
        },
    )
    assert recorded.status_code == 200, recorded.text
    clock = recorded.json()["clock"]
    # 24 months from approval, then 12 by statute, none of the 72 discretionary months.
    expiry = add_months(add_months(approved, 24), 12).isoformat()
    assert clock["due_date"] == expiry
    assert (clock["extensions"]["statutory_months"], clock["extensions"]["months_left"]) == (12, 72)
    wait_row(web_settings, clock_id, lambda row: row.due_date == expiry)

    client = browser.as_(PM)
    page = client.get(f"/permits/{clock_id}")
    assert 'data-testid="permit-cap"' in page.text
    assert "0 of 72 months used, 72 left" in page.text and "Gov. Code 66452.6(e)" in page.text
    assert "12 months added by statute, not counted against the limit" in page.text
    assert "Gov. Code 66452.25" in page.text  # the ledger cites the statute

    # The form needs the statute: refused with the field named, nothing stored.
    form = {"csrf_token": csrf_of(page.text), "type": "statutory_extension", "months": "6"}
    refused = client.post(f"/permits/{clock_id}/events", data=form)
    assert refused.status_code in (400, 409), refused.text
    assert "citation" in refused.text
    assert stored(web_settings, clock_id) == (True, 2)
    done = client.post(
        f"/permits/{clock_id}/events",
        data={**form, "citation": "Gov. Code 66452.26"},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    longer = add_months(expiry_date := add_months(add_months(approved, 24), 12), 6)
    assert expiry_date.isoformat() == expiry
    wait_row(web_settings, clock_id, lambda row: row.due_date == longer.isoformat())


def test_the_law_watch_page_is_the_administrators(browser: Browser) -> None:
    admin = browser.as_(ADMIN)
    page = admin.get("/admin/rules")
    assert page.status_code == 200
    assert 'data-testid="nav-rules"' in page.text
    assert 'data-change="fcc_wt_25_276"' in page.text and "WT Docket No. 25-276" in page.text
    assert 'data-rule="ca_21080_66_decision"' in page.text  # AB 130: provisional
    assert "Pub. Resources Code 21080.66" in page.text
    assert "not verified against the" in page.text
    planner = browser.as_(PM)
    assert planner.get("/admin/rules").status_code == 403
    assert 'data-testid="nav-rules"' not in planner.get("/permits").text


def test_a_permit_rebase_is_the_administrators_and_needs_a_newer_version(
    browser: Browser, web_settings: Settings
) -> None:
    clock_id = open_map(browser, web_settings, city_today())
    path = f"/api/v1/permits/{clock_id}/rebase"
    assert browser.api(ATTORNEY, "POST", path, {"reason": "x"}).status_code == 403
    current = browser.api(ADMIN, "POST", path, {"reason": "apply the new rules"})
    assert current.status_code in (400, 409), current.text
    assert "already counts on california@" in current.json()["error"]
    blank = browser.api(ADMIN, "POST", path, {"reason": " "})
    assert blank.status_code == 400 and "reason" in blank.json()["error"]


def test_a_reduction_of_25_percent_from_the_form_loses_the_sb330_vesting(
    browser: Browser, web_settings: Settings
) -> None:
    clock_id = new_id("SB330")
    opened = browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "ca_sb330_full_application",
            "events": [
                {
                    "type": "preliminary_application",
                    "date": (city_today() - timedelta(days=20)).isoformat(),
                }
            ],
        },
    )
    assert opened.status_code == 201, opened.text
    wait_row(web_settings, clock_id)
    client = browser.as_(PM)
    page = client.get(f"/permits/{clock_id}")
    form = {
        "csrf_token": csrf_of(page.text),
        "type": "project_changed",
        "date": city_today().isoformat(),
        "units_change_pct": "2 5",
    }
    refused = client.post(f"/permits/{clock_id}/events", data=form)
    assert refused.status_code == 400 and "units_change_pct" in refused.text
    done = client.post(
        f"/permits/{clock_id}/events",
        data={**form, "units_change_pct": "-25"},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    # 40 -> 30 units is a change of 25% (Gov. Code 65941.1(c)): the vesting is lost.
    row = wait_row(web_settings, clock_id, lambda row: row.status == "lapsed")
    assert row.consequence == "vesting_lost"
