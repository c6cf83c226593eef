"""Importing the existing caseload through the API and the pages, against the real
workflows (dev server + worker): a wireless application on day 40 imported with its past
events has exactly the dates and ledger of the same clock recorded event by event, and no
letter; an expired clock imported sends no escalation about its past; a permit clock and
a project come in with their history; the same file twice changes nothing; a bad file is
refused whole, each error naming its row and column."""

from __future__ import annotations

import csv
import io
import time
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from actions.caseload_files import COLUMNS
from models.database import make_engine, session_factory
from models.schema import Application, AuditRow, CaseloadImport, ClockEventRow, Notice
from settings import Settings
from tests.web.helpers import Browser, city_today, csrf_of

ADMIN = "admin@cotati.example"
PM = "pm@cotati.example"
PLANNER = "planner@cotati.example"
ITEM = "A1 | Structural calculations | Cotati Municipal Code 17.62.040"


def _day(n: int) -> str:
    """n days ago where the demo city is."""
    return (city_today() - timedelta(days=n)).isoformat()


def _file(kind: str, rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS[kind], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return out.getvalue().encode()


def _wireless(app_id: str, events: list[tuple[str, str, str]], **extra: str) -> dict[str, str]:
    row = {
        "application_id": app_id,
        "jurisdiction": "cotati",
        "category": "macro_collocation",
        "site_address": "8000 Old Redwood Hwy",
        "applicant_email": "tower@tower.example",
        "planner_email": PLANNER,
        **extra,
    }
    for n, (kind, day, details) in enumerate(events, start=1):
        row |= {f"event_{n}": kind, f"date_{n}": day, f"details_{n}": details}
    return row


def _preview(browser: Browser, name: str, data: bytes) -> Any:
    client = browser.as_(ADMIN)
    token = browser.csrf(ADMIN)
    client = browser.as_(ADMIN)
    return client.post(
        "/api/v1/caseload/previews",
        files={"file": (name, data, "text/csv")},
        headers={"X-CSRF-Token": token},
    )


def _import(browser: Browser, run_id: str) -> dict[str, Any]:
    response = browser.api(ADMIN, "POST", f"/api/v1/caseload/imports/{run_id}?wait=true")
    assert response.status_code == 200, response.text
    return response.json()


def _sessions(settings: Settings):  # type: ignore[no-untyped-def]
    return session_factory(make_engine(settings.database_url))


DAY_40 = [
    ("submitted", _day(40), ""),
    ("incomplete_notice", _day(30), ITEM),
    ("resubmitted", _day(12), ""),
]


def test_a_clock_imported_at_day_40_has_the_dates_and_ledger_of_one_recorded_live(
    browser: Browser, web_settings: Settings
) -> None:
    imported, live = f"IMP-{uuid.uuid4().hex[:6]}", f"LIVE-{uuid.uuid4().hex[:6]}"
    preview = _preview(browser, "wireless.csv", _file("wireless", [_wireless(imported, DAY_40)]))
    assert preview.status_code == 201, preview.text
    plan = preview.json()
    assert [c["id"] for c in plan["create"]] == [imported]
    done = _import(browser, plan["run_id"])
    assert (done["state"], done["created"], done["existing"]) == ("done", 1, 0)

    # The same clock, recorded event by event as a planner would have.
    opened = browser.api(
        ADMIN,
        "POST",
        "/api/v1/applications",
        {
            "application_id": live,
            "planner_email": PLANNER,
            "category": "macro_collocation",
            "jurisdiction": "cotati",
            "submitted": _day(40),
            "applicant_email": "tower@tower.example",
        },
    )
    assert opened.status_code == 201, opened.text
    notice = {
        "date": _day(30),
        "items": [
            {
                "id": "A1",
                "text": "Structural calculations",
                "rule": "Cotati Municipal Code 17.62.040",
            }
        ],
    }
    assert (
        browser.api(ADMIN, "POST", f"/api/v1/applications/{live}/notice", notice).status_code == 200
    )
    resubmitted = browser.api(
        ADMIN, "POST", f"/api/v1/applications/{live}/resubmission", {"date": _day(12)}
    )
    assert resubmitted.status_code == 200, resubmitted.text

    def clock(app_id: str) -> dict[str, Any]:
        response = browser.api(ADMIN, "GET", f"/api/v1/applications/{app_id}/summary")
        assert response.status_code == 200, response.text
        return response.json()["clock"]

    a, b = clock(imported), clock(live)
    for key in (
        "status",
        "shot_clock_date",
        "conservative_date",
        "conservative_status",
        "start_date",
        "tolled_days",
        "notice_windows",
        "alternatives",
    ):
        assert a.get(key) == b.get(key), key
    assert [(e["date"], e["event"], e["effect"]) for e in a["ledger"]] == [
        (e["date"], e["event"], e["effect"]) for e in b["ledger"]
    ]
    with _sessions(web_settings)() as db:
        events = db.scalars(
            select(ClockEventRow.type).where(ClockEventRow.application_id == imported)
        ).all()
        assert list(events) == ["submitted", "incomplete_notice", "resubmitted"]
        # The live notice and resubmission sent their letters; the imported past sent none.
        letters = lambda app_id: db.scalar(  # noqa: E731
            select(func.count()).select_from(Notice).where(Notice.application_id == app_id)
        )
        assert letters(live) >= 2
        assert letters(imported) == 0


def test_the_same_file_twice_changes_nothing(browser: Browser, web_settings: Settings) -> None:
    app_id = f"TWICE-{uuid.uuid4().hex[:6]}"
    data = _file("wireless", [_wireless(app_id, DAY_40[:1])])
    first = _import(browser, _preview(browser, "twice.csv", data).json()["run_id"])
    assert first["created"] == 1
    again = _preview(browser, "twice.csv", data)
    assert again.status_code == 201
    assert again.json()["create"] == [] and again.json()["existing"] == [app_id]
    second = _import(browser, again.json()["run_id"])
    assert (second["created"], second["existing"]) == (0, 1)
    with _sessions(web_settings)() as db:
        assert (
            db.scalar(
                select(func.count())
                .select_from(ClockEventRow)
                .where(ClockEventRow.application_id == app_id)
            )
            == 1
        )


def test_a_bad_file_is_refused_whole_naming_each_row_and_column(
    browser: Browser, web_settings: Settings
) -> None:
    good, other = f"OK-{uuid.uuid4().hex[:6]}", f"OK2-{uuid.uuid4().hex[:6]}"
    rows = [
        _wireless(good, DAY_40[:1]),
        _wireless(f"X-{uuid.uuid4().hex[:6]}", DAY_40[:1], jurisdiction="atlantis"),
        _wireless(f"Y-{uuid.uuid4().hex[:6]}", DAY_40[:1], category="pigeon_loft"),
        _wireless(f"Z-{uuid.uuid4().hex[:6]}", [DAY_40[0], ("resubmitted", _day(50), "")]),
        _wireless(good, DAY_40[:1]),
        _wireless(other, DAY_40[:1], site_address='=HYPERLINK("http://evil.example","x")'),
    ]
    response = _preview(browser, "bad.csv", _file("wireless", rows))
    assert response.status_code == 422, response.text
    errors = {(e["row"], e["column"]) for e in response.json()["errors"]}
    assert errors == {
        (3, "jurisdiction"),
        (4, "category"),
        (5, "date_2"),
        (6, "application_id"),
        (7, "site_address"),
    }
    run_id = response.json()["run_id"]
    refused = browser.api(ADMIN, "POST", f"/api/v1/caseload/imports/{run_id}?wait=true")
    assert refused.status_code == 409
    with _sessions(web_settings)() as db:
        assert db.get(Application, good) is None  # nothing half-imported
        assert db.get(CaseloadImport, run_id).state == "refused"
    report = browser.as_(ADMIN).get(f"/api/v1/caseload/imports/{run_id}/errors.csv")
    assert report.status_code == 200
    lines = list(csv.reader(io.StringIO(report.text)))
    assert lines[0] == ["row", "column", "error"] and len(lines) == 6
    # The pages: the same errors, and the report offered.
    client = browser.as_(ADMIN)
    page = client.post(
        "/admin/import",
        files={"file": ("bad.csv", _file("wireless", rows), "text/csv")},
        data={"csrf_token": csrf_of(client.get("/admin/import").text)},
    )
    assert page.status_code == 422
    assert "caseload-error-report" in page.text and "atlantis" in page.text


def test_permit_clocks_and_projects_come_in_with_their_history(
    browser: Browser, web_settings: Settings
) -> None:
    clock_id, project_id = f"BP-{uuid.uuid4().hex[:6]}", f"PRJ-{uuid.uuid4().hex[:6]}"
    permits = _file(
        "permits",
        [
            {
                "clock_id": clock_id,
                "jurisdiction": "cotati",
                "rule": "building_permit_expiry",
                "event_1": "approved",
                "date_1": _day(150),
                "event_2": "inspection",
                "date_2": _day(100),
                "details_2": "result=approved",
            }
        ],
    )
    preview = _preview(browser, "permits.csv", permits)
    assert preview.status_code == 201, preview.text
    due = preview.json()["create"][0]["dates"]["due_date"]
    assert _import(browser, preview.json()["run_id"])["created"] == 1
    shown = browser.api(ADMIN, "GET", f"/api/v1/permits/{clock_id}")
    assert shown.status_code == 200, shown.text
    assert shown.json()["clock"]["due_date"] == due
    # The same permit recorded live, event by event: the same dates and ledger.
    live = f"BPL-{uuid.uuid4().hex[:6]}"
    opened = browser.api(ADMIN, "POST", "/api/v1/permits", {
        "clock_id": live, "rule": "building_permit_expiry",
        "events": [{"type": "approved", "date": _day(150)}],
    })  # fmt: skip
    assert opened.status_code == 201, opened.text
    inspection = {"type": "inspection", "date": _day(100), "result": "approved"}
    recorded = browser.api(ADMIN, "POST", f"/api/v1/permits/{live}/events", inspection)
    assert recorded.status_code == 200, recorded.text
    a, b = (
        shown.json()["clock"],
        browser.api(ADMIN, "GET", f"/api/v1/permits/{live}").json()["clock"],
    )
    assert (a["due_date"], a["status"]) == (b["due_date"], b["status"])
    assert [(e["date"], e["event"]) for e in a["ledger"]] == [
        (e["date"], e["event"]) for e in b["ledger"]
    ]

    base = {
        "project_id": project_id,
        "project_name": "Oak Grove",
        "jurisdiction": "cotati",
        "approved_on": _day(120),
        "project_manager_email": PM,
    }
    projects = _file(
        "projects",
        [
            base
            | {
                "condition_number": "1",
                "condition_text": "Erosion plan before grading.",
                "department": "engineering",
                "gates": "grading_permit",
                "status": "cleared",
                "evidence_date": _day(60),
                "status_date": _day(50),
                "signoffs": f"grading_permit {_day(40)}",
            },
            {
                "project_id": project_id,
                "condition_number": "2",
                "condition_text": "Park fees.",
                "department": "planning",
                "gates": "building_permit",
                "status": "submitted",
                "evidence_date": _day(10),
            },
        ],
    )
    preview = _preview(browser, "projects.csv", projects)
    assert preview.status_code == 201, preview.text
    assert _import(browser, preview.json()["run_id"])["created"] == 1
    with _sessions(web_settings)() as db:
        actions = db.scalars(select(AuditRow.action).where(AuditRow.project_id == project_id)).all()
    assert actions.count("imported_status") == 2 and "imported_signoff" in actions


def test_an_expired_clock_imported_sends_no_escalation_about_its_past(
    browser: Browser, web_settings: Settings
) -> None:
    imported, live = f"OLD-{uuid.uuid4().hex[:6]}", f"OLDLIVE-{uuid.uuid4().hex[:6]}"
    row = _wireless(imported, [("submitted", _day(200), "")], category="swf_collocation")
    preview = _preview(browser, "old.csv", _file("wireless", [row]))
    assert preview.json()["create"][0]["status"] in ("expired", "deemed_approved")
    assert _import(browser, preview.json()["run_id"])["created"] == 1
    # The same clock opened live today is escalated at once (a late-opened clock's
    # escalation is still sent): once it has been, the imported one has had its chance.
    opened = browser.api(ADMIN, "POST", "/api/v1/applications", {
        "application_id": live, "planner_email": PLANNER, "category": "swf_collocation",
        "jurisdiction": "cotati", "submitted": _day(200),
    })  # fmt: skip
    assert opened.status_code == 201, opened.text

    def kinds(app_id: str) -> list[str]:
        with _sessions(web_settings)() as db:
            return list(db.scalars(select(Notice.kind).where(Notice.application_id == app_id)))

    deadline = time.monotonic() + 60
    while "expiry_escalation" not in kinds(live):
        assert time.monotonic() < deadline, kinds(live)
        time.sleep(0.2)
    assert kinds(imported) == []
