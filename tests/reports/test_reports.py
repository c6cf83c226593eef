"""Reports over the read model: a small project written straight through the SQLAlchemy
models into a temporary SQLite database, then the milestone clearance report, the MMRP
table and the audit export checked row by row."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from models.database import make_engine, session_factory
from models.schema import AuditRow, ConditionRow, Project
from reports import ProjectNotFound, audit, clearance, mmrp
from tests.notices.milestones import use_keys_only_milestones, use_milestone_file

PID = "PA-21-29"
SCRIPT = "<script>alert('x')</script>"
ENGINEER = "city.engineer@cotati.example"

# number, code, department key, gates, kind, status, text
CONDITIONS: list[tuple[str, str | None, str, list[str], str, str, str]] = [
    ("3", None, "planning", ["building_permit"], "requirement", "cleared", "Record agreement."),
    ("5", None, "planning", ["building_permit"], "conditional", "open", "If requested..."),
    ("7", None, "engineering", ["grading_permit"], "requirement", "returned", "Title report."),
    ("12", None, "planning", ["improvement_plan_approval"], "requirement", "cleared", "Art."),
    (
        "60",
        None,
        "engineering",
        ["grading_permit", "building_permit"],
        "requirement",
        "open",
        f"Grading plan {SCRIPT} approved.",
    ),
    ("99", None, "planning", ["unspecified"], "requirement", "open", "No gate stated."),
    (
        "105",
        "AQ-1",
        "environmental",
        ["during_construction"],
        "recurring",
        "open",
        f"AQ-1: Dust control {SCRIPT} during construction.",
    ),
    (
        "109",
        "BIO-3",
        "environmental",
        ["pre_construction"],
        "seasonal",
        "cleared",
        "BIO-3: Nesting bird survey within 7 days of groundbreaking.",
    ),
    (
        "110",
        "BIO-1",
        "environmental",
        ["grading_permit"],
        "requirement",
        "waived",
        "BIO-1: Burrowing owl surveys.",
    ),
    ("131", None, "planning", ["building_permit"], "advisory", "open", "Applicant shall consider."),
]

HEADINGS = {
    "planning": "Planning Division",
    "engineering": "Public Works/Engineering",
    "environmental": "CEQA/Environmental",
}

# audit_id, at, actor, role, action, condition, reason, details (inserted in this order)
AUDIT: list[tuple[str, str, str, str, str, str | None, str, dict[str, Any]]] = [
    (
        "a1",
        "2027-01-02T09:00:00-08:00",
        "pm@cotati.example",
        "project_manager",
        "imported",
        None,
        "",
        {"conditions": 10},
    ),
    # 10:00 PST is 18:00 UTC: later than a3 although it sorts earlier as text.
    (
        "a2",
        "2027-01-05T10:00:00-08:00",
        "planning.manager@cotati.example",
        "planning_manager",
        "waived",
        "110",
        "Site surveyed 2026: no burrows",
        {"from": "open", "to": "waived"},
    ),
    (
        "a3",
        "2027-01-05T17:00:00+00:00",
        "permits@cv.example",
        "applicant",
        "evidence_submitted",
        "109",
        '=HYPERLINK("http://x")',
        {"filename": "survey.pdf"},
    ),
    # 02:00 UTC on the 20th is still the 19th in Cotati.
    (
        "a4",
        "2027-02-20T02:00:00+00:00",
        "environmental@cotati.example",
        "department_reviewer",
        "review_cleared",
        "109",
        "",
        {"from": "in_review", "to": "cleared"},
    ),
    (
        "a5",
        "2027-03-01T16:00:00+00:00",
        "pm@cotati.example",
        "project_manager",
        "note",
        "109",
        "Photo log filed",
        {},
    ),
    (
        "a6",
        "2027-01-20T12:00:00+00:00",
        ENGINEER,
        "engineering",
        "signed_off",
        None,
        "",
        {"milestone": "improvement_plan_approval"},
    ),
]


@pytest.fixture(autouse=True)
def canonical_milestones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_keys_only_milestones(monkeypatch, tmp_path)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    now = datetime(2027, 3, 2, tzinfo=UTC)
    with session_factory(engine).begin() as session:
        session.add(
            Project(
                project_id=PID,
                workflow_id=f"project-{PID}",
                name="Cotati Village & Sons",
                jurisdiction="cotati",
                resolution_title="Resolution 2024-07",
                applicant_name="Cotati Village LLC",
                applicant_email="permits@cv.example",
                project_manager_email="pm@cotati.example",
                signoffs=[
                    {
                        "milestone": "improvement_plan_approval",
                        "signed_by": ENGINEER,
                        "at": "2027-01-20T12:00:00+00:00",
                    }
                ],
                departments=[
                    {
                        "department_key": "environmental",
                        "name": "Mitigation monitoring",
                        "reviewer_email": "environmental@cotati.example",
                        "head_email": "planning.manager@cotati.example",
                    }
                ],
                created_at=now,
                updated_at=now,
            )
        )
        session.flush()  # the project before its conditions: PostgreSQL checks the key
        for position, (number, code, dept, gates, kind, status, text) in enumerate(CONDITIONS):
            session.add(
                ConditionRow(
                    project_id=PID,
                    number=number,
                    position=position,
                    code=code,
                    department=HEADINGS[dept],
                    department_key=dept,
                    section=None,
                    text=text,
                    gates=gates,
                    gate_source="explicit",
                    kind=kind,
                    status=status,
                    triggered=False,
                )
            )
        for audit_id, at, actor, role, action, number, reason, details in AUDIT:
            session.add(
                AuditRow(
                    project_id=PID,
                    audit_id=audit_id,
                    at=at,
                    actor=actor,
                    role=role,
                    action=action,
                    condition_number=number,
                    reason=reason,
                    details=details,
                )
            )
        # Another project's rows never leak in.
        session.add(
            Project(
                project_id="OTHER",
                workflow_id="project-OTHER",
                name="Other",
                jurisdiction="cotati",
                created_at=now,
                updated_at=now,
            )
        )
        session.add(
            AuditRow(
                project_id="OTHER",
                audit_id="a1",
                at="2027-01-01T00:00:00+00:00",
                actor="x",
                role="admin",
                action="imported",
            )
        )
    yield engine
    engine.dispose()


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# -- milestone clearance ------------------------------------------------------------------


def test_milestone_clearance_counts_and_blockers(engine: Engine) -> None:
    report = clearance.milestone_clearance(engine, PID)
    assert report.project_name == "Cotati Village & Sons"
    assert report.jurisdiction_name == "City of Cotati"
    by_key = {m.key: m for m in report.milestones}
    assert [m.key for m in report.milestones] == [
        "improvement_plan_approval",
        "grading_permit",
        "building_permit",
        "pre_construction",
        "during_construction",
        "unspecified",
    ]

    def summary(key: str) -> tuple[int, int, int, list[str]]:
        m = by_key[key]
        return m.total, m.resolved, m.open, [b.number for b in m.blockers]

    assert summary("improvement_plan_approval") == (1, 1, 0, [])
    assert summary("grading_permit") == (3, 1, 2, ["7", "60"])
    # Dormant conditional #5 and advisory #131 are open but never block.
    assert summary("building_permit") == (4, 1, 3, ["60"])
    assert summary("pre_construction") == (1, 1, 0, [])
    assert summary("during_construction") == (1, 0, 1, [])
    assert summary("unspecified") == (1, 0, 1, ["99"])

    ipa = by_key["improvement_plan_approval"]
    assert ipa.signed_off and ipa.signed_off_by == ENGINEER
    assert ipa.signed_off_at == "2027-01-20T12:00:00+00:00"
    assert not by_key["grading_permit"].signed_off
    assert by_key["during_construction"].monitored
    assert by_key["pre_construction"].ready
    assert report.next_milestone is not None and report.next_milestone.key == "grading_permit"

    [returned, plan] = by_key["grading_permit"].blockers
    assert (returned.number, returned.code, returned.status) == ("7", None, "returned")
    assert returned.department_key == "engineering"
    assert returned.department_name == "Public Works / Engineering"
    assert returned.department == "Public Works/Engineering"


def test_milestone_clearance_csv(engine: Engine) -> None:
    text = clearance.to_csv(clearance.milestone_clearance(engine, PID))
    assert text.splitlines()[0] == (
        "project,milestone,number,code,department,kind,status,gate_source,"
        "milestone_label,blocking,department_heading,text"
    )
    rows = rows_of(text)
    assert len(rows) == 11  # one per condition per milestone it gates
    assert {r["project"] for r in rows} == {PID}
    assert [r["number"] for r in rows if r["milestone"] == "grading_permit"] == ["7", "60", "110"]
    # #60 gates two milestones: it appears under both.
    assert [r["milestone"] for r in rows if r["number"] == "60"] == [
        "grading_permit",
        "building_permit",
    ]
    aq1 = next(r for r in rows if r["number"] == "105")
    assert aq1 == {
        "project": PID,
        "milestone": "during_construction",
        "number": "105",
        "code": "AQ-1",
        "department": "Mitigation monitoring",  # the project's name for the department
        "kind": "recurring",
        "status": "open",
        "gate_source": "explicit",
        "milestone_label": "During construction",
        "blocking": "no",
        "department_heading": "CEQA/Environmental",
        "text": aq1["text"],
    }
    # The words travel with the row, on one line; the department is its clean name.
    assert aq1["text"] and "\n" not in aq1["text"]
    assert not any("/" in r["department"] and " / " not in r["department"] for r in rows)


def test_milestone_clearance_html_is_escaped(engine: Engine) -> None:
    html = clearance.render_html(clearance.milestone_clearance(engine, PID))
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html
    assert "Grading plan &lt;script&gt;" in html
    assert "Cotati Village &amp; Sons" in html
    assert "Next milestone: <strong>Grading permit</strong>" in html
    # City time for the reader (Cotati: 4:00 AM PST); the CSV keeps the ISO instant.
    assert f"{ENGINEER}, January 20, 2027, 4:00 AM PST" in html
    for label in ("Improvement plan approval", "Building permit", "During construction"):
        assert label in html


# -- MMRP -------------------------------------------------------------------------------


def test_mmrp_rows(engine: Engine) -> None:
    report = mmrp.mmrp(engine, PID)
    assert report.citation == "Pub. Res. Code § 21081.6"
    assert [(line.code, line.number) for line in report.lines] == [
        ("AQ-1", "105"),
        ("BIO-3", "109"),
        ("BIO-1", "110"),
    ]
    aq1, bio3, bio1 = report.lines
    assert aq1.timing == ["During construction"]
    assert aq1.implementer == mmrp.CONTRACTOR
    assert aq1.monitoring_department == "Mitigation monitoring"
    assert aq1.verification_date == ""  # open
    assert aq1.status == "open"
    # Cleared by the review at 02:00 UTC on Feb 20 = Feb 19 in Cotati; the later note
    # on the same condition does not move the date.
    assert bio3.verification_date == "2027-02-19"
    assert bio3.implementer == mmrp.CONTRACTOR
    assert bio3.timing == ["Pre construction"]
    # Waived: verified the day the waiver was recorded.
    assert bio1.verification_date == "2027-01-05"
    assert bio1.implementer == mmrp.APPLICANT
    assert bio1.status == "waived"

    # In another time zone the UTC date stands.
    assert mmrp.mmrp(engine, PID, time_zone="UTC").lines[1].verification_date == "2027-02-20"


def test_mmrp_csv_and_html(engine: Engine) -> None:
    report = mmrp.mmrp(engine, PID)
    text = mmrp.to_csv(report)
    assert text.splitlines()[0] == (
        "project,code,number,measure,timing,implementer,monitoring_department,"
        "verification_date,status"
    )
    rows = rows_of(text)
    assert [r["code"] for r in rows] == ["AQ-1", "BIO-3", "BIO-1"]
    assert rows[0]["measure"] == f"AQ-1: Dust control {SCRIPT} during construction."
    assert rows[1]["verification_date"] == "2027-02-19"
    assert rows[0]["verification_date"] == ""

    html = mmrp.render_html(report)
    assert "Mitigation Monitoring and Reporting Program" in html
    assert "21081.6" in html
    assert "<script" not in html and "Dust control &lt;script&gt;" in html
    assert "<strong>BIO-3</strong>" in html


def test_mmrp_without_measures(engine: Engine) -> None:
    report = mmrp.mmrp(engine, "OTHER")
    assert report.lines == []
    assert mmrp.to_csv(report).count("\n") == 1
    assert "No condition of this project carries a mitigation" in mmrp.render_html(report)


# -- audit export -------------------------------------------------------------------------


def test_audit_export_is_in_time_order(engine: Engine) -> None:
    export = audit.audit_log(engine, PID)
    # a3 (17:00 UTC) before a2 (10:00 PST = 18:00 UTC); a6 (Jan 20) before a4 (Feb 20).
    assert [e.audit_id for e in export.events] == ["a1", "a3", "a2", "a6", "a4", "a5"]

    rows = rows_of(audit.to_csv(export))
    assert list(rows[0]) == list(audit.EXPORT_COLUMNS)
    # The ISO instant as stored, and beside it the same instant as the city reads it.
    assert rows[1]["at"] == "2027-01-05T17:00:00+00:00"
    assert rows[1]["at_city_time"] == "January 5, 2027, 9:00 AM PST"
    assert [r["audit_id"] for r in rows] == ["a1", "a3", "a2", "a6", "a4", "a5"]
    assert {r["project"] for r in rows} == {PID}
    assert rows[0]["details"] == '{"conditions":10}'
    assert rows[0]["condition_number"] == ""
    # A typed reason is never run as a spreadsheet formula.
    assert rows[1]["reason"] == '\'=HYPERLINK("http://x")'

    data = json.loads(audit.to_json(export))
    assert data["project_id"] == PID
    assert [e["audit_id"] for e in data["events"]] == ["a1", "a3", "a2", "a6", "a4", "a5"]
    assert data["events"][1]["reason"] == '=HYPERLINK("http://x")'  # JSON keeps it as typed
    assert data["events"][4]["details"] == {"from": "in_review", "to": "cleared"}
    assert set(data["events"][0]) == {
        "audit_id",
        "at",
        "actor",
        "role",
        "action",
        "condition_number",
        "reason",
        "details",
        # Its link in the project's hash chain (tests/reports/test_audit_verify.py).
        "seq",
        "prev_hash",
        "entry_hash",
    }


def test_audit_log_page_reads_in_city_time(engine: Engine) -> None:
    page = audit.render_html(audit.audit_log(engine, PID))
    assert "January 5, 2027, 9:00 AM PST" in page  # a3, stored as 17:00 UTC
    assert "January 5, 2027, 10:00 AM PST" in page  # a2
    assert "2027-01-05T17:00:00+00:00</td>" not in page  # no ISO instant shown as text
    assert "Site surveyed 2026: no burrows" in page
    assert "=HYPERLINK(&#34;http://x&#34;)" in page  # escaped, shown as typed


@pytest.mark.parametrize(
    "build",
    [clearance.milestone_clearance, mmrp.mmrp, audit.audit_log],
)
def test_unknown_project_is_a_clear_error(engine: Engine, build: Any) -> None:
    with pytest.raises(ValueError, match=r"^no project 'NOPE'$") as info:
        build(engine, "NOPE")
    assert isinstance(info.value, ProjectNotFound)


def test_milestone_file_order_and_labels(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data = tmp_path / "milestones.json"
    data.write_text(
        json.dumps(
            {
                "milestones": [
                    {"key": "building_permit", "label": "Building permit issued"},
                    {"key": "grading_permit", "label": "Grading permit issued"},
                ]
            }
        )
    )
    use_milestone_file(monkeypatch, data)
    report = clearance.milestone_clearance(engine, PID)
    # Known keys in the file's order, the rest after in first-seen order, unspecified last.
    assert [m.key for m in report.milestones][:2] == ["building_permit", "grading_permit"]
    assert report.milestones[0].label == "Building permit issued"
    assert report.milestones[-1].key == "unspecified"
    assert mmrp.mmrp(engine, PID).lines[2].timing == ["Grading permit issued"]
