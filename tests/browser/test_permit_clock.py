"""Journey: a planner opens a building permit clock in the web app, an inspector records
a qualifying inspection, and both see the new expiry and the timeline; the demo's permit
clocks are on the first page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id
from web.views.present import human_date

pytestmark = pytest.mark.browser


async def test_open_a_building_permit_and_record_a_qualifying_inspection(
    journey: Journey,
) -> None:
    page = await journey.login("pm@cotati.example")
    # A new user sees the demo's permit clocks with every other deadline on the first page.
    deadlines = page.locator("#deadlines [data-testid=deadline-row]")
    subjects = await deadlines.evaluate_all("rows => rows.map(r => r.dataset.subject)")
    for demo in ("DEMO-PSA-24", "DEMO-SIGN", "DEMO-BP", "DEMO-APPEAL"):
        assert demo in subjects, subjects
    await journey.shot("dashboard with permit deadlines")

    await page.get_by_test_id("nav-permits").click()
    await page.get_by_test_id("permit-new").click()
    clock_id = new_id("BP")
    issued = city_today() - timedelta(days=120)
    await page.get_by_test_id("permit-clock-id").fill(clock_id)
    await page.get_by_test_id("permit-rule-select").select_option("building_permit_expiry")
    await page.get_by_test_id("permit-title").fill("Detached garage")
    await page.get_by_test_id("permit-applicant-email").fill("owner@example.test")
    await page.get_by_test_id("permit-start-event").fill("approved")
    await page.get_by_test_id("permit-start-date").fill(issued.isoformat())
    await journey.shot("open form filled")
    await page.get_by_test_id("permit-open-submit").click()

    first_expiry = (issued + timedelta(days=180)).isoformat()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(f"Opened {clock_id}")
    await expect(page.get_by_test_id("permit-due-date")).to_have_text(first_expiry)
    await expect(page.get_by_test_id("timeline-event")).to_have_count(1)
    await journey.shot("clock opened")

    # The framing inspection passed and qualifies: 180 days run again from today.
    await page.get_by_test_id("permit-event-type").fill("inspection")
    await page.get_by_test_id("permit-event-result").select_option("approved")
    await page.get_by_test_id("permit-event-qualifying").check()
    await page.get_by_test_id("permit-event-note").fill("framing inspection passed")
    await page.get_by_test_id("permit-record-submit").click()

    new_expiry = (city_today() + timedelta(days=180)).isoformat()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(f"due {new_expiry}")
    await expect(page.get_by_test_id("permit-due-date")).to_have_text(new_expiry)
    timeline = page.get_by_test_id("timeline-event")
    await expect(timeline).to_have_count(2)
    await expect(timeline.nth(1)).to_contain_text("inspection")
    await expect(timeline.nth(1)).to_contain_text("framing inspection passed")
    ledger = page.get_by_test_id("ledger-row")
    await expect(ledger.filter(has_text="inspection")).to_contain_text(new_expiry)
    await journey.shot("new expiry and timeline")

    # A refusal is shown in the page's words and records nothing.
    await page.get_by_test_id("permit-event-type").fill("demolished")
    await page.get_by_test_id("permit-record-submit").click()
    await expect(page.get_by_test_id("flash-error")).to_contain_text("demolished")
    await page.goto(f"/permits/{clock_id}")
    await expect(page.get_by_test_id("timeline-event")).to_have_count(2)
    await journey.shot("refusal")

    # The Deadlines list carries the clock at its new date.
    await page.get_by_test_id("nav-deadlines").click()
    row = page.locator(f"[data-testid=deadline-row][data-subject={clock_id}]")
    await expect(row.get_by_test_id("deadline-date")).to_have_attribute("data-date", new_expiry)
    await expect(row.get_by_test_id("deadline-date")).to_have_text(human_date(new_expiry))
    await journey.shot("deadlines list")
