"""The reports across projects as a staff member and a script meet them: the page with
its charts and links, the CSV and PDF by session or by bearer token, the JSON API, and a
period that is not a date named in one line."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from models.database import make_engine
from reports import portfolio
from settings import Settings
from tests.web.helpers import Browser, Stackish
from web.auth.accounts import Accounts

PM = "pm@cotati.example"


@pytest.fixture(scope="module")
def token(web_settings: Settings) -> str:
    return Accounts(make_engine(web_settings.database_url)).new_api_token(PM, "reports")


def test_reports_index_lists_every_cross_project_report(browser: Browser) -> None:
    page = browser.as_(PM).get("/reports").text
    for kind in portfolio.kinds().values():
        assert f'href="/reports/all/{kind.key}"' in page
        assert f'href="/reports/all/{kind.key}.pdf"' in page


def test_each_report_page_has_its_figures_chart_and_files(
    browser: Browser, stack: Stackish
) -> None:
    stack.new_clock(prefix="PORT")
    client = browser.as_(PM)
    for key, kind in portfolio.kinds().items():
        answer = client.get(f"/reports/all/{key}")
        assert answer.status_code == 200, (key, answer.text[answer.text.find("<main") :][:600])
        assert f"<h1>{kind.title}" in answer.text or kind.key == "annual-mmrp"
        assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in answer.text
        assert f'href="/reports/all/{key}.pdf' in answer.text
    lapsing = client.get("/reports/all/lapsing-90-days").text
    assert "PORT-" in lapsing


def test_csv_and_pdf_by_token_without_a_session(browser: Browser, token: str) -> None:
    client = browser.as_(None)
    auth = {"Authorization": f"Bearer {token}"}
    csv = client.get("/reports/all/lapsing-90-days.csv", headers=auth, follow_redirects=False)
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[0] == "date,days_left,clock,id,site_or_title,if_it_lapses,staff"
    pdf = client.get(
        "/reports/all/conditions-cleared.pdf?from=2026-01-01&to=2026-12-31",
        headers=auth,
        follow_redirects=False,
    )
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(pdf.content))
    cover = " ".join(reader.pages[0].extract_text().split())
    assert "Conditions cleared" in cover and "2026-01-01 to 2026-12-31" in cover
    # Without a session or token, a browser is sent to log in.
    assert client.get("/reports/all/annual-mmrp.pdf", follow_redirects=False).status_code == 303


def test_a_bad_period_and_an_unknown_report_are_named(browser: Browser) -> None:
    client = browser.as_(PM)
    bad = client.get("/reports/all/conditions-cleared?from=yesterday")
    assert bad.status_code == 400 and "from: &#39;yesterday&#39; is not a date" in bad.text
    assert client.get("/reports/all/no-such-report").status_code == 404


def test_the_api_answers_every_line(browser: Browser) -> None:
    answer = browser.api(PM, "GET", "/api/v1/reports/lapsing-90-days")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["columns"][:3] == ["date", "days_left", "clock"]
    assert {f["label"] for f in body["figures"]} >= {"Clocks lapsing", "Within 14 days"}
    refused = browser.api(PM, "GET", "/api/v1/reports/annual-mmrp?year=MMXXVII")
    assert refused.status_code == 400
    assert refused.json() == {"error": "year: 'MMXXVII' is not a year"}


def test_administrative_record_pdfs(browser: Browser, stack: Stackish, token: str) -> None:
    app_id = stack.new_clock(prefix="REC")
    project_id = stack.new_project("REC")
    client = browser.as_(None)
    auth = {"Authorization": f"Bearer {token}"}
    clock = client.get(f"/applications/{app_id}/record.pdf", headers=auth)
    assert clock.status_code == 200 and clock.headers["content-type"] == "application/pdf"
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(clock.content)).pages)
    assert "Administrative record" in text and app_id in text and "SHA-256" in text
    project = client.get(f"/projects/{project_id}/record.pdf", headers=auth)
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(project.content)).pages)
    assert f"The audit chain of project {project_id} holds" in " ".join(text.split())
    page = browser.as_(PM).get(f"/projects/{project_id}").text
    assert f'href="/projects/{project_id}/record.pdf"' in page
    missing = client.get("/permits/NO-SUCH-CLOCK/record.pdf", headers=auth)
    assert missing.status_code == 404
