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
    await expect(page.get_by_test_id("next-milestone")).to_contain_text("2 condition(s) block it")
    await journey.shot("project with two blockers")
    await page.get_by_test_id("signoff-open-grading_permit").click()
    await expect(page.get_by_test_id("section-blockers")).to_contain_text(
        "2 condition(s) still block this milestone"
    )
    await page.get_by_test_id("signoff-submit").click()
    refusal = page.get_by_test_id("flash-error")
    await expect(refusal).to_contain_text("Refused")
    await expect(refusal).to_contain_text("#1")
    await expect(refusal).to_contain_text("#2")
    blockers = page.get_by_test_id("blocker-row")
    await expect(blockers).to_have_count(2)
    await expect(blockers.nth(0)).to_contain_text("Public Works / Engineering")
    await expect(blockers.nth(1)).to_contain_text("Planning Division")
    await expect(page.get_by_test_id("signoff-state")).to_have_text("not yet")
    await journey.shot("sign-off refused with its blockers")
    await journey.logout()

    # Planning's reviewer may review, but not another department's condition.
    await journey.login("planning@cotati.example")
    await page.goto(f"/projects/{project_id}/conditions/1")
    await page.get_by_test_id("review-clear").click()
    refusal = page.get_by_test_id("flash-error")
    await expect(refusal).to_contain_text(
        "condition #1 is cleared by Public Works / Engineering; planning@cotati.example "
        "(department_reviewer, planning) is not its reviewer"
    )
    await expect(page.get_by_test_id("condition-status")).to_have_text("submitted, awaiting review")
    await journey.shot("another department's reviewer refused")
    await journey.logout()

    # Public works' reviewer finds the drainage report in their queue and clears it.
    await journey.login("publicworks@cotati.example")
    queue = page.locator("#review-queue [data-testid=queue-row]").filter(has_text=project_id)
    await expect(queue).to_contain_text("#1")
    await journey.shot("engineering review queue")
    await queue.get_by_test_id("queue-open-1").click()
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
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("Signed off")
    await expect(page.get_by_test_id("signoff-state")).to_have_text(
        re.compile(r"by engineer@cotati\.example on \d{4}-\d{2}-\d{2}")
    )
    await expect(page.get_by_test_id("signoff-submit")).to_have_count(0)
    await journey.shot("grading permit signed off")
