"""Journey: an administrator downloads the template, previews a caseload file (a bad one
first: every error by row and column, nothing imported), imports a clean one while the
page shows its progress, and finds the imported clock with the dates the preview showed
and its past events in the ledger, and no letter sent for them."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from playwright.async_api import expect

from actions.caseload_files import COLUMNS
from tests.browser.harness import Journey
from tests.browser.steps import city_today, new_id

pytestmark = pytest.mark.browser

ITEM = "A1 | Structural calculations | Cotati Municipal Code 17.62.040"


def _file(rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS["wireless"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def _row(app_id: str, **changes: str) -> dict[str, str]:
    def ago(n: int) -> str:
        return (city_today() - timedelta(days=n)).isoformat()

    return {
        "application_id": app_id,
        "jurisdiction": "cotati",
        "category": "macro_collocation",
        "site_address": "8000 Old Redwood Hwy",
        "applicant_email": "tower@tower.example",
        "planner_email": "pm@cotati.example",
        "event_1": "submitted",
        "date_1": ago(40),
        "event_2": "incomplete_notice",
        "date_2": ago(30),
        "details_2": ITEM,
        "event_3": "resubmitted",
        "date_3": ago(12),
    } | changes


async def test_an_administrator_previews_and_imports_a_caseload_file(journey: Journey) -> None:
    page = await journey.login("admin@cotati.example")
    await page.get_by_test_id("nav-caseload").click()
    async with page.expect_download() as download:
        await page.get_by_test_id("template-wireless-csv").click()
    assert (await download.value).suggested_filename == "wireless.csv"
    await journey.shot("import page")

    app_id = new_id("IMP")
    bad = _file([_row(app_id), _row(new_id("IMP"), category="pigeon_loft")])
    await page.get_by_test_id("caseload-file").set_input_files(
        files=[{"name": "caseload.csv", "mimeType": "text/csv", "buffer": bad}]
    )
    await page.get_by_test_id("caseload-preview").click()
    await expect(page.get_by_test_id("caseload-refused")).to_contain_text("1 error(s)")
    await expect(page.get_by_test_id("caseload-errors")).to_contain_text("pigeon_loft")
    await expect(page.get_by_test_id("caseload-import")).to_have_count(0)
    await journey.shot("a bad file refused")

    await page.goto("/admin/import")
    await page.get_by_test_id("caseload-file").set_input_files(
        files=[{"name": "caseload.csv", "mimeType": "text/csv", "buffer": _file([_row(app_id)])}]
    )
    await page.get_by_test_id("caseload-preview").click()
    planned = page.get_by_test_id(f"plan-{app_id}")
    await expect(planned).to_contain_text("resubmitted")
    due = await planned.get_by_test_id("plan-date-conservative_date").inner_text()
    assert due > city_today().isoformat()
    await journey.shot("preview")
    await page.get_by_test_id("caseload-import").click()
    await expect(page.get_by_test_id("caseload-done")).to_contain_text("1 created")
    await journey.shot("imported")

    await page.goto(f"/applications/{app_id}")
    await expect(page.get_by_test_id("conservative-date")).to_have_attribute("data-date", due)
    timeline = page.get_by_test_id("timeline-event")
    await expect(timeline).to_have_count(3)
    # The ledger explains each past event (and may add lines of its own, such as the
    # period that applies): the resubmission's line says the tolling ended.
    ledger = page.get_by_test_id("ledger-row")
    await expect(ledger.filter(has_text="ends the tolling")).to_have_count(1)
    assert await ledger.count() >= 3
    await expect(page.get_by_test_id("section-notices")).to_contain_text("None yet")
    await journey.shot("imported clock")
