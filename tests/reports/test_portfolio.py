"""Reports across projects and clocks over a small read model written straight through
the SQLAlchemy models: each report's figures and lines, its CSV, and a real PDF (a cover,
text that can be searched, fonts embedded)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from pypdf import PdfReader
from sqlalchemy import Engine

from models.database import make_engine, session_factory
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    ConditionRow,
    PermitClockRow,
    Project,
)
from reports import portfolio

TODAY = date(2027, 3, 15)
PERIOD = portfolio.Period(today=TODAY, start=date(2027, 1, 1), end=date(2027, 3, 31), year=2027)
NOW = datetime(2027, 3, 15, 18, tzinfo=UTC)

# project, number, code, department, gates, status, submitted_at
CONDITIONS: list[tuple[str, str, str | None, str, list[str], str, str | None]] = [
    # A review submitted on 1 Feb is past 10 business days by 15 Mar.
    ("P1", "1", None, "planning", ["building_permit"], "submitted", "2027-02-01T17:00:00+00:00"),
    # Open past the building permit's target (1 Mar).
    ("P1", "2", None, "engineering", ["building_permit"], "open", None),
    ("P1", "3", "BIO-1", "planning", ["grading_permit"], "cleared", None),
    ("P1", "4", "AQ-1", "planning", ["during_construction"], "open", None),
    # P2's building permit is signed off: its open condition is not overdue.
    ("P2", "1", None, "engineering", ["building_permit"], "open", None),
]


def _application(app_id: str, category: str, status: str, due: str) -> Application:
    return Application(
        application_id=app_id,
        workflow_id=f"shot-clock-{app_id}",
        jurisdiction="cotati",
        category=category,
        status=status,
        conservative_date=due,
        planner_email="planner@cotati.example",
        site_address="1 Old Redwood Hwy",
        created_at=NOW,
        updated_at=NOW,
    )


def _permit(clock_id: str, rule: str, status: str, due: str, met: str | None) -> PermitClockRow:
    return PermitClockRow(
        clock_id=clock_id,
        workflow_id=f"permit-clock-{clock_id}",
        jurisdiction="cotati",
        rule=rule,
        status=status,
        title=f"Permit {clock_id}",
        conservative_date=due,
        next_deadline=due,
        consequence="deemed_approved",
        staff_email="planner@cotati.example",
        clock={"met_date": met},
        created_at=NOW,
        updated_at=NOW,
    )


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    with session_factory(engine).begin() as db:
        for pid, signed in (("P1", []), ("P2", [{"milestone": "building_permit"}])):
            db.add(
                Project(
                    project_id=pid,
                    workflow_id=f"project-{pid}",
                    name=f"Project {pid}",
                    jurisdiction="cotati",
                    planned={"milestone_targets": {"building_permit": "2027-03-01"}},
                    signoffs=signed,
                    approved_on="2026-06-01",
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        db.flush()
        for i, (pid, number, code, dept, gates, status, submitted) in enumerate(CONDITIONS):
            db.add(
                ConditionRow(
                    project_id=pid,
                    number=number,
                    position=i,
                    code=code,
                    department=dept,
                    department_key=dept,
                    text=f"{code or 'Condition'}: do the thing.",
                    gates=gates,
                    gate_source="explicit",
                    kind="requirement",
                    status=status,
                    submitted_at=submitted,
                )
            )
        db.add_all(
            [
                AuditRow(
                    project_id="P1",
                    audit_id="000001",
                    seq=1,
                    at="2027-02-10T18:00:00+00:00",
                    actor="planning@cotati.example",
                    role="department_reviewer",
                    action="review_cleared",
                    condition_number="3",
                    details={"from": "in_review", "to": "cleared"},
                ),
                # Before the period: not counted as cleared in it.
                AuditRow(
                    project_id="P2",
                    audit_id="000001",
                    seq=1,
                    at="2026-12-30T18:00:00+00:00",
                    actor="planning@cotati.example",
                    role="department_reviewer",
                    action="waived",
                    condition_number="1",
                    details={"from": "open", "to": "waived"},
                ),
            ]
        )
        db.add_all(
            [
                _application("A-ONTIME", "swf_collocation", "decided_on_time", "2027-02-20"),
                _application("A-LATE", "swf_collocation", "decided_late", "2027-01-10"),
                _application("A-DEEMED", "macro_new_structure", "deemed_granted", "2027-03-02"),
                _application("A-OPEN", "swf_new_structure", "running", "2027-04-04"),
                _application("A-GONE", "swf_collocation", "withdrawn", "2027-02-01"),
                _application("A-2026", "swf_collocation", "decided_on_time", "2026-11-01"),
            ]
        )
        db.flush()
        for app_id, day in (("A-ONTIME", "2027-02-05"), ("A-LATE", "2027-01-20")):
            db.add(
                ClockEventRow(
                    application_id=app_id,
                    event_id="e9",
                    type="decision",
                    date=day,
                    recorded_at=NOW,
                )
            )
        db.add_all(
            [
                _permit("PSA-1", "ca_psa_decision", "met", "2027-02-01", "2027-01-25"),
                _permit("PSA-2", "ca_psa_completeness", "met_late", "2027-02-01", "2027-02-03"),
                _permit("AB-1", "ca_post_entitlement_review", "lapsed", "2027-03-01", None),
                _permit("AB-2", "ca_post_entitlement_review", "running", "2027-04-24", None),
                _permit("SIGN-1", "cotati_sign_permit_expiry", "met", "2027-02-01", "2027-01-02"),
                # Completeness met; the decision chained after it met late.
                _permit("PSA-3", "ca_psa_completeness", "met", "2027-01-12", "2027-01-10"),
                # Completeness met in April (after the period); its review still runs.
                _permit("AB-3", "ca_post_entitlement_completeness", "met", "2027-04-10", None),
            ]
        )
        db.flush()
        chained = db.get(PermitClockRow, "PSA-3")
        assert chained is not None
        chained.clock = {
            "met_date": "2027-01-10",
            "next": [
                {
                    "rule": "ca_psa_decision",
                    "status": "met_late",
                    "met_date": "2027-03-10",
                    "conservative_date": "2027-03-05",
                    "next": [],
                },
                {"rule": "ca_haa_consistency", "status": "met", "met_date": "2027-02-01"},
            ],
        }
        review = db.get(PermitClockRow, "AB-3")
        assert review is not None
        review.clock = {
            "next": [
                {
                    "rule": "ca_post_entitlement_review",
                    "status": "running",
                    "conservative_date": "2027-04-10",
                    "consequence": "deemed_approved",
                }
            ]
        }
    yield engine
    engine.dispose()


def figures(report: portfolio.PortfolioReport) -> dict[str, str]:
    return dict(report.figures)


def csv_rows(report: portfolio.PortfolioReport) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(portfolio.to_csv(report))))


def test_shot_clock_compliance_by_category_and_quarter(engine: Engine) -> None:
    report = portfolio.build("shot-clock-compliance", engine, PERIOD)
    # On time, late and deemed in Q1 2027; withdrawn and 2026 decisions are not counted.
    assert figures(report)["Applications decided or deemed"] == "3"
    assert figures(report)["Decided on time"] == "1 (33%)"
    assert figures(report)["Deemed granted or approved"] == "1"
    lines = {r["application"]: r for r in csv_rows(report)}
    assert set(lines) == {"A-ONTIME", "A-LATE", "A-DEEMED"}
    assert lines["A-ONTIME"]["decided_or_deemed_on"] == "2027-02-05"
    assert lines["A-DEEMED"]["decided_or_deemed_on"] == "2027-03-02"
    table = report.tables[0].rows
    assert ("2027 Q1", "small wireless facility on an existing structure", 2, 1, 1, 0, "50%") in [
        tuple(r) for r in table
    ]
    assert 'role="img"' in report.charts[0] and "2027 Q1: 33%" in report.charts[0]


def test_permit_clock_performance_counts_psa_and_ab_2234_only(engine: Engine) -> None:
    report = portfolio.build("permit-clock-performance", engine, PERIOD)
    assert figures(report)["Clocks decided or lapsed"] == "5"
    assert figures(report)["On time"] == "2 (40%)"
    laws = {r["clock"]: r["law"] for r in csv_rows(report)}
    assert laws == {
        "PSA-1": "PSA",
        "PSA-2": "PSA",
        "PSA-3": "PSA",
        "PSA-3 > ca_psa_decision": "PSA",  # chained inside PSA-3's row
        "AB-1": "AB 2234",
    }
    whole = {r[1]: r for r in report.tables[0].rows if r[0] == "whole period"}
    assert whole["PSA"][2:] == (4, 2, 2, 0, "50%")
    assert whole["AB 2234"][2:] == (1, 0, 0, 1, "0%")


def test_clocks_lapsing_in_the_next_90_days(engine: Engine) -> None:
    report = portfolio.build("lapsing-90-days", engine, PERIOD)
    lines = csv_rows(report)
    assert [(r["id"], r["days_left"]) for r in lines] == [
        ("A-OPEN", "20"),
        ("AB-3 > ca_post_entitlement_review", "26"),  # chained after a met completeness
        ("AB-2", "40"),
    ]
    assert figures(report)["Within 14 days"] == "0"


def test_overdue_conditions_by_department(engine: Engine) -> None:
    report = portfolio.build("overdue-conditions", engine, PERIOD)
    lines = {(r["project"], r["condition"]): r for r in csv_rows(report)}
    assert set(lines) == {("P1", "1"), ("P1", "2")}
    # 1 Feb + 10 business days (Lincoln's Birthday and Presidents' Day are California
    # holidays) is 17 Feb: 26 days overdue on 15 Mar.
    assert lines[("P1", "1")]["due"] == "2027-02-17"
    assert lines[("P1", "1")]["days_overdue"] == "26"
    assert lines[("P1", "2")]["why"].startswith("open past the")
    assert lines[("P1", "2")]["days_overdue"] == "14"


def test_conditions_cleared_in_a_period(engine: Engine) -> None:
    report = portfolio.build("conditions-cleared", engine, PERIOD)
    lines = [(r["date"], r["project"], r["condition"], r["resolved_as"]) for r in csv_rows(report)]
    assert lines == [("2027-02-10", "P1", "3", "cleared")]
    wider = portfolio.Period(TODAY, date(2026, 12, 1), date(2027, 3, 31), 2027)
    wide = portfolio.build("conditions-cleared", engine, wider)
    assert figures(wide)["Conditions resolved"] == "2"


def test_annual_mmrp_report(engine: Engine) -> None:
    report = portfolio.build("annual-mmrp", engine, PERIOD)
    lines = {r["code"]: r for r in csv_rows(report)}
    assert lines["BIO-1"]["standing"] == "verified this year"
    assert lines["BIO-1"]["verification_date"] == "2027-02-10"
    assert lines["AQ-1"]["standing"] == "to verify"
    assert report.tables[0].rows == [("P1", "Project P1", 2, 1, 0, 1)]


def test_a_bad_period_is_named() -> None:
    with pytest.raises(portfolio.BadPeriod, match="from: 'March' is not a date"):
        portfolio.Period.parse(TODAY, start="March")
    with pytest.raises(portfolio.BadPeriod, match="before from"):
        portfolio.Period.parse(TODAY, start="2027-03-01", end="2027-02-01")


def test_the_pdf_has_a_cover_searchable_text_and_embedded_fonts(engine: Engine) -> None:
    report = portfolio.build("overdue-conditions", engine, PERIOD)
    pdf = PdfReader(io.BytesIO(portfolio.to_pdf(report)))
    cover = " ".join(pdf.pages[0].extract_text().split())
    assert "Overdue conditions by department" in cover and "CITY OF COTATI" in cover
    assert "Overdue conditions" in cover and "2" in cover
    body = " ".join(page.extract_text() for page in pdf.pages[1:])
    assert "P1" in body and "2027-02-17" in body
    assert pdf.metadata is not None and pdf.metadata.title.startswith("Overdue conditions")
    fonts: list[Any] = [
        font.get_object() for page in pdf.pages for font in page["/Resources"]["/Font"].values()
    ]
    assert fonts
    for font in fonts:
        descriptor = (
            font.get("/FontDescriptor")
            or font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        ).get_object()
        assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(descriptor), font["/BaseFont"]


def test_a_correction_in_the_audit_is_not_read_as_a_clearance() -> None:
    """A correction records the corrected fields under "to" (a mapping, not a status): the
    cleared-in-a-period report must skip it, not fail on it."""
    from models.schema import AuditRow
    from reports.mmrp import resolves

    correction = AuditRow(action="corrected", details={"to": {"department_key": "engineering"}})
    cleared = AuditRow(action="reviewed", details={"decision": "cleared"})
    handed = AuditRow(action="reassigned", details={"from": "", "to": "a@city.example"})
    assert not resolves(correction)
    assert resolves(cleared)
    assert not resolves(handed)
