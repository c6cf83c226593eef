"""Journey: engineering's sign-off of the grading permit is refused with its blockers; the
right people clear and waive them; then the sign-off goes through."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import import_birch_lane, open_when_ready

pytestmark = pytest.mark.browser


async def test_signoff_refused_with_blockers_then_allowed(journey: Journey, tmp_path: Path) -> None:
    stack = journey.stack
    project_id = import_birch_lane(stack, tmp_path)
    # The applicant has sent the drainage report (#1); the tree plan (#2) is still open.
    # (Recorded for the applicant by the project manager, whose role may submit.)
    stack.login("pm@cotati.example").ok(
        "project", "submit", project_id, "1", "--description", "Final drainage report",
    )  # fmt: skip
    signoff_url = f"/projects/{project_id}/milestones/grading_permit/sign-off"

    page = await journey.login("engineer@cotati.example")
    await open_when_ready(page, f"/projects/{project_id}")
    await expect(page.get_by_test_id("next-milestone")).to_contain_text("2 conditions block it")
    await journey.shot("project with two blockers")
    await page.get_by_test_id("signoff-open-grading_permit").click()
    await expect(page.get_by_test_id("section-blockers")).to_contain_text(
        "2 conditions still block this milestone"
    )
    # Blocked: one line saying by whom, a link to the table, and a disabled button.
    await expect(page.get_by_test_id("signoff-blocked")).to_contain_text(
        "2 conditions still block Grading permit issued: 1 Planning Division, "
        "1 Public Works / Engineering"
    )
    await expect(page.get_by_test_id("signoff-submit")).to_be_disabled()
    await page.get_by_test_id("signoff-blockers-link").click()
    assert page.url.endswith("#blockers")
    blockers = page.get_by_test_id("blocker-row")
    await expect(blockers).to_have_count(2)
    await expect(blockers.nth(0)).to_contain_text("Public Works / Engineering")
    await expect(blockers.nth(1)).to_contain_text("Planning Division")
    await expect(page.get_by_test_id("signoff-state")).to_have_text("not yet")
    await journey.shot("sign-off blocked, with its blockers")
    await journey.logout()

    # Planning's reviewer reviews, but is not offered another department's condition.
    await journey.login("planning@cotati.example")
    await page.goto(f"/projects/{project_id}/conditions/1")
    await expect(page.get_by_test_id("review-clear")).to_have_count(0)
    await expect(page.get_by_test_id("review-not-yours")).to_contain_text(
        "Public Works / Engineering reviews this condition"
    )
    await expect(page.get_by_test_id("condition-status")).to_have_text("submitted, awaiting review")
    await journey.shot("another department's reviewer sees no clear or return")
    await journey.logout()

    # Public works' reviewer finds the drainage report in their inbox and clears it.
    await journey.login("publicworks@cotati.example")
    item = page.locator("[data-testid=inbox-item][data-kind=review]").filter(has_text=project_id)
    await expect(item).to_contain_text("#1")
    await expect(item).to_contain_text("service level")
    await journey.shot("engineering reviewer's inbox")
    await item.get_by_test_id("inbox-action").click()
    await expect(page.get_by_test_id("condition-status")).to_have_text("submitted, awaiting review")
    await expect(page.get_by_test_id("evidence-row")).to_contain_text("Final drainage report")
    await page.get_by_test_id("review-clear").click()
    await expect(page.get_by_test_id("flash-ok")).to_have_text("Recorded: condition #1 cleared.")
    await expect(page.get_by_test_id("condition-status")).to_have_text("cleared")
    await journey.shot("drainage report cleared")
    await journey.logout()

    # The planning manager waives the tree plan, with the reason on record.
    await journey.login("manager@cotati.example")
    await page.goto(f"/projects/{project_id}/conditions/2")
    await page.get_by_test_id("resolve-resolution").select_option("waived")
    await page.get_by_test_id("resolve-reason").fill("No trees within 50 ft of the grading limits")
    await page.get_by_test_id("resolve-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_have_text(
        "Recorded: condition #2 marked waived."
    )
    await expect(page.get_by_test_id("condition-status")).to_have_text("waived")
    await expect(page.get_by_test_id("section-history")).to_contain_text(
        "No trees within 50 ft of the grading limits"
    )
    await journey.shot("tree plan waived")
    await journey.logout()

    await journey.login("engineer@cotati.example")
    await page.goto(signoff_url)
    await expect(page.get_by_test_id("section-blockers")).to_contain_text(
        "Nothing blocks this milestone"
    )
    await page.get_by_test_id("signoff-submit").click()
    # A sign-off is final: confirmed on a page that says so.
    await expect(page.get_by_test_id("confirm-panel")).to_contain_text("The sign-off is final")
    await journey.shot("sign-off confirmation")
    await page.get_by_test_id("confirm-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("Signed off")
    await expect(page.get_by_test_id("signoff-state")).to_have_text(
        re.compile(r"by engineer@cotati\.example on \w{3} \d{1,2} \w{3} \d{4}")
    )
    await expect(page.get_by_test_id("signoff-submit")).to_have_count(0)
    await journey.shot("grading permit signed off")
