"""Every page, checked with axe-core in real Chromium for WCAG 2.2 AA: no serious or
critical violation; a skip link that reaches the content; a visible focus; disabled
controls that look disabled; and the inbox, portal, review and condition pages without
sideways scrolling on a 390 px phone."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from reports import portfolio
from tests.browser.accessibility import AXE, scrolls_sideways, violations
from tests.browser.harness import ACTION_TIMEOUT_MS, DEMO_PASSWORD, RunningStack
from tests.browser.measure import WIDTH
from tests.browser.steps import APPLICANT, BIRCH_LANE, import_birch_lane, open_when_ready
from tests.real_parts import missing

pytestmark = pytest.mark.browser

PROJECT = "COTATI-VILLAGE"
STAFF_PAGES = [
    "/",
    "/deadlines",
    "/applications",
    "/applications/DEMO-NEAR",
    "/applications/DEMO-NEAR/notice",
    "/applications/new",
    "/permits",
    "/permits/new",
    "/projects",
    f"/projects/{PROJECT}",
    f"/projects/{PROJECT}/bulk",
    "/projects/import",
    "/queues",
    "/queues/planning",
    "/outbox",
    "/reports",
    *[f"/reports/all/{key}" for key in portfolio.kinds()],
    "/search?q=drainage",
    "/me",
    "/me/tokens",
    "/admin/users",
    "/admin/calendar",
    "/admin/rules",
    "/admin/import",
]


@pytest_asyncio.fixture
async def page(browser: Any, stack: RunningStack) -> AsyncIterator[Any]:
    if not AXE.exists():
        pytest.skip(missing("axe-core", f"{AXE} is missing: run npm ci (scripts/test does)"))
    # The pages allow no injected script (CSP script-src 'self'): axe is the test's own.
    context = await browser.new_context(
        base_url=stack.base_url, viewport={"width": WIDTH, "height": 900}, bypass_csp=True
    )
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def log_in(page: Any, email: str) -> None:
    await page.goto("/login")
    await page.get_by_test_id("login-email").fill(email)
    await page.get_by_test_id("login-password").fill(DEMO_PASSWORD)
    await page.get_by_test_id("login-submit").click()
    await expect(page.get_by_test_id("current-user")).to_contain_text(email)


async def test_every_page_has_no_serious_violation(page: Any) -> None:
    found: dict[str, list[str]] = {}
    await page.goto("/login")
    found["/login"] = await violations(page)
    await log_in(page, "admin@cotati.example")
    first_condition = await _first_condition(page)
    for path in [*STAFF_PAGES, first_condition]:
        await open_when_ready(page, path)
        found[path] = await violations(page)
    bad = [f"{path}: {line}" for path, lines in found.items() for line in lines]
    assert not bad, "\n".join(bad)


async def _first_condition(page: Any) -> str:
    await page.goto(f"/projects/{PROJECT}")
    href = await page.locator("[data-testid^=condition-open-]").first.get_attribute("href")
    return str(href)


async def test_skip_link_focus_and_disabled_controls(page: Any) -> None:
    await log_in(page, "engineer@cotati.example")  # engineering signs off milestones
    await page.goto("/deadlines")
    await page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-link")
    await expect(skip).to_be_focused()
    await expect(skip).to_be_in_viewport()  # shown when focused
    outline = await skip.evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline != "none"
    await page.keyboard.press("Enter")
    # The fragment lands in the address once the browser has followed the link.
    await expect(page).to_have_url(re.compile(r"#main$"))
    await expect(page.locator("main#main")).to_be_focused()
    # A sign-off refused while conditions block it: the button is disabled and looks it.
    await page.goto(f"/projects/{PROJECT}")
    urgent = page.locator("[data-testid=milestone-row].most-urgent")
    milestone = await urgent.get_attribute("data-milestone")
    await page.goto(f"/projects/{PROJECT}/milestones/{milestone}/sign-off")
    button = page.get_by_test_id("signoff-submit")
    await expect(button).to_be_disabled()
    look = await button.evaluate(
        "b => [getComputedStyle(b).cursor, getComputedStyle(b).backgroundColor]"
    )
    assert look == ["not-allowed", "rgb(228, 231, 234)"], look


async def test_no_sideways_scrolling_at_390_px(
    page: Any, stack: RunningStack, tmp_path: Path
) -> None:
    project_id = import_birch_lane(stack, tmp_path)
    await log_in(page, "pm@cotati.example")
    await open_when_ready(page, f"/projects/{project_id}")
    await page.get_by_test_id("link-email").fill(APPLICANT)
    await page.get_by_test_id("link-create").click()
    link = page.get_by_test_id("link-row").filter(has_text=APPLICANT)
    portal = await link.get_by_test_id("link-url").input_value()
    await page.set_viewport_size({"width": 390, "height": 844})
    wide: dict[str, int] = {}
    for path in ["/", "/queues/planning", f"/projects/{project_id}/conditions/1", portal]:
        await open_when_ready(page, path)
        wide[path] = await scrolls_sideways(page)
    # The import review: a resolution read, its conditions in a table to correct.
    resolution = tmp_path / "birch-lane-again.txt"
    resolution.write_text(BIRCH_LANE)
    await page.goto("/projects/import")
    await page.get_by_test_id("import-file").set_input_files(str(resolution))
    await page.get_by_test_id("import-read").click()
    await expect(page.get_by_test_id("import-row")).to_have_count(3, timeout=30_000)
    wide["import review"] = await scrolls_sideways(page)
    problems = await violations(page)
    assert not problems, problems
    assert not {p: px for p, px in wide.items() if px > 0}
