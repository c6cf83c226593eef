"""Journey: a planner sends a notice of incompleteness through the notice builder (a
defective one is refused first), then records the resubmission and sees the new date."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id, open_when_ready
from web.views.present import human_date

pytestmark = pytest.mark.browser


async def test_incompleteness_notice_moves_the_shot_clock_date(journey: Journey) -> None:
    stack = journey.stack
    today = city_today()
    submitted = today - timedelta(days=20)
    notice_date = today - timedelta(days=12)
    application_id = new_id("WTF")
    stack.ok(
        "clock", "open", "--id", application_id, "--category", "macro_collocation",
        "--planner", "pm@cotati.example", "--applicant-email", "siteacq@carrier.example",
        "--site", "201 W Sierra Ave", "--submitted", submitted.isoformat(),
    )  # fmt: skip
    page = await journey.login("pm@cotati.example")
    await open_when_ready(page, f"/applications/{application_id}")
    await expect(page.get_by_test_id("clock-status")).to_have_text("running")
    before = await page.get_by_test_id("shot-clock-date").get_attribute("data-date")
    await expect(page.get_by_test_id("shot-clock-date")).to_have_text(human_date(before))
    await journey.shot("application before the notice")

    await page.get_by_test_id("open-notice-builder").click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text(
        f"Notice of incompleteness for {application_id}"
    )
    rows = page.get_by_test_id("notice-item-row")
    # The city's earlier notices offer their items, each with the rule requiring it.
    texts = [
        await rows.nth(i).locator("input[name^=text_]").input_value()
        for i in range(await rows.count())
    ]
    rf = texts.index("RF emissions compliance report")
    await expect(page.get_by_test_id(f"notice-item-rule-{rf}")).to_have_value("CMC 17.44.070(A)")
    blank = texts.index("")
    await page.get_by_test_id(f"notice-item-use-{rf}").check()
    await page.get_by_test_id(f"notice-item-use-{blank}").check()
    await page.get_by_test_id(f"notice-item-id-{blank}").fill("C")
    await page.get_by_test_id(f"notice-item-text-{blank}").fill("Structural analysis of the pole")
    await page.get_by_test_id("notice-date").fill(notice_date.isoformat())
    await journey.shot("items picked, one without its rule")

    # An item without the rule that requires it: refused before anything goes out.
    await page.get_by_test_id("notice-preview").click()
    refusal = page.get_by_test_id("flash-error")
    await expect(refusal).to_contain_text("Refused")
    await expect(refusal).to_contain_text("rule")
    await expect(page.get_by_test_id("notice-send")).to_have_count(0)
    await journey.shot("defective notice refused")

    await page.get_by_test_id(f"notice-item-rule-{blank}").fill("CMC 17.44.070(D)")
    await page.get_by_test_id("notice-preview").click()
    letter = page.get_by_test_id("notice-letter")
    await expect(letter).to_contain_text("RF emissions compliance report")
    await expect(letter).to_contain_text("Cotati Municipal Code § 17.44.070(A)")
    await expect(letter).to_contain_text("Structural analysis of the pole")
    await expect(letter).to_contain_text("Cotati Municipal Code § 17.44.070(D)")
    await expect(page.get_by_test_id("notice-preview-panel")).to_contain_text("tolled")
    await journey.shot("letter previewed")

    await page.get_by_test_id("notice-send").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(
        "Notice of incompleteness recorded and sent to the applicant"
    )
    assert page.url.endswith(f"/applications/{application_id}")
    await expect(page.get_by_test_id("clock-status")).to_have_text("tolled (notice outstanding)")
    await expect(page.get_by_test_id("shot-clock-date")).to_have_text("-")
    owed = page.locator("section", has_text="Items the applicant still owes")
    await expect(owed).to_contain_text("Structural analysis of the pole")
    await journey.shot("notice recorded, clock tolled")

    # The applicant resubmits today: the clock runs again, the 12 tolled days later.
    await page.get_by_test_id("resubmission-date").fill(today.isoformat())
    await page.get_by_test_id("resubmission-submit").click()
    clock = json.loads(stack.ok("clock", "show", application_id, "--json").stdout)
    after = clock["shot_clock_date"]
    assert clock["tolled_days"] == (today - notice_date).days
    assert date.fromisoformat(after) > date.fromisoformat(before)
    flash = page.get_by_test_id("flash-ok")
    await expect(flash).to_contain_text(f"shot clock date {human_date(after)}")
    await expect(flash).to_contain_text(
        f"conservative date {human_date(clock['conservative_date'])}"
    )
    await expect(page.get_by_test_id("clock-status")).to_have_text("running")
    await expect(page.get_by_test_id("shot-clock-date")).to_have_attribute("data-date", after)
    await expect(page.get_by_test_id("conservative-date")).to_contain_text(
        human_date(clock["conservative_date"])
    )
    await expect(page.get_by_test_id("timeline-event")).to_have_count(3)
    await journey.shot("resubmitted, new shot clock date")

    # The letter is in the outbox.
    await page.get_by_test_id("nav-outbox").click()
    rows = page.get_by_test_id("outbox-row").filter(has_text=application_id)
    await expect(rows.filter(has_text="incompleteness notice")).to_have_count(1)
    # And the resubmission's letter with the new dates, as the notice promised.
    await expect(rows.filter(has_text="Resubmission received")).to_have_count(1)
    await journey.shot("letter in the outbox")
