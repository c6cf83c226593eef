"""Journey: an administrator sets up a second city in the web app (its holidays,
departments and contacts), gives it a planner, and opens a wireless application and a
permit clock there. That city's planner sees only their city, and the shot clock's date
rolls over that city's own holiday, a day Cotati works."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from playwright.async_api import expect

from rules.kernel.calendars import ALL
from rules.kernel.jurisdictions import jurisdiction
from stack.demo import DEMO_PASSWORD
from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id

pytestmark = pytest.mark.browser

PLANNER = "planner@sebastopol.example"


def holiday_cotati_works(today: date) -> date:
    """A weekday 40-80 days on that is a business day in Cotati under every reading, as
    is the day after: the new city's holiday is put on it."""
    cotati = jurisdiction("cotati").calendar_layers().calendar(ALL)
    day = date(today.year, today.month, today.day) + timedelta(days=40)
    while not (cotati.is_business_day(day) and cotati.is_business_day(day + timedelta(days=1))):
        day += timedelta(days=1)
    return day


async def test_an_administrator_sets_up_a_second_city_whose_planner_sees_only_it(
    journey: Journey,
) -> None:
    page = await journey.login("admin@cotati.example")
    holiday = holiday_cotati_works(city_today())
    await page.get_by_test_id("nav-jurisdictions").click()
    await page.get_by_test_id("jurisdiction-new").click()
    await page.get_by_test_id("j-key").fill("sebastopol")
    await page.get_by_test_id("j-name").fill("City of Sebastopol")
    await page.get_by_test_id("j-time-zone").fill("America/Los_Angeles")
    await page.get_by_test_id("j-from").fill("planning@sebastopol.example")
    await page.get_by_test_id("j-reply-to").fill(PLANNER)
    await page.get_by_test_id("j-planner").fill(PLANNER)
    await page.get_by_test_id("j-supervisor").fill("director@sebastopol.example")
    await page.get_by_test_id("j-attorney").fill("attorney@sebastopol.example")
    await page.get_by_test_id("j-letterhead").fill("City of Sebastopol\nPlanning Department")
    await page.get_by_test_id("j-holiday-source").fill("Resolution 2026-07 (holidays)")
    await page.get_by_test_id("j-holidays").fill(
        f"Apple Blossom Day | {holiday.isoformat()} |\nFounders Day | March 17 | Res. 2026-07 s.2"
    )
    await page.get_by_test_id("j-departments").fill(
        "planning | planning@sebastopol.example | director@sebastopol.example\n"
        "environmental | ceqa@sebastopol.example | director@sebastopol.example | CEQA | 15"
    )
    await page.get_by_test_id("j-reason").fill("contract city from December")
    await page.get_by_test_id("j-save").click()
    # A holiday without its source is refused, naming it; what was typed is kept.
    await expect(page.get_by_test_id("flash-error")).to_contain_text(
        "adopted_holidays.holidays[0].citation: 'Apple Blossom Day' has no source"
    )
    await journey.shot("holiday without a source refused")
    await page.get_by_test_id("j-holidays").fill(
        f"Apple Blossom Day | {holiday.isoformat()} | Res. 2026-07 s.1\n"
        "Founders Day | March 17 | Res. 2026-07 s.2"
    )
    await page.get_by_test_id("j-save").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("Saved sebastopol version 1")
    await expect(page.get_by_test_id("jurisdiction-version")).to_have_count(1)
    await journey.shot("city set up")

    # Its planner.
    await page.goto("/admin/users")
    await page.get_by_test_id("user-email").fill(PLANNER)
    await page.get_by_test_id("user-jurisdiction").select_option("sebastopol")
    await page.get_by_test_id("user-role").select_option("project_manager")
    await page.get_by_test_id("user-password").fill(DEMO_PASSWORD)
    await page.get_by_test_id("user-add").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("in sebastopol")

    # A wireless application there, due on the city's holiday, which it rolls over.
    application_id = new_id("SEB")
    submitted = holiday - timedelta(days=90)
    await page.goto("/applications/new")
    await page.get_by_test_id("open-jurisdiction").select_option("sebastopol")
    await page.get_by_test_id("open-application-id").fill(application_id)
    await page.get_by_test_id("open-category").select_option("macro_collocation")
    await page.get_by_test_id("open-submitted").fill(submitted.isoformat())
    await page.get_by_test_id("open-site").fill("7120 Bodega Ave")
    await page.get_by_test_id("open-applicant-email").fill("siteacq@carrier.example")
    await page.get_by_test_id("open-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(f"Opened {application_id}")
    after = (holiday + timedelta(days=1)).isoformat()
    await expect(page.get_by_test_id("shot-clock-date")).to_have_attribute("data-date", after)
    await expect(page.get_by_test_id("conservative-date")).to_have_attribute("data-date", after)
    await journey.shot("wireless clock rolls over the city's holiday")

    # A permit clock there.
    clock_id = new_id("SEB-BP")
    await page.goto("/permits/new")
    await page.get_by_test_id("permit-jurisdiction").select_option("sebastopol")
    await page.get_by_test_id("permit-clock-id").fill(clock_id)
    await page.get_by_test_id("permit-rule-select").select_option("building_permit_expiry")
    await page.get_by_test_id("permit-start-event").fill("approved")
    await page.get_by_test_id("permit-start-date").fill(
        (city_today() - timedelta(days=10)).isoformat()
    )
    await page.get_by_test_id("permit-open-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(f"Opened {clock_id}")
    await journey.shot("permit clock opened there")
    await journey.logout()

    # The city's planner sees their city's records and none of Cotati's.
    planner = await journey.login(PLANNER)
    await planner.goto("/applications")
    await expect(planner.get_by_text(application_id)).to_be_visible()
    assert "DEMO-" not in await planner.content()
    await planner.goto("/permits")
    await expect(planner.get_by_text(clock_id)).to_be_visible()
    assert "DEMO-" not in await planner.content()
    await journey.shot("the planner's own city only")
    response = await planner.goto("/admin/jurisdictions/cotati")
    assert response is not None and response.status == 404
    cotati_record = await planner.request.get("/api/v1/permits/DEMO-BP")
    assert cotati_record.status == 404
    assert not journey.errors, journey.errors
