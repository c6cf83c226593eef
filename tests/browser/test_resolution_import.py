"""Journey: a project manager uploads a city's resolution as a PDF, reviews the parse,
corrects two gates, imports it into a new project, and sees the project's blockers and the
expiry clock its time limit became."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import new_id
from tests.resolution_pdf import write_resolution_pdf

pytestmark = pytest.mark.browser


async def test_upload_a_pdf_correct_two_gates_and_import(journey: Journey, tmp_path: Path) -> None:
    pdf = write_resolution_pdf(tmp_path / "rio-lindo-resolution.pdf")
    project_id = new_id("RL")

    page = await journey.login("pm@cotati.example")
    await page.get_by_test_id("nav-import").click()
    await page.get_by_test_id("import-file").set_input_files(str(pdf))
    await journey.shot("resolution chosen")
    await page.get_by_test_id("import-read").click()

    # The review table (after the progress page, if the PDF takes a moment).
    rows = page.get_by_test_id("import-row")
    await expect(rows).to_have_count(11, timeout=30_000)
    await expect(page.get_by_test_id("import-summary")).to_contain_text("adopted 2025-11-05")
    first = rows.filter(has=page.locator('input[value="1"]'))
    await expect(first.get_by_test_id("import-warning")).to_contain_text(
        "Condition 1: no milestone in its words"
    )
    # Flagged conditions are listed first, so rows are found by their number.
    expiry = page.locator('[data-testid=import-row][data-number="2"]')
    await expect(expiry.get_by_test_id("import-time-limit")).to_have_text(
        "expires 24 months after approval (1 extension of 12 months)"
    )
    await journey.shot("review table with warnings and a time limit")

    # Two gates corrected: #1 holds the building permit, #6 the occupancy.
    await first.get_by_test_id("import-gates").fill("building_permit")
    sixth = page.locator('[data-testid=import-row][data-number="6"]')
    await sixth.get_by_test_id("import-gates").fill("occupancy")
    await sixth.get_by_test_id("import-kind").select_option("requirement")
    await page.get_by_test_id("import-project-id").fill(project_id)
    await page.get_by_test_id("import-name").fill("Riverwalk Market Hall")
    await page.get_by_test_id("import-applicant-email").fill("market@riverwalk.example")
    await journey.shot("two gates corrected, new project named")
    await page.get_by_test_id("import-submit").click()

    await expect(page.get_by_test_id("flash-ok")).to_contain_text(
        f"Imported 11 conditions into {project_id}, 3 corrected", timeout=30_000
    )
    assert page.url.endswith(f"/projects/{project_id}")
    # The blockers of the next milestone: the grading permit (#7, #8 by Engineering's preamble).
    await expect(page.get_by_test_id("next-milestone")).to_contain_text("Grading permit")
    await expect(page.get_by_test_id("next-milestone")).to_contain_text("2 conditions block it")
    building = page.locator('[data-testid=milestone-row][data-milestone="building_permit"]')
    await expect(building).to_contain_text("2")  # #4 and the corrected #1
    # The expiry clock: 24 months from the adoption on 2025-11-05.
    clock = page.locator('[data-testid=time-limit-row][data-condition="2"]')
    await expect(clock).to_contain_text("2027-11-05")
    await journey.shot("project with its blockers and the expiry clock")

    # The conditions sit in collapsed milestone groups: follow the link itself.
    href = await page.get_by_test_id("condition-open-1").first.get_attribute("href")
    await page.goto(urljoin(page.url, href or ""))
    facts = page.locator("dl.facts")
    await expect(facts).to_contain_text(re.compile(r"Building permit.*corrected"))
    await journey.shot("condition 1 corrected at import")


async def test_the_demo_has_a_second_project_with_its_expiry_running(journey: Journey) -> None:
    from datetime import timedelta

    from rules.conditions.time_limits import add_months
    from stack.demo import TAPROOM_APPROVED_DAYS_AGO, TAPROOM_ID
    from tests.browser.steps import city_today

    approved = city_today() - timedelta(days=TAPROOM_APPROVED_DAYS_AGO)
    page = await journey.login("pm@cotati.example")
    await page.goto(f"/projects/{TAPROOM_ID}")
    clock = page.locator('[data-testid=time-limit-row][data-condition="PL-2"]')
    await expect(clock).to_contain_text(add_months(approved, 24).isoformat(), timeout=30_000)
    await expect(clock).to_contain_text("running")
    waiting = page.get_by_test_id("section-time-limits-waiting")
    await expect(waiting).to_contain_text("counts from invoice, not recorded yet")
    await journey.shot("second demo project: prefixed numbers, expiry clock running")
