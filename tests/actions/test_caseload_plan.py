"""A caseload file checked whole before anything is started (actions/caseload_plan.py):
each template imports as it is, and every kind of bad input is refused with its row and
column, the plan then holding nothing to start. Pure: no Temporal, no database."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pendulum
import pytest

from actions.caseload_files import (
    COLUMNS,
    MAX_CASELOAD_BYTES,
    CaseloadFileError,
    RowError,
    error_report,
    read_sheet,
    template,
)
from actions.caseload_plan import CaseloadPlan, plan_caseload
from actions.cities import Cities
from rules.access import Principal

ADMIN = Principal("admin@cotati.example", "admin")
TODAY = pendulum.now("America/Los_Angeles").date()


def day(n: int) -> str:
    return (TODAY - timedelta(days=n)).isoformat()


def plan_of(kind: str, rows: list[dict[str, str]], name: str = "f.csv") -> CaseloadPlan:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS[kind], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return plan_file(name, out.getvalue().encode())


def plan_file(name: str, data: bytes) -> CaseloadPlan:
    sheet = read_sheet(name, data)
    return plan_caseload(sheet, ADMIN, Cities("cotati"), lambda key: [], datetime.now(UTC))


def where(plan: CaseloadPlan) -> list[tuple[int, str]]:
    assert not plan.items, "nothing is started from a file with an error"
    return [(e.row, e.column) for e in plan.errors]


@pytest.mark.parametrize("kind", ["wireless", "permits", "projects"])
@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_each_template_imports_as_it_is(kind: str, fmt: str) -> None:
    body, _, name = template(kind, fmt, TODAY, "cotati")
    plan = plan_file(name, body)
    assert plan.ok, plan.error_lines()
    assert plan.kind == kind and len(plan.items) == 1
    assert plan.items[0].preview["dates"]


def test_a_wireless_clock_at_day_40_is_previewed_with_its_dates() -> None:
    row = {
        "application_id": "WA-40",
        "category": "macro_collocation",
        "event_1": "submitted",
        "date_1": day(40),
    }
    plan = plan_of("wireless", [row])
    item = plan.items[0]
    # 90 days for a collocation (47 CFR 1.6003(c)(1)(iii)): day 40 leaves 50, and a
    # date on a weekend or holiday rolls to the next business day.
    assert item.preview["status"] == "running"
    due = item.preview["dates"]["shot_clock_date"]
    assert (
        (TODAY + timedelta(days=50)).isoformat() <= due <= (TODAY + timedelta(days=54)).isoformat()
    )
    assert item.workflow_id == "shot-clock-WA-40"


def test_the_past_reminders_of_an_expired_clock_are_planned_as_skipped() -> None:
    row = {
        "application_id": "WA-OLD",
        "category": "swf_collocation",
        "event_1": "submitted",
        "date_1": day(200),
    }
    item = plan_of("wireless", [row]).items[0]
    assert item.preview["status"] in ("expired", "deemed_granted", "deemed_approved")
    keys = item.input.skipped_alert_keys
    # The expiry escalation (sent even for a clock opened late) and every reminder.
    assert any(k.startswith("expiry:") for k in keys) and any("reminder" in k for k in keys)


def test_wireless_bad_rows_name_their_row_and_column() -> None:
    base = {"category": "macro_collocation", "event_1": "submitted", "date_1": day(30)}
    rows = [
        base | {"application_id": "A1", "jurisdiction": "atlantis"},
        base | {"application_id": "A2", "category": "pigeon_loft"},
        base | {"application_id": "A3", "event_2": "resubmitted", "date_2": day(40)},
        base | {"application_id": "A1"},
        base | {"application_id": "A5", "date_1": "31/12/2025"},
        base | {"application_id": "A6", "event_2": "incomplete_notice", "date_2": day(20)},
        base | {"application_id": "A7", "event_2": "resubmitted", "date_2": day(20)},
        base | {"application_id": "A8", "event_2": "teleported", "date_2": day(20)},
        base | {"application_id": "A9", "date_1": day(-3)},
        base | {"application_id": "A10", "event_3": "decision", "date_3": day(1)},
    ]
    assert where(plan_of("wireless", rows)) == [
        (2, "jurisdiction"),  # unknown jurisdiction
        (3, "category"),  # unknown category
        (4, "date_2"),  # out of order
        (5, "application_id"),  # the same id twice in one file
        (6, "date_1"),  # not a date
        (7, "details_2"),  # a notice without its items
        (8, "event_2"),  # a resubmission with no notice outstanding: the rules refuse it
        (9, "event_2"),  # not an event
        (10, "date_1"),  # in the future
        (11, "event_2"),  # a gap before a later event
    ]


def test_permit_bad_rows_name_their_row_and_column() -> None:
    base = {"rule": "building_permit_expiry", "event_1": "approved", "date_1": day(100)}
    rows = [
        base | {"clock_id": "P1", "rule": "no_such_rule"},
        base
        | {
            "clock_id": "P2",
            "event_2": "inspection",
            "date_2": day(50),
            "details_2": "result=wobbly",
        },
        base
        | {"clock_id": "P3", "event_2": "inspection", "date_2": day(50), "details_2": "colour=red"},
        base | {"clock_id": "P4", "facts": "max_extensions"},
    ]
    assert where(plan_of("permits", rows)) == [
        (2, "rule"),
        (3, "details_2"),
        (4, "details_2"),
        (5, "facts"),
    ]


def test_project_bad_rows_name_their_row_and_column() -> None:
    base = {
        "project_name": "Oak",
        "approved_on": day(100),
        "condition_text": "Do the thing.",
        "gates": "grading_permit",
        "status": "open",
    }
    rows = [
        base | {"project_id": "J1", "condition_number": "1", "department": "astrology"},
        base | {"project_id": "J2", "condition_number": "1", "gates": "moon_landing"},
        base
        | {
            "project_id": "J3",
            "condition_number": "1",
            "status": "cleared",
            "evidence_date": day(20),
            "status_date": day(30),
        },
        base | {"project_id": "J4", "condition_number": "1"},
        base | {"project_id": "J4", "condition_number": "1"},
        base
        | {"project_id": "J5", "condition_number": "1", "signoffs": f"grading_permit {day(5)}"},
        base
        | {"project_id": "J6", "condition_number": "1", "status": "waived", "status_date": day(5)},
        base | {"project_id": "J7", "condition_number": "1", "kind": "wish"},
        base | {"project_id": "J8", "condition_number": "1", "project_name": "Elm"},
        base | {"project_id": "J8", "condition_number": "2", "project_name": "Ash"},
    ]
    assert where(plan_of("projects", rows)) == [
        (2, "department"),  # unknown category
        (3, "gates"),  # unknown milestone
        (4, "status_date"),  # cleared before its evidence: out of order
        (6, "condition_number"),  # duplicate condition of one project
        (7, "signoffs"),  # signed off over an open condition
        (8, "reason"),  # waived without a reason
        (9, "kind"),
        (11, "project_name"),  # one project, two names
    ]


def test_formula_cells_are_refused_by_row_and_column_in_csv_and_xlsx() -> None:
    from openpyxl import Workbook  # type: ignore[import-untyped]

    row = {
        "application_id": "F1",
        "category": "macro_collocation",
        "site_address": '=HYPERLINK("http://evil.example","click")',
        "event_1": "submitted",
        "date_1": day(3),
    }
    assert where(plan_of("wireless", [row])) == [(2, "site_address")]
    book = Workbook()
    sheet = book.active
    sheet.append(COLUMNS["wireless"])
    sheet.append([row.get(c, "") for c in COLUMNS["wireless"]])
    out = io.BytesIO()
    book.save(out)
    assert where(plan_file("f.xlsx", out.getvalue())) == [(2, "site_address")]


def test_a_200_mb_file_is_refused_by_its_size_before_it_is_read() -> None:
    huge = b"application_id\n" + b"x" * (200 * 1024 * 1024)
    with pytest.raises(CaseloadFileError, match="200 MB; a caseload file may be at most 20 MB"):
        read_sheet("huge.csv", huge)
    assert len(huge) > MAX_CASELOAD_BYTES


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"name,email\nx,y\n", "row 1: the first column is 'name'"),
        (b"application_id,colour\n", "row 1, column colour: not a column"),
        (b"application_id,event_1\n", "row 1: the column date_1 is missing"),
        (b"\xff\xfe\x00a", "not UTF-8"),
        (b"PK\x03\x04broken", "not a readable XLSX"),
    ],
)
def test_unreadable_files_are_refused_in_one_sentence(data: bytes, message: str) -> None:
    with pytest.raises(CaseloadFileError, match=message):
        read_sheet("f.csv", data)


def test_the_error_report_guards_cells_a_spreadsheet_would_run() -> None:
    report = error_report([RowError(2, "note", '=HYPERLINK("http://evil.example")')])
    lines = list(csv.reader(io.StringIO(report)))
    assert lines == [
        ["row", "column", "error"],
        ["2", "note", '\'=HYPERLINK("http://evil.example")'],
    ]


def test_a_clock_opens_with_its_submission_after_a_pre_application_if_any() -> None:
    base = {"category": "macro_collocation"}
    rows = [
        base | {"application_id": "P1", "event_1": "pre_application", "date_1": day(50),
                "event_2": "submitted", "date_2": day(40)},
        base | {"application_id": "P2", "event_1": "submitted", "date_1": day(50),
                "event_2": "pre_application", "date_2": day(40)},
        base | {"application_id": "P3", "event_1": "resubmitted", "date_1": day(50)},
    ]  # fmt: skip
    plan = plan_of("wireless", rows)
    assert [(e.row, e.column) for e in plan.errors] == [(3, "event_2"), (4, "event_1")]
    assert plan_of("wireless", rows[:1]).ok
