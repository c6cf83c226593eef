"""Journey: every page a user meets for Cotati Village (the 133-condition demo project),
and every role's inbox, at 1366 px wide: under 5,000 px tall, the navigation on one line.
Heights and load times go to test-artifacts/page-metrics.jsonl."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.measure import WIDTH, measure

pytestmark = pytest.mark.browser

PROJECT = "COTATI-VILLAGE"
ROLES = (
    "pm@cotati.example",
    "engineer@cotati.example",
    "publicworks@cotati.example",
    "manager@cotati.example",
    "attorney@cotati.example",
    "admin@cotati.example",
)


async def test_every_page_fits_the_height_budget(journey: Journey) -> None:
    page = journey.page
    await page.set_viewport_size({"width": WIDTH, "height": 900})
    for email in ROLES:
        await journey.login(email)
        await expect(page.get_by_role("heading", name="What needs you")).to_be_visible()
        await measure(page, journey.name, f"inbox ({email})")
        await journey.shot(f"inbox of {email}")
        await journey.logout()

    await journey.login("pm@cotati.example")
    pages = [
        ("project", f"/projects/{PROJECT}"),
        ("project filtered: blocking", f"/projects/{PROJECT}?status=blocking"),
        ("wireless applications", "/applications"),
        ("application near its date", "/applications/DEMO-NEAR"),
        ("application tolled", "/applications/DEMO-TOLLED"),
        ("application expired", "/applications/DEMO-EXPIRED"),
        ("projects", "/projects"),
        ("review queues", "/queues"),
        ("outbox", "/outbox"),
        ("reports", "/reports"),
        ("calendar", "/admin/calendar"),
    ]
    for label, url in pages:
        await page.goto(url)
        await measure(page, journey.name, label)
    # The milestone clearance report is a document to print or save (every condition of
    # every milestone, like its CSV): its height is recorded, not held to the budget.
    await page.goto(f"/reports/{PROJECT}/clearance.html")
    await measure(page, journey.name, "milestone clearance report (printable)", budget=False)
    await page.goto(f"/projects/{PROJECT}")
    milestones = await page.locator("[data-testid^=signoff-open-]").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    assert milestones
    for href in milestones:
        await page.goto(href)
        await measure(page, journey.name, f"sign-off {href.split('/')[-2]}")
    first = await page.goto(f"/projects/{PROJECT}")
    assert first is not None and first.ok
    condition = await page.locator("[data-testid=condition-row] a").first.get_attribute("href")
    await page.goto(condition)
    await measure(page, journey.name, "condition")
    await journey.shot("a condition")

    # The applicant's portal for the whole project: what is owed next first.
    await page.goto(f"/projects/{PROJECT}")
    await page.get_by_test_id("link-email").fill("applicant@cotati-village.example")
    await page.get_by_test_id("link-create").click()
    url = await page.get_by_test_id("link-url").first.input_value()
    applicant = await journey.person()
    await applicant.set_viewport_size({"width": WIDTH, "height": 900})
    await applicant.goto(url)
    await expect(applicant.get_by_test_id("portal-stepper")).to_be_visible()
    # What is owed for the next milestone comes first and is open; every later
    # milestone is folded shut with its count, so the page stays short.
    await expect(applicant.get_by_test_id("owed-next")).to_be_visible()
    order = await applicant.evaluate(
        "(() => { const nodes = [...document.querySelectorAll("
        "'[data-testid=owed-next], [data-testid=owed-later]')];"
        " return nodes.map(n => [n.dataset.testid, n.open === true]); })()"
    )
    assert order[0] == ["owed-next", False], order
    later = order[1:]
    assert later and all(kind == "owed-later" and not is_open for kind, is_open in later), order
    summaries = await applicant.locator("[data-testid=owed-later] > summary").all_inner_texts()
    assert all(" item" in s for s in summaries), summaries  # each with its count
    await measure(applicant, journey.name, "applicant portal")
    await journey.shot("applicant portal", applicant)
