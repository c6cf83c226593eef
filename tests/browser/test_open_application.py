"""Journey: a planner opens a wireless application in the web app; a refused attempt
keeps what was typed and says why in the form; the opened clock's page shows its dates,
and the CLI (logged in with a token) sees the same clock."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id

pytestmark = pytest.mark.browser


async def test_a_planner_opens_an_application_in_the_web_app(journey: Journey) -> None:
    application_id = new_id("WEB")
    submitted = city_today() - timedelta(days=4)
    page = await journey.login("manager@cotati.example")
    await page.goto("/applications")
    await page.get_by_test_id("open-application").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Open a wireless application")
    await page.get_by_test_id("open-application-id").fill(application_id)
    await page.get_by_test_id("open-category").select_option("macro_collocation")
    await page.get_by_test_id("open-submitted").fill((city_today() + timedelta(days=3)).isoformat())
    await page.get_by_test_id("open-site").fill("201 W Sierra Ave")
    await page.get_by_test_id("open-applicant-email").fill("siteacq@carrier.example")
    await journey.shot("form filled with a date in the future")

    await page.get_by_test_id("open-submit").click()
    refusal = page.get_by_test_id("flash-error")
    await expect(refusal).to_contain_text("Refused")
    await expect(refusal).to_contain_text("in the future")
    await expect(page.get_by_test_id("open-application-id")).to_have_value(application_id)
    await expect(page.get_by_test_id("open-site")).to_have_value("201 W Sierra Ave")
    # The summary at the top names the wrong field and leads to it; the field is marked.
    await (
        page.get_by_test_id("error-summary-fields").get_by_role("link", name="Submitted on").click()
    )
    await expect(page).to_have_url(re.compile(r"#field-submitted$"))
    await expect(page.get_by_test_id("open-submitted")).to_have_attribute("aria-invalid", "true")
    await expect(page.get_by_test_id("open-site")).not_to_have_attribute("aria-invalid", "true")
    await journey.shot("refused in the form, values kept")

    await page.get_by_test_id("open-submitted").fill(submitted.isoformat())
    await page.get_by_test_id("open-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(f"Opened {application_id}")
    await expect(page.get_by_test_id("clock-status")).to_have_text("running")
    shown = (await page.get_by_test_id("shot-clock-date").inner_text()).strip()
    await journey.shot("the new application's page")

    clock = json.loads(journey.stack.ok("clock", "show", application_id, "--json").stdout)
    assert clock["start_date"] == submitted.isoformat()
    assert clock["status"] == "running" and clock["shot_clock_date"]
    assert shown not in ("", "-")
