"""Journeys: a planning manager reads the reports across every project (each page with
its chart, each PDF opened and read), files a clock's administrative record, searches,
and an integrator opens the API explorer offline."""

from __future__ import annotations

import io

import pytest
from playwright.async_api import expect
from pypdf import PdfReader

from reports import portfolio
from tests.browser.harness import Journey

pytestmark = pytest.mark.browser

MANAGER = "manager@cotati.example"


def pdf_text(body: bytes) -> str:
    pages = PdfReader(io.BytesIO(body)).pages
    return " ".join(" ".join(page.extract_text().split()) for page in pages)


async def test_reports_across_projects_as_pages_and_pdfs(journey: Journey) -> None:
    page = await journey.login(MANAGER)
    await page.get_by_test_id("nav-reports").click()
    rows = page.get_by_test_id("portfolio-row")
    await expect(rows).to_have_count(len(portfolio.kinds()))
    for kind in portfolio.kinds().values():
        await page.goto("/reports")
        await page.get_by_role("link", name=kind.title, exact=True).click()
        await expect(page.get_by_role("heading", level=1)).to_contain_text(kind.title.split(",")[0])
        body = page.get_by_test_id("report-body")
        await expect(body.locator("svg.chart").first).to_be_visible()
        await expect(body.locator(".report-figures")).to_be_visible()
        await journey.shot(f"report {kind.key}")
        href = await page.get_by_test_id("report-pdf").get_attribute("href")
        answer = await page.request.get(href)
        assert answer.ok and answer.headers["content-type"] == "application/pdf"
        text = pdf_text(await answer.body())
        assert kind.title.split(",")[0] in text and "CITY OF COTATI" in text
        csv = await page.request.get(await page.get_by_test_id("report-csv").get_attribute("href"))
        assert csv.ok and csv.headers["content-type"].startswith("text/csv")
    # The demo's open clocks are in the next 90 days.
    await page.goto("/reports/all/lapsing-90-days")
    await expect(page.get_by_test_id("report-body")).to_contain_text("DEMO-NEAR")


async def test_a_clocks_administrative_record(journey: Journey) -> None:
    page = await journey.login(MANAGER)
    await page.goto("/applications/DEMO-TOLLED")
    link = page.get_by_test_id("record-pdf")
    await expect(link).to_have_text("Administrative record (PDF)")
    answer = await page.request.get(await link.get_attribute("href"))
    assert answer.ok
    text = pdf_text(await answer.body())
    assert "Administrative record" in text and "DEMO-TOLLED" in text
    assert "incompleteness notice" in text  # the timeline
    assert "47 CFR 1.6003" in text  # the ledger's citations
    assert "Notices as sent" in text and "attempt(s)" in text  # with their delivery
    assert "SHA-256 of the events as recorded" in text  # the verification


async def test_search_across_everything(journey: Journey) -> None:
    page = await journey.login(MANAGER)
    await page.get_by_test_id("nav-search").click()
    await page.get_by_test_id("search-q").fill("Cotati Village")
    await page.get_by_test_id("search-submit").click()
    projects = page.get_by_test_id("search-projects")
    await expect(projects.get_by_role("link", name="Cotati Village (PA# 21-29)")).to_be_visible()
    await page.get_by_test_id("search-q").fill("DEMO-NEAR")
    await page.get_by_test_id("search-submit").click()
    await expect(page.get_by_test_id("search-clocks")).to_contain_text("DEMO-NEAR")
    await page.get_by_test_id("search-q").fill("drainage")
    await page.get_by_test_id("search-submit").click()
    conditions = page.get_by_test_id("search-conditions")
    await expect(conditions.locator("mark").first).to_be_visible()
    await journey.shot("condition text found")
    await conditions.get_by_role("link").first.click()
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Condition")


async def test_the_api_explorer_renders_openapi_3_1_offline(journey: Journey) -> None:
    page = journey.page
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    await page.goto("/api/docs")
    await expect(page.locator(".swagger-ui .info .title")).to_contain_text("Clearance")
    await expect(page.locator(".opblock").first).to_be_visible()
    assert await page.locator(".opblock").count() >= 25
    await expect(page.get_by_text("Unable to render this definition")).to_have_count(0)
    await journey.shot("api explorer")
    # Open one operation: its error responses carry the Error schema.
    await page.locator(".opblock-summary-path", has_text="/api/v1/reports/{report}").first.click()
    await expect(page.locator(".responses-table").first).to_contain_text("422")
    assert all(u.startswith(journey.stack.base_url) for u in requested), requested
