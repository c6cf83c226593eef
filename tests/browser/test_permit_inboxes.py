"""Journeys: permit clocks reach the people who act on them. The building official finds
a building permit's expiry in their inbox with its next action, on the same date as the
Deadlines list and their calendar feed; a sign appeal about 15 days past its deadline reaches
the city attorney who acts on it, and as a lapse the planning manager's and the city
attorney's inboxes; the manager hands it to the planner, whose inbox then has it."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import timedelta
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id, open_when_ready

pytestmark = pytest.mark.browser

FEED = re.compile(r"https?://\S+\.ics")


def inbox_item(page: Any, kind: str, text: str) -> Any:
    return page.locator(f"[data-testid=inbox-item][data-kind={kind}]").filter(has_text=text)


async def inbox_has(page: Any, kind: str, text: str, timeout_s: float = 30.0) -> Any:
    """The inbox item, once the read model has it (a clock opened a moment ago)."""
    deadline = time.monotonic() + timeout_s
    while True:
        await page.goto("/")
        item = inbox_item(page, kind, text)
        if await item.count() == 1:
            return item
        if time.monotonic() > deadline:
            raise AssertionError(f"no {kind} item {text!r} in the inbox after {timeout_s:.0f} s")
        await asyncio.sleep(0.5)


async def test_permit_clocks_reach_who_acts_and_a_lapse_the_manager_and_attorney(
    journey: Journey,
) -> None:
    stack = journey.stack
    today = city_today()
    building = new_id("BP")
    stack.ok(
        "permit", "open", "--id", building, "--rule", "building_permit_expiry",
        "--event", "approved", "--date", (today - timedelta(days=170)).isoformat(),
        "--title", f"Building permit {building}", "--site", "8 Old Redwood Hwy",
    )  # fmt: skip
    appeal = new_id("APL")
    stack.ok(
        "permit", "open", "--id", appeal, "--rule", "cotati_sign_appeal_decision",
        "--event", "appeal_filed", "--date", (today - timedelta(days=75)).isoformat(),
        "--title", f"Sign appeal {appeal}",
    )  # fmt: skip

    # The building official: the building permit's expiry, with what to do next.
    page = await journey.login("building.official@cotati.example")
    await open_when_ready(page, f"/permits/{building}")
    item = await inbox_has(page, "permit", f"Building permit {building}")
    await expect(item).to_contain_text("building official")
    await expect(item.get_by_test_id("inbox-action")).to_have_text(
        "Record the final inspection, or an extension"
    )
    due = await item.get_attribute("data-due")
    assert due
    await journey.shot("the building official's inbox")

    # The Deadlines list and the calendar feed give the same date.
    await page.goto("/deadlines")
    row = page.locator(f"[data-testid=deadline-row][data-subject={building}]")
    await expect(row.get_by_test_id("deadline-date")).to_have_attribute("data-date", due)
    await page.goto("/me")
    await page.get_by_test_id("calendar-new").click()
    found = FEED.search(await page.get_by_test_id("flash-ok").inner_text())
    assert found is not None
    feed = httpx.get(found.group(0), timeout=10).text.replace("\r\n ", "")
    event = next(e for e in feed.split("BEGIN:VEVENT")[1:] if f"permit-{building}-" in e)
    assert f"DTSTART;VALUE=DATE:{due.replace('-', '')}" in event
    assert "cotati-" not in feed and ".txt:" not in feed  # citations are titles

    # The city attorney acts on the sign appeal; it ran out 15 days ago.
    await journey.logout(page)
    await journey.login("city.attorney@cotati.example", page)
    item = await inbox_has(page, "permit", f"Sign appeal {appeal}")
    await expect(item.get_by_test_id("inbox-action")).to_have_text(
        "Record the decision granting or denying the appeal"
    )
    await expect(item).to_contain_text("Cotati Municipal Code § 17.38.100 ran out on")
    await expect(item).to_contain_text(re.compile(r"\d+ days ago"))
    await journey.shot("the city attorney acts on the lapsed appeal")

    # The lapse escalates: the planning manager's and the (other) attorney's inboxes.
    for person in ("attorney@cotati.example", "manager@cotati.example"):
        await journey.logout(page)
        await journey.login(person, page)
        lapse = await inbox_has(page, "permit_lapse", f"Sign appeal {appeal}")
        await expect(lapse).to_contain_text("with nothing recorded that meets it")
        await expect(lapse.get_by_test_id("inbox-action")).to_have_text(
            "Decide what the lapse means and who tells the applicant"
        )
        await lapse.get_by_role("link", name=f"Sign appeal {appeal}").click()
        await expect(page).to_have_url(re.compile(f"/permits/{appeal}$"))
        await journey.shot(f"lapse in the inbox of {person}")

    # The manager hands the appeal to the planner, who finds it in their inbox.
    await page.get_by_text("Hand this clock to someone else").click()
    await page.get_by_test_id("permit-owner-select").select_option("planner@cotati.example")
    await page.get_by_test_id("permit-reassign").click()
    await expect(page.get_by_test_id("flash-ok")).to_have_text(
        f"{appeal} is now with planner@cotati.example."
    )
    await expect(page.get_by_test_id("permit-owner")).to_have_text("planner@cotati.example")
    await journey.logout(page)
    await journey.login("planner@cotati.example", page)
    item = await inbox_has(page, "permit", f"Sign appeal {appeal}")
    await journey.shot("the planner now owns the appeal")

    # The appeal's page offers only its own events; the planner records the decision.
    await item.get_by_test_id("inbox-action").click()
    offers = page.get_by_test_id("permit-offer")
    types = await offers.evaluate_all("els => els.map(e => e.dataset.event)")
    assert types == ["decision", "withdrawn"], types
    await expect(page.get_by_test_id("clock-timeline")).to_be_visible()
    decision = page.locator("[data-testid=permit-offer][data-event=decision]")
    await decision.locator("summary").click()
    await decision.get_by_test_id("offer-outcome").select_option("denied")
    await decision.get_by_test_id("offer-submit").click()  # not confirmed: the browser asks
    await expect(page.get_by_test_id("flash-ok")).to_have_count(0)
    await decision.get_by_test_id("offer-confirm").check()
    await decision.get_by_test_id("offer-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("Recorded decision")
    await journey.shot("the decision recorded from its own form")
    await page.goto("/")
    await expect(inbox_item(page, "permit", f"Sign appeal {appeal}")).to_have_count(0)
