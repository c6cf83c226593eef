"""Journey: the administrator imports a project the planner manages from a caseload file;
the planner, who has no Clearance password, signs in through the city's identity
provider (a real OpenID Connect provider the tests start) and lands in their inbox, where
the imported project waits with its conditions as they stood."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.async_api import expect

from actions.caseload_files import COLUMNS
from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id
from tests.oidc.provider import ACCOUNTS, unavailable

pytestmark = pytest.mark.browser
PLANNER = ACCOUNTS["pat"]["email"]


def _projects_file(path: Path, project_id: str, name: str) -> Path:
    def ago(n: int) -> str:
        return (city_today() - timedelta(days=n)).isoformat()

    project = {"project_id": project_id, "project_name": name, "jurisdiction": "cotati",
               "approved_on": ago(90), "project_manager_email": PLANNER}  # fmt: skip
    rows = [
        project
        | {
            "condition_number": "1",
            "condition_text": "Erosion control plan.",
            "department": "engineering",
            "gates": "grading_permit",
            "status": "cleared",
            "evidence_date": ago(40),
            "status_date": ago(30),
            "signoffs": f"grading_permit {ago(20)}",
        },  # fmt: skip
        {
            "project_id": project_id,
            "condition_number": "2",
            "condition_text": "Park fees.",
            "department": "planning",
            "gates": "building_permit",
            "status": "submitted",
            "evidence_date": ago(5),
        },  # fmt: skip
        {
            "project_id": project_id,
            "condition_number": "3",
            "condition_text": "Fire flow test.",
            "department": "fire",
            "gates": "building_permit",
            "status": "open",
        },  # fmt: skip
    ]
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS["projects"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


async def test_a_planner_signs_in_with_the_city_account_and_finds_the_imported_work(
    journey: Journey, tmp_path: Path
) -> None:
    why = unavailable()
    if why:
        pytest.skip(why)
    project_id = new_id("OIDC")
    name = f"Imported Oaks {project_id}"
    admin = journey.stack.login("admin@cotati.example")
    done = admin.ok("import", "caseload", str(_projects_file(tmp_path / "p.csv", project_id, name)))
    assert "1 created" in done.stdout, done

    page = journey.page
    await page.goto("/inbox")
    await page.get_by_test_id("login-oidc").click()
    # The city's provider's own log-in form.
    await page.locator("input[name=login]").fill("pat")
    await page.locator("input[name=password]").fill("the city password")
    await journey.shot("the city's sign-in")
    await page.locator("button[type=submit]").click()

    await page.wait_for_url("**/inbox")
    await expect(page.get_by_test_id("current-user")).to_contain_text(PLANNER)
    item = page.get_by_test_id("inbox-item").filter(has_text=name)
    await expect(item).to_contain_text("Building permit")
    await expect(item).to_contain_text("2 blockers")
    await journey.shot("the planner's inbox")

    await item.get_by_role("link", name=name).first.click()
    await expect(page.locator("body")).to_contain_text("Park fees")
    await journey.shot("the imported project")
