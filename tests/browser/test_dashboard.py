"""Journey: a planner logs in and sees at a glance what needs them."""

from __future__ import annotations

import json
from datetime import date

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import city_today
from web.views.present import human_date

pytestmark = pytest.mark.browser


async def test_log_in_and_see_the_dashboard(journey: Journey) -> None:
    page = journey.page
    await page.goto("/")
    # Not logged in: the dashboard sends you to the log-in page first.
    await expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    assert "/login" in page.url
    await journey.shot("log-in page")

    await page.get_by_test_id("login-email").fill("pm@cotati.example")
    await page.get_by_test_id("login-password").fill("not the password")
    await page.get_by_test_id("login-submit").click()
    await expect(page.get_by_test_id("flash-error")).to_have_text(
        "That e-mail address and password do not match."
    )
    await journey.shot("wrong password refused")

    await journey.login("pm@cotati.example")
    await expect(page.get_by_test_id("current-user")).to_contain_text("Project manager")
    await expect(page.get_by_role("heading", name="What needs you")).to_be_visible()
    for section in ("clocks", "projects", "review-queue"):
        await expect(page.locator(f"section#{section}")).to_be_visible()
    # The full lists are folded under the inbox: open the clocks.
    await page.locator("section#clocks summary").click()

    # Every demo clock is listed, earliest conservative date first.
    clocks = page.locator("#clocks [data-testid=clock-row]")
    ids = await clocks.evaluate_all("rows => rows.map(r => r.dataset.application)")
    for demo in ("DEMO-NEAR", "DEMO-TOLLED", "DEMO-EXPIRED", "DEMO-EFR", "DEMO-BATCH"):
        assert demo in ids, ids
    dates = await clocks.locator("td:nth-child(4)").evaluate_all(
        "cells => cells.map(c => c.dataset.date).filter(d => d)"
    )
    assert dates == sorted(dates), dates

    # The near one: its date and days left as the clock itself computes them.
    shown = json.loads(journey.stack.ok("clock", "show", "DEMO-NEAR", "--json").stdout)
    conservative = shown["conservative_date"]
    near = page.locator("#clocks [data-application=DEMO-NEAR]")
    await expect(near.locator("td").nth(3)).to_have_attribute("data-date", conservative)
    await expect(near.locator("td").nth(3)).to_have_text(human_date(conservative))
    left = (date.fromisoformat(conservative) - city_today()).days
    await expect(near.locator(".badge")).to_have_text(f"{left} day{'s' if left != 1 else ''} left")
    await expect(near).to_have_class("risk-urgent" if left <= 7 else "risk-soon")
    # The expired one is flagged as such.
    expired = page.locator("#clocks [data-application=DEMO-EXPIRED]")
    await expect(expired).to_have_class("risk-expired")
    await expect(expired.locator(".badge")).to_contain_text("overdue")

    # The demo project, with its next milestone and how many conditions block it.
    await page.locator("section#projects summary").click()
    village = page.locator("#projects [data-project=COTATI-VILLAGE]")
    await expect(village).to_contain_text("Cotati Village")
    await expect(village.locator("td").nth(4)).to_contain_text("condition")
    await journey.shot("dashboard")

    await village.get_by_role("link", name="COTATI-VILLAGE").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Cotati Village")
    await journey.shot("project page")

    await journey.logout()
    await page.goto("/")
    assert "/login" in page.url
    await journey.shot("logged out")
