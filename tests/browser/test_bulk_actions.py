"""Journey: a planning manager acts on several conditions of a project at once and sees
each one done or refused, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import import_birch_lane, open_when_ready

pytestmark = pytest.mark.browser


async def test_route_several_conditions_at_once(journey: Journey, tmp_path: Path) -> None:
    project_id = import_birch_lane(journey.stack, tmp_path)
    page = await journey.login("manager@cotati.example")
    await open_when_ready(page, f"/projects/{project_id}")
    await page.get_by_test_id("bulk-link").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Act on several conditions")
    await page.get_by_test_id("bulk-pick-1").check()
    await page.get_by_test_id("bulk-pick-3").check()
    await page.get_by_test_id("bulk-action-route").check()
    await page.get_by_test_id("bulk-department").select_option("planning")
    await page.get_by_test_id("bulk-reason").fill("Planning reviews these after the amendment")
    await journey.shot("two conditions chosen")
    await page.get_by_test_id("bulk-submit").click()
    outcome = page.get_by_test_id("bulk-outcome")
    await expect(outcome).to_contain_text("Route to a department: 2 done")
    await expect(page.get_by_test_id("bulk-done")).to_contain_text(f"{project_id} #1: routed")
    await journey.shot("outcome listed")
    # Marking not applicable with no reason is refused in one line, naming the field.
    await page.goto(f"/projects/{project_id}/bulk")
    await page.get_by_test_id("bulk-pick-2").check()
    await page.get_by_test_id("bulk-action-not_applicable").check()
    await page.get_by_test_id("bulk-submit").click()
    await expect(page.locator("main")).to_contain_text("reason: say why")
