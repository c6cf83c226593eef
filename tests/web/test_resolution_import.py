"""Importing a resolution through the web app and the JSON API, against the real workflows
(dev server + worker): upload, the review table with every warning, corrections (audited),
import into a new and an existing project, and every kind of bad file, after which nothing
is stored."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

from sqlalchemy import func, select

from models.database import make_engine, session_factory
from models.schema import AuditRow, ConditionRow, Project
from settings import Settings
from tests.bad_files import blank_pdf, encrypted_pdf, zip_named_docx
from tests.polling import polls
from tests.resolution_pdf import write_resolution_pdf
from tests.web.helpers import Browser, csrf_of
from tests.word_docx import word_resolution

CORPUS = Path(__file__).resolve().parents[1] / "rules" / "conditions" / "corpus"
COUNTY = (CORPUS / "county_board.txt").read_text("utf-8")
PM = "pm@cotati.example"
MANAGER = "manager@cotati.example"
REVIEWER = "publicworks@cotati.example"
NOT_A_RESOLUTION = "Dear neighbour,\nThe farmers market moves to Saturday. See you there.\n"
NO_CONDITIONS = (
    "RESOLUTION OF THE CITY COUNCIL OF THE CITY OF TESTVILLE APPROVING A PARK NAME\n"
    "CONDITIONS OF APPROVAL\nThe park shall be called Alder Park.\n"
)


def _sessions(settings: Settings):  # type: ignore[no-untyped-def]
    return session_factory(make_engine(settings.database_url))


def _count(settings: Settings, model: type, **where: str) -> int:
    with _sessions(settings)() as s:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return s.scalar(query) or 0


def _review(client, response):  # type: ignore[no-untyped-def]
    """Follow the upload to the review table, through the progress page if it shows."""
    assert response.status_code == 303, response.text[:400]
    url = response.headers["location"]
    for _ in polls():
        page = client.get(url)
        if 'data-testid="import-progress"' not in page.text:
            return url, page
        time.sleep(0.05)
    raise AssertionError("the resolution was never read")


def _upload(browser: Browser, email: str, *, text: str = "", pdf: bytes = b"", name: str = ""):  # type: ignore[no-untyped-def]
    client = browser.as_(email)
    token = csrf_of(client.get("/projects/import").text)
    if pdf or name:
        files = {"file": (name or "resolution.pdf", pdf or text.encode(), "application/pdf")}
        response = client.post(
            "/projects/import", data={"csrf_token": token}, files=files, follow_redirects=False
        )
    else:
        response = client.post(
            "/projects/import",
            data={"csrf_token": token, "text": text},
            follow_redirects=False,
        )
    return client, response


def _row_fields(page: str) -> dict[str, str]:
    """The review form as the browser would send it (every row, unchanged)."""
    fields: dict[str, str] = {}
    for name, value in re.findall(
        r'<input type="(?:hidden|text)" name="(c-\d+-\w+)" value="([^"]*)"', page
    ):
        fields[name] = value.replace("&#39;", "'").replace("&amp;", "&")
    for name, body in re.findall(r'<select name="(c-\d+-\w+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]+)" selected', body)
        fields[name] = chosen.group(1) if chosen else ""
    return fields


def _row_index(page: str, number: str) -> str:
    match = re.search(rf'name="c-(\d+)-number" value="{re.escape(number)}"', page)
    assert match, number
    return match.group(1)


def test_upload_review_correct_and_import_into_a_new_project(
    browser: Browser, web_settings: Settings
) -> None:
    client, response = _upload(browser, PM, text=COUNTY)
    url, page = _review(client, response)
    review = page.text
    assert page.status_code == 200
    assert review.count('data-testid="import-row"') == 13
    assert "RESOLUTION OF THE BOARD OF SUPERVISORS" in review
    assert "adopted 2025-05-20" in review
    # every warning is on the page, by its condition
    for warning in (
        "Condition COA-1: no milestone in its words, section or department; listed as unspecified",
        "Condition COA-13: no milestone in its words, section or department; listed as unspecified",
    ):
        assert warning in review
    assert "expires 24 months after approval (1 extension of 12 months)" in review

    pid = f"CTY-{uuid.uuid4().hex[:6]}"
    form = _row_fields(review)
    coa1, coa11, coa13, coa4 = (
        _row_index(review, n) for n in ("COA-1", "COA-11", "COA-13", "COA-4")
    )
    form[f"c-{coa1}-gates"] = "building_permit"  # two gates corrected
    form[f"c-{coa11}-gates"] = "occupancy"
    form[f"c-{coa13}-kind"] = "conditional"  # a kind
    form[f"c-{coa11}-department"] = "police"  # a department
    form[f"c-{coa4}-time_limits"] = "due 45 days after invoice"  # a time limit
    form.update(
        csrf_token=csrf_of(review),
        target="new",
        project_id=pid,
        name="Oak Flat Equestrian Center",
        project_manager_email=PM,
        applicant_email="owner@oakflat.example",
        jurisdiction="cotati",
        approved_on="2025-05-20",
    )
    done = client.post(url, data=form, follow_redirects=False)
    assert done.status_code == 303, done.text[:600]
    assert done.headers["location"] == f"/projects/{pid}"
    project_page = client.get(f"/projects/{pid}")
    assert "Imported 13 conditions" in project_page.text and "5 corrected" in project_page.text
    # the expiry clock's date on the project page: 24 months from the adoption
    # the expiry became a clock of the project (permit-clock engine): its date is shown
    assert 'data-testid="section-time-limits"' in project_page.text
    assert "2027-05-20" in project_page.text
    # the fee due within 45 days of an invoice waits for the invoice to be recorded
    assert 'data-testid="section-time-limits-waiting"' in project_page.text
    assert "counts from invoice, not recorded yet" in project_page.text

    with _sessions(web_settings)() as s:
        rows = {
            r.number: r
            for r in s.scalars(select(ConditionRow).where(ConditionRow.project_id == pid))
        }
        project = s.get(Project, pid)
        audit = [
            (a.action, a.condition_number, a.reason)
            for a in s.scalars(select(AuditRow).where(AuditRow.project_id == pid))
        ]
    assert project is not None and project.approved_on == "2025-05-20"
    assert list(rows)[:2] == ["COA-1", "COA-2"] and len(rows) == 13
    assert rows["COA-1"].gates == ["building_permit"] and rows["COA-1"].gate_source == "corrected"
    assert rows["COA-11"].gates == ["occupancy"] and rows["COA-11"].department_key == "police"
    assert rows["COA-13"].kind == "conditional"
    assert rows["COA-4"].time_limits[0]["days"] == 45
    assert rows["COA-2"].time_limits[0]["anchor_date"] == "2025-05-20"
    # where each was printed and how sure the parse was stay with the condition (§9)
    assert rows["COA-2"].page == 1 and rows["COA-2"].confidence in ("high", "medium")
    assert rows["COA-2"].parse_evidence["number"] == "COA-2"
    corrected = sorted(n for action, n, _ in audit if action == "corrected_at_import")
    assert corrected == ["COA-1", "COA-11", "COA-11", "COA-13", "COA-4"]
    assert ("imported", None, "") in [(a, n, "") for a, n, _ in audit if a == "imported"]
    # the condition page shows the time limit and its date
    condition = client.get(f"/projects/{pid}/conditions/COA-2").text
    assert 'data-testid="condition-time-limit"' in condition and "2027-05-20" in condition
    assert 'data-testid="condition-printed"' in condition and "page 1; read with" in condition
    # the upload is gone once imported
    assert client.get(url).status_code == 404


def test_a_refused_correction_stores_nothing_and_keeps_the_form(
    browser: Browser, web_settings: Settings
) -> None:
    client, response = _upload(browser, PM, text=COUNTY)
    url, page = _review(client, response)
    pid = f"BAD-{uuid.uuid4().hex[:6]}"
    form = _row_fields(page.text)
    form[f"c-{_row_index(page.text, 'COA-3')}-gates"] = "when_pigs_fly"
    form.update(
        csrf_token=csrf_of(page.text),
        target="new",
        project_id=pid,
        name="X",
        project_manager_email=PM,
        applicant_email="a@b.example",
    )
    refused = client.post(url, data=form)
    assert refused.status_code == 400
    assert "correction COA-3.gates: unknown gate(s) when_pigs_fly" in refused.text
    assert 'value="when_pigs_fly"' in refused.text  # what was typed is still there
    assert _count(web_settings, Project, project_id=pid) == 0
    # a bad time limit names the form to use
    form[f"c-{_row_index(page.text, 'COA-3')}-gates"] = "unspecified"
    form[f"c-{_row_index(page.text, 'COA-3')}-time_limits"] = "soon"
    refused = client.post(url, data=form)
    assert refused.status_code == 400 and "cannot read the time limit" in refused.text
    assert _count(web_settings, Project, project_id=pid) == 0


def test_bad_files_get_a_clear_message_and_nothing_is_stored(
    browser: Browser, web_settings: Settings, tmp_path: Path
) -> None:
    before = (_count(web_settings, Project), _count(web_settings, ConditionRow))
    cases = [
        (dict(text=NOT_A_RESOLUTION), "not a resolution"),
        (dict(text=NO_CONDITIONS), "no conditions found"),
        (dict(pdf=b"%PDF-1.4\nthis is not a pdf at all", name="r.pdf"), "not a readable PDF"),
        (dict(pdf=b"RESOLUTION OF THE CITY", name="letter.pdf"), "not a PDF"),
        (dict(pdf=encrypted_pdf(), name="locked.pdf"), "the PDF is encrypted"),
        (dict(pdf=zip_named_docx(), name="photos.docx"), "a ZIP archive, not a Word document"),
        (dict(pdf=blank_pdf(501), name="archive.pdf"), "more than 500"),
    ]
    for kwargs, message in cases:
        client, response = _upload(browser, PM, **kwargs)  # type: ignore[arg-type]
        url, page = _review(client, response)
        assert page.status_code == 422, (message, page.text[:300])
        assert message in page.text and "Nothing was stored" in page.text
        assert client.get(url).status_code == 404  # the failed upload is gone
    client = browser.as_(PM)
    empty = client.post(
        "/projects/import",
        data={"csrf_token": csrf_of(client.get("/projects/import").text)},
        files={"file": ("empty.txt", b"", "text/plain")},
    )
    assert empty.status_code == 400 and "the file is empty" in empty.text
    assert (_count(web_settings, Project), _count(web_settings, ConditionRow)) == before


def test_a_long_pdf_shows_its_progress(browser: Browser, tmp_path: Path) -> None:
    pdf = write_resolution_pdf(tmp_path / "long.pdf", repeat=40).read_bytes()
    client, response = _upload(browser, PM, pdf=pdf, name="long.pdf")
    first = client.get(response.headers["location"])
    # either still reading (the page says how far) or already done for a fast machine
    if 'data-testid="import-progress"' in first.text:
        assert re.search(r"Page \d+ of \d+ read|Opening the file", first.text)
        assert 'http-equiv="refresh"' in first.text
    _, page = _review(client, response)
    assert page.text.count('data-testid="import-row"') == 40 * 11


def test_a_reviewer_may_not_import(browser: Browser) -> None:
    client = browser.as_(REVIEWER)
    assert client.get("/projects/import").status_code == 403
    assert 'data-testid="nav-import"' not in client.get("/projects").text
    response = browser.api(REVIEWER, "POST", "/api/v1/resolutions", {"text": COUNTY})
    assert response.status_code == 403 and "may not import a resolution" in response.json()["error"]


# -- API ------------------------------------------------------------------------------------------


def test_api_upload_pdf_review_correct_import_and_add_to_an_existing_project(
    browser: Browser, web_settings: Settings, tmp_path: Path
) -> None:
    pdf = write_resolution_pdf(tmp_path / "rio-lindo.pdf").read_bytes()
    client = browser.as_(MANAGER)
    headers = {"X-CSRF-Token": browser.csrf(MANAGER)}
    client = browser.as_(MANAGER)
    uploaded = client.post(
        "/api/v1/resolutions",
        files={"file": ("rio-lindo.pdf", pdf, "application/pdf")},
        headers=headers,
    )
    assert uploaded.status_code == 201, uploaded.text
    job = uploaded.json()
    contract = job["resolution"]
    assert [c["number"] for c in contract["conditions"]] == [str(n) for n in range(1, 12)]
    assert contract["adopted"] == "2025-11-05"
    assert contract["conditions"][1]["time_limits"][0]["months"] == 24
    assert any(w.startswith("Condition 1: no milestone") for w in contract["warnings"])

    pid = f"RL-{uuid.uuid4().hex[:6]}"
    body = {
        "project_id": pid,
        "name": "Riverwalk Market Hall",
        "project_manager_email": MANAGER,
        "applicant_email": "market@riverwalk.example",
        "jurisdiction": "cotati",
        "corrections": {
            "1": {"gates": "building_permit"},
            "6": {"gates": "occupancy", "kind": "requirement"},
        },
    }
    imported = browser.api(MANAGER, "POST", f"/api/v1/resolutions/{job['job_id']}/import", body)
    assert imported.status_code == 201, imported.text
    assert imported.json()["conditions"] == 11
    # the expiry counts from the adoption: a clock of the project on the permit-clock engine;
    # the invoice's 30 days wait until an invoice is recorded
    assert imported.json()["clocks"] == [f"{pid}-COA-2"]
    waiting = imported.json()["clocks_waiting"]
    assert [w["condition"] for w in waiting] == ["3"] and "invoice" in waiting[0]["reason"]
    assert len(imported.json()["corrections"]) == 3
    assert _count(web_settings, ConditionRow, project_id=pid) == 11
    with _sessions(web_settings)() as s:
        first = s.scalar(
            select(ConditionRow).where(ConditionRow.project_id == pid, ConditionRow.number == "1")
        )
    assert first is not None and first.gates == ["building_permit"]
    # the job is used up
    assert browser.api(MANAGER, "GET", f"/api/v1/resolutions/{job['job_id']}").status_code == 404

    # a further resolution joins the project; its numbers must not collide
    amendment = (CORPUS / "planning_commission.txt").read_text("utf-8")
    read = browser.api(MANAGER, "POST", "/api/v1/resolutions", {"text": amendment})
    assert read.status_code == 201, read.text
    again = f"/api/v1/resolutions/{read.json()['job_id']}/import"
    clash = browser.api(MANAGER, "POST", again, {"project_id": pid, "existing": True})
    assert clash.status_code == 409, clash.text
    assert "already in the project" in clash.json()["error"]
    assert _count(web_settings, ConditionRow, project_id=pid) == 11
    added = browser.api(
        MANAGER, "POST", again, {"project_id": pid, "existing": True, "prefix": "A-"}
    )
    assert added.status_code == 201, added.text
    assert added.json()["existing"] is True and added.json()["conditions"] == 8
    deadline = time.monotonic() + 10
    while _count(web_settings, ConditionRow, project_id=pid) < 19 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _count(web_settings, ConditionRow, project_id=pid) == 19
    project = browser.api(MANAGER, "GET", f"/api/v1/projects/{pid}").json()
    numbers = [c["number"] for c in project["conditions"]]
    assert numbers[-8:] == [f"A-{n}" for n in range(1, 9)]


def test_api_bad_files_are_422_and_store_nothing(browser: Browser, web_settings: Settings) -> None:
    before = _count(web_settings, Project)
    headers = {"X-CSRF-Token": browser.csrf(PM)}
    client = browser.as_(PM)
    for name, data, message in (
        ("letter.txt", NOT_A_RESOLUTION.encode(), "not a resolution"),
        ("r.txt", NO_CONDITIONS.encode(), "no conditions found"),
        ("r.pdf", b"%PDF-1.4\ngarbage", "not a readable PDF"),
        ("renamed.pdf", NOT_A_RESOLUTION.encode(), "not a PDF (no %PDF header)"),
    ):
        response = client.post(
            "/api/v1/resolutions",
            files={"file": (name, data, "application/octet-stream")},
            headers=headers,
        )
        assert response.status_code == 422, response.text
        assert message in response.json()["error"]
    one_shot = browser.api(PM, "POST", "/api/v1/resolutions", {"text": NOT_A_RESOLUTION})
    assert one_shot.status_code == 422 and "not a resolution" in one_shot.json()["error"]
    assert _count(web_settings, Project) == before


def test_api_reading_in_the_background(browser: Browser, tmp_path: Path) -> None:
    pdf = write_resolution_pdf(tmp_path / "long.pdf", repeat=20).read_bytes()
    headers = {"X-CSRF-Token": browser.csrf(PM)}
    client = browser.as_(PM)
    started = client.post(
        "/api/v1/resolutions?wait=false",
        files={"file": ("long.pdf", pdf, "application/pdf")},
        headers=headers,
    )
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    for _ in range(400):
        status = browser.api(PM, "GET", f"/api/v1/resolutions/{job_id}").json()
        assert (
            0 <= status["pages_done"] <= max(status["pages_total"], 0) or status["pages_total"] == 0
        )
        if status["state"] == "ready":
            break
        time.sleep(0.05)
    assert status["state"] == "ready" and status["percent"] == 100
    assert len(status["resolution"]["conditions"]) == 20 * 11


def test_a_word_resolution_is_reviewed_with_the_flagged_conditions_first(browser: Browser) -> None:
    data = word_resolution(CORPUS / "docx_typed_numbers.txt", auto_number=False)
    client, response = _upload(browser, PM, pdf=data, name="za-2025-09.docx")
    _, page = _review(client, response)
    assert page.status_code == 200
    rows = re.findall(
        r'data-testid="import-row" data-number="([^"]+)" data-confidence="(\w+)" '
        r'data-flagged="(\w+)"',
        page.text,
    )
    assert sorted(n for n, _, _ in rows) == ["1", "2", "3", "4", "5", "6"]
    flags = [f for _, _, f in rows]
    assert flags == sorted(flags, reverse=True)  # every "yes" before the first "no"
    assert rows[0][1] == "low" and flags.count("yes") >= 2
    assert 'data-testid="import-evidence"' in page.text and "page 2" in page.text
