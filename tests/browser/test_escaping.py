"""Journey: a resolution whose conditions carry markup (a script tag, an image with an
onerror handler) shows that markup as text, and none of it runs, on every page that shows
a condition: staff pages and the applicant's portal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tests.browser.harness import Journey
from tests.browser.steps import APPLICANT, new_id, open_when_ready

pytestmark = pytest.mark.browser

SCRIPT = "<script>document.title='pwned'</script>"
IMAGE = "<img src=x onerror=\"document.title='pwned'\">"
RESOLUTION = f"""\
RESOLUTION NO. 2026-09
RESOLUTION OF THE CITY COUNCIL OF THE CITY OF COTATI APPROVING THE ELM COURT DUPLEX
NOW, THEREFORE, BE IT RESOLVED that the City Council approves the project subject to the
following Conditions of Approval:
CONDITIONS OF APPROVAL
PLANNING DIVISION
1. Prior to issuance of a grading permit, the Applicant shall post the sign {SCRIPT} at the site.
2. Prior to issuance of a grading permit, the Applicant shall submit plans {IMAGE} for review.
"""


async def _inert(page: Any, what: str) -> None:
    assert await page.title() != "pwned", f"markup ran on {what}"
    assert await page.locator("img[src=x]").count() == 0, f"an image element on {what}"


async def test_markup_in_a_condition_shows_as_text_and_never_runs(
    journey: Journey, tmp_path: Path
) -> None:
    stack = journey.stack
    path = tmp_path / "elm-court.txt"
    path.write_text(RESOLUTION)
    project_id = new_id("ELM")
    stack.ok(
        "conditions", "import", str(path), "--project", project_id, "--name", "Elm Court",
        "--pm", "pm@cotati.example", "--applicant-email", APPLICANT, "--yes",
    )  # fmt: skip
    dialogs: list[str] = []

    page = await journey.login("pm@cotati.example")
    page.on("dialog", lambda d: dialogs.append(d.message))
    await open_when_ready(page, f"/projects/{project_id}")
    rows = page.get_by_test_id("condition-row")
    await expect(rows.filter(has_text=SCRIPT)).to_have_count(1)
    await expect(rows.filter(has_text=IMAGE)).to_have_count(1)
    await _inert(page, "the project page")
    await journey.shot("project page shows the markup as text")

    await page.goto(f"/projects/{project_id}/conditions/1")
    await expect(page.get_by_test_id("condition-text")).to_contain_text(SCRIPT)
    await _inert(page, "the condition page")
    await page.goto(f"/projects/{project_id}?q={SCRIPT}")
    await expect(page.get_by_test_id("filter-q")).to_have_value(SCRIPT)
    await _inert(page, "a search for the markup")
    await journey.shot("search echoes the markup as text")

    await page.goto(f"/projects/{project_id}")
    await page.get_by_test_id("link-email").fill(APPLICANT)
    await page.get_by_test_id("link-create").click()
    url = await page.get_by_test_id("link-url").first.input_value()
    applicant = await journey.person()
    applicant.on("dialog", lambda d: dialogs.append(d.message))
    await applicant.goto(url)
    owed = applicant.get_by_test_id("owed-condition")
    await expect(owed.filter(has_text=SCRIPT)).to_have_count(1)
    await expect(owed.filter(has_text=IMAGE)).to_have_count(1)
    await _inert(applicant, "the applicant's portal")
    await journey.shot("portal shows the markup as text", applicant)
    assert dialogs == []
