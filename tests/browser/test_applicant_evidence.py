"""Journey: the project manager sends the applicant a link; the applicant, who never logs
in, sees what they owe and uploads a document; the department's reviewer clears it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import APPLICANT, import_birch_lane, open_when_ready

pytestmark = pytest.mark.browser

DOCUMENT = b"%PDF-1.4\n% Final drainage report, Birch Lane Townhomes\n%%EOF\n"


async def test_applicant_uploads_evidence_and_a_reviewer_clears_it(
    journey: Journey, tmp_path: Path
) -> None:
    project_id = import_birch_lane(journey.stack, tmp_path)

    pm = await journey.login("pm@cotati.example")
    await open_when_ready(pm, f"/projects/{project_id}")
    await pm.get_by_test_id("link-email").fill(APPLICANT)
    await pm.get_by_test_id("link-create").click()
    await expect(pm.get_by_test_id("flash-ok")).to_contain_text("Applicant link created")
    link = pm.get_by_test_id("link-row").filter(has_text=APPLICANT)
    await expect(link).to_have_attribute("data-state", "active")
    url = await link.get_by_test_id("link-url").input_value()
    assert f"{journey.stack.base_url}/a/" in url
    await journey.shot("applicant link created", pm)

    # The applicant, at their own computer: no log-in, only their project.
    applicant = await journey.person()
    await applicant.goto(url)
    await expect(applicant.get_by_role("heading", level=1)).to_contain_text(
        "what the city still needs from you"
    )
    owed = applicant.get_by_test_id("owed-condition")
    await expect(owed).to_have_count(3)
    await expect(applicant.get_by_test_id("current-user")).to_have_count(0)  # not staff
    await expect(applicant.get_by_test_id("nav-dashboard")).to_have_count(0)
    await journey.shot("applicant portal", applicant)

    upload = tmp_path / "drainage-report.pdf"
    upload.write_bytes(DOCUMENT)
    card = owed.and_(applicant.locator("[data-number='1']"))
    await card.locator("details.upload > summary").click()  # each upload form is folded
    await card.get_by_test_id("evidence-description").fill("Final drainage report")
    await card.get_by_test_id("evidence-file-input").set_input_files(str(upload))
    await card.get_by_test_id("evidence-upload").click()
    await expect(applicant.get_by_test_id("flash-ok")).to_have_text(
        "Received: drainage-report.pdf for condition #1. The city will review it."
    )
    await expect(owed).to_have_count(2)
    await expect(applicant.get_by_test_id("awaiting-condition")).to_contain_text("#1")
    await journey.shot("document uploaded", applicant)

    # Public works' reviewer: the upload is in their queue; they read it and clear it.
    reviewer = await journey.person()
    await journey.login("publicworks@cotati.example", reviewer)
    await reviewer.goto("/queues/engineering")
    row = reviewer.get_by_test_id("queue-row").filter(has_text=project_id)
    await expect(row).to_contain_text("submitted")
    await journey.shot("engineering review queue", reviewer)
    await row.get_by_test_id("queue-open-1").click()
    await expect(reviewer.get_by_test_id("evidence-row")).to_contain_text("Final drainage report")
    file_link = reviewer.get_by_test_id("evidence-file")
    await expect(file_link).to_have_text("drainage-report.pdf")
    async with reviewer.expect_download() as download_info:
        await file_link.click()
    download = await download_info.value
    saved = tmp_path / "downloaded.pdf"
    await download.save_as(str(saved))
    assert saved.read_bytes() == DOCUMENT

    # Returned without a comment: refused; with one, the applicant reads it.
    await reviewer.get_by_test_id("review-return").click()
    await expect(reviewer.get_by_test_id("flash-error")).to_contain_text(
        "returning evidence needs a comment saying what is missing"
    )
    await reviewer.get_by_test_id("review-comment").fill("Sheet C-3 (detention basin) is missing")
    await reviewer.get_by_test_id("review-return").click()
    await expect(reviewer.get_by_test_id("flash-ok")).to_have_text(
        "Recorded: condition #1 returned."
    )
    await expect(reviewer.get_by_test_id("comment")).to_contain_text("Sheet C-3")
    await journey.shot("reviewer returned it with a comment", reviewer)

    await applicant.reload()
    returned = owed.and_(applicant.locator("[data-number='1']"))
    await expect(returned).to_contain_text("returned for changes")
    await expect(returned).to_contain_text(
        "The reviewer said: Sheet C-3 (detention basin) is missing"
    )
    upload.write_bytes(DOCUMENT + b"% with sheet C-3\n")
    await returned.locator("details.upload > summary").click()
    await returned.get_by_test_id("evidence-description").fill("Drainage report, rev. 2")
    await returned.get_by_test_id("evidence-file-input").set_input_files(str(upload))
    await returned.get_by_test_id("evidence-upload").click()
    await expect(applicant.get_by_test_id("flash-ok")).to_contain_text("for condition #1")
    await journey.shot("applicant sent a revision", applicant)

    await reviewer.reload()
    await expect(reviewer.get_by_test_id("evidence-row")).to_have_count(2)
    await expect(reviewer.get_by_test_id("evidence-row").nth(1)).to_contain_text("rev. 2")
    await reviewer.get_by_test_id("review-clear").click()
    await expect(reviewer.get_by_test_id("flash-ok")).to_have_text(
        "Recorded: condition #1 cleared."
    )
    await expect(reviewer.get_by_test_id("condition-status")).to_have_text("cleared")
    await journey.shot("reviewer cleared it", reviewer)

    # Back on the applicant's page: #1 is no longer owed nor waiting.
    await applicant.reload()
    await expect(owed).to_have_count(2)
    numbers = await owed.evaluate_all("cards => cards.map(c => c.dataset.number)")
    assert numbers == ["2", "3"]
    await expect(applicant.get_by_test_id("awaiting-condition")).to_have_count(0)
    await journey.shot("applicant sees it cleared", applicant)

    # The project manager revokes the link: it stops working at once.
    await pm.reload()
    await link.get_by_test_id("link-revoke").click()
    await expect(pm.get_by_test_id("flash-ok")).to_have_text("The applicant link was revoked.")
    await expect(link).to_have_attribute("data-state", "revoked")
    response = await applicant.goto(url)
    assert response is not None and response.status == 410
    await expect(applicant.get_by_test_id("portal-closed")).to_contain_text("revoked by the city")
    await expect(applicant.get_by_test_id("owed-condition")).to_have_count(0)
    await journey.shot("revoked link refused", applicant)
