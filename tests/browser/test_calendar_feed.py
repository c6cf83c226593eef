"""Journey: a project manager makes their calendar feed address, and a calendar app
reading it (no log-in, only the secret address) gets their deadlines; a new address
stops the old one working."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey

pytestmark = pytest.mark.browser

FEED = re.compile(r"https?://\S+\.ics")


async def _new_address(journey: Journey) -> str:
    page = journey.page
    await page.get_by_test_id("calendar-new").click()
    flash = page.get_by_test_id("flash-ok")
    await expect(flash).to_contain_text("Your calendar address")
    found = FEED.search(await flash.inner_text())
    assert found is not None, await flash.inner_text()
    return found.group(0)


async def test_calendar_feed_carries_my_deadlines(journey: Journey) -> None:
    page = await journey.login("pm@cotati.example")
    await page.get_by_test_id("nav-me").click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("My deadlines in my calendar")
    url = await _new_address(journey)
    assert url.startswith(journey.stack.base_url)
    await journey.shot("feed address made")

    # The calendar app: a plain GET of the secret address, no cookies.
    feed = httpx.get(url, timeout=10)
    assert feed.status_code == 200
    assert feed.headers["content-type"].startswith("text/calendar")
    text = feed.text.replace("\r\n ", "")  # unfold long lines (RFC 5545)
    assert text.startswith("BEGIN:VCALENDAR")
    near = json.loads(journey.stack.ok("clock", "show", "DEMO-NEAR", "--json").stdout)
    day = near["conservative_date"].replace("-", "")
    event = next(e for e in text.split("BEGIN:VEVENT")[1:] if "Shot clock deadline: DEMO-NEAR" in e)
    assert f"DTSTART;VALUE=DATE:{day}" in event
    assert "Milestone target:" in text and "Cotati Village" in text

    # A new address replaces the old one.
    newer = await _new_address(journey)
    assert newer != url
    assert httpx.get(url, timeout=10).status_code == 404
    assert httpx.get(newer, timeout=10).status_code == 200
    await journey.shot("new address replaces the old one")
