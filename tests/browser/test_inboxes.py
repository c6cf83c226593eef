"""Journeys: each role's "What needs you", with a real next action followed to its end;
a clock's timeline before and after a resubmission; an applicant's upload reaching the
planner's inbox. Page heights and load times go to test-artifacts/page-metrics.jsonl."""

from __future__ import annotations

from datetime import timedelta
from email.header import decode_header, make_header
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.measure import measure
from tests.browser.steps import city_today, import_birch_lane, new_id, open_when_ready
from tests.workflows.clock_helpers import outbox_messages

pytestmark = pytest.mark.browser


def inbox_item(page, kind: str, text: str):  # type: ignore[no-untyped-def]
    return page.locator(f"[data-testid=inbox-item][data-kind={kind}]").filter(has_text=text)


async def test_planner_inbox_leads_to_a_confirmed_decision(journey: Journey) -> None:
    stack = journey.stack
    app_id = new_id("WTF")
    stack.ok(
        "clock", "open", "--id", app_id, "--category", "macro_collocation",
        "--planner", "pm@cotati.example", "--applicant-email", "siteacq@carrier.example",
        "--site", "9 Inbox Way", "--submitted", (city_today() - timedelta(days=85)).isoformat(),
    )  # fmt: skip
    page = await journey.login("pm@cotati.example")
    await open_when_ready(page, f"/applications/{app_id}")
    await page.goto("/")
    item = inbox_item(page, "clock", app_id)
    await expect(item).to_contain_text("The earliest reading of the law requires a decision by")
    await measure(page, journey.name, "planner inbox")
    await journey.shot("planner inbox: a clock near its date")

    await item.get_by_test_id("inbox-action").click()
    assert page.url.endswith(f"/applications/{app_id}#record-decision")
    await expect(page.get_by_test_id("clock-timeline")).to_be_visible()
    # No outcome is chosen for the planner.
    await expect(page.get_by_test_id("decision-outcome")).to_have_value("")
    await page.get_by_test_id("decision-outcome").select_option("approved_with_conditions")
    await page.get_by_test_id("decision-submit").click()
    panel = page.get_by_test_id("confirm-panel")
    await expect(panel).to_contain_text("approved with conditions")
    await expect(panel).to_contain_text("The clock stops for good")
    await journey.shot("decision confirmation")
    await page.get_by_test_id("confirm-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("decided on time")
    await expect(page.get_by_test_id("section-actions")).to_have_count(0)  # closed: no forms
    await journey.shot("decision recorded")
    await page.goto("/")
    await expect(inbox_item(page, "clock", app_id)).to_have_count(0)


async def test_attorney_inbox_shows_deemed_approval_risk(journey: Journey) -> None:
    page = await journey.login("attorney@cotati.example")
    item = inbox_item(page, "risk", "DEMO-EXPIRED")
    await expect(item).to_contain_text("deemed-approval risk")
    await measure(page, journey.name, "attorney inbox")
    await journey.shot("attorney inbox")
    await item.get_by_test_id("inbox-action").click()
    await expect(page.get_by_test_id("section-ledger")).to_be_visible()
    await expect(page.get_by_test_id("section-actions")).to_have_count(0)  # reads only
    await journey.shot("the record the attorney reviews")


async def test_reviewer_engineer_and_manager_inboxes_to_a_sign_off(
    journey: Journey, tmp_path: Path
) -> None:
    stack = journey.stack
    project_id = import_birch_lane(stack, tmp_path)
    target = (city_today() + timedelta(days=20)).isoformat()
    pm_cli = stack.login("pm@cotati.example")
    pm_cli.ok("project", "plan", project_id, "--target", f"grading_permit={target}")

    # The project manager: the grading permit is the most urgent milestone, with blockers.
    page = await journey.login("pm@cotati.example")
    await open_when_ready(page, f"/projects/{project_id}")
    await expect(page.get_by_test_id("milestone-progress")).to_be_visible()
    await page.goto("/")
    item = inbox_item(page, "milestone", project_id)
    await expect(item).to_contain_text("Grading permit issued")
    await expect(item).to_contain_text("2 conditions still block it")
    await journey.shot("project manager's inbox")
    # The applicant's link: what is owed next, as a stepper.
    await page.goto(f"/projects/{project_id}")
    await page.get_by_test_id("link-create").click()
    url = await page.get_by_test_id("link-url").first.input_value()
    await journey.logout()

    applicant = await journey.person()
    await applicant.goto(url)
    await expect(applicant.locator("[data-testid=step][data-state=next]")).to_contain_text(
        "Grading permit issued"
    )
    await measure(applicant, journey.name, "applicant stepper")
    await journey.shot("applicant's stepper", applicant)
    card = applicant.locator("[data-testid=owed-condition][data-number='1']")
    await card.locator("details.upload > summary").click()
    await card.get_by_test_id("evidence-description").fill("Final drainage report")
    await card.get_by_test_id("evidence-file-input").set_input_files(
        files=[{"name": "drainage.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 d"}]
    )
    await card.get_by_test_id("evidence-upload").click()
    await expect(applicant.get_by_test_id("flash-ok")).to_contain_text("The city will review it")

    # Public works' reviewer: the upload is in their inbox, with its service level.
    await journey.login("publicworks@cotati.example")
    item = inbox_item(page, "review", project_id)
    await expect(item).to_contain_text("service level")
    await measure(page, journey.name, "reviewer inbox")
    await journey.shot("reviewer's inbox")
    await item.get_by_test_id("inbox-action").click()
    await page.get_by_test_id("review-clear").click()
    await expect(page.get_by_test_id("flash-ok")).to_have_text("Recorded: condition #1 cleared.")
    await journey.logout()
    stack.login("manager@cotati.example").ok(
        "project", "resolve", project_id, "2", "--resolution", "waived",
        "--reason", "No trees within 50 ft of the grading limits",
    )  # fmt: skip

    # Engineering: the grading permit now awaits sign-off; confirmed, then signed.
    await journey.login("engineer@cotati.example")
    item = inbox_item(page, "signoff", project_id)
    await expect(item).to_contain_text("All 2 conditions gating it are resolved")
    await measure(page, journey.name, "engineering inbox")
    await journey.shot("engineering inbox: awaiting sign-off")
    await item.get_by_test_id("inbox-action").click()
    await page.get_by_test_id("signoff-submit").click()
    await expect(page.get_by_test_id("confirm-panel")).to_contain_text("The sign-off is final")
    await page.get_by_test_id("confirm-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text("Signed off")
    await journey.shot("signed off")
    await page.goto("/")
    await expect(inbox_item(page, "signoff", project_id)).to_have_count(0)


async def test_timeline_and_an_applicant_upload_reaching_the_planner(journey: Journey) -> None:
    stack = journey.stack
    app_id = new_id("WTF")
    stack.ok(
        "clock", "open", "--id", app_id, "--category", "macro_collocation",
        "--planner", "pm@cotati.example", "--applicant-email", "siteacq@carrier.example",
        "--site", "12 Timeline Rd", "--submitted", (city_today() - timedelta(days=14)).isoformat(),
    )  # fmt: skip
    stack.login("pm@cotati.example").ok(
        "clock", "notice", app_id, "--item", "A|RF emissions report|CMC 17.44.070(A)",
        "--date", (city_today() - timedelta(days=6)).isoformat(),
    )  # fmt: skip
    page = await journey.login("pm@cotati.example")
    await open_when_ready(page, f"/applications/{app_id}")
    timeline = page.get_by_test_id("clock-timeline")
    await expect(timeline.locator("[data-kind=tolled]")).to_have_count(1)
    await expect(timeline.locator("[data-kind=today]")).to_have_count(1)
    await expect(page.get_by_test_id("timeline-words")).to_contain_text(
        "Tolled (notice outstanding)"
    )
    await expect(page.get_by_test_id("days-tolled")).to_contain_text("6 so far")
    await measure(page, journey.name, "application while tolled")
    await journey.shot("timeline while the notice is outstanding")
    await page.get_by_test_id("link-create").click()
    url = await page.get_by_test_id("link-url").first.input_value()

    applicant = await journey.person()
    await applicant.goto(url)
    await expect(applicant.get_by_test_id("owed-item")).to_contain_text("RF emissions report")
    await applicant.get_by_test_id("application-file").set_input_files(
        files=[{"name": "rf-report.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 rf"}]
    )
    await applicant.get_by_test_id("application-upload").click()
    await expect(applicant.get_by_test_id("flash-ok")).to_contain_text("The planner has been told.")
    await journey.shot("applicant uploaded the report", applicant)

    await page.goto("/")
    item = inbox_item(page, "upload", app_id)
    await expect(item).to_contain_text("uploaded 1 document")
    await journey.shot("planner's inbox: the upload")
    await item.get_by_test_id("inbox-action").click()
    await page.get_by_test_id("resubmission-submit").click()
    await expect(page.get_by_test_id("flash-ok")).to_contain_text(
        "The applicant is sent a letter with the new dates."
    )
    timeline = page.get_by_test_id("clock-timeline")
    await expect(timeline.locator("[data-kind=deadline]")).to_have_count(1)
    await expect(page.get_by_test_id("timeline-words")).to_contain_text("Shot clock date")
    await journey.shot("timeline after the resubmission")
    # The resubmission letter, once; the planner's upload notice, once.
    messages = outbox_messages(stack.outbox)
    mine = [
        str(make_header(decode_header(m["Subject"])))
        for m in messages
        if str(m["X-Clearance-Notice-Key"]).startswith(f"{app_id}:")
    ]
    assert sum("Resubmission received" in s for s in mine) == 1
    assert sum("Applicant upload for" in s for s in mine) == 1
