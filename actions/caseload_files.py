"""Reading a caseload file (CSV or XLSX) into rows, and writing what goes back out: the
template of each file kind and the error report (docs/onboarding.md).

Pure over bytes (no files, no network): the web page, the API and the CLI hand the bytes
over. A file is refused by its size before a byte of it is parsed; a cell a spreadsheet
would run as a formula (`=HYPERLINK(...)`) is refused naming its row and column, and
every CSV written here goes through the reports' guard (reports.common.write_csv).
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from reports.common import FORMULA_START, write_csv

# 10,000 rows of the widest kind are about 3 MB as CSV: far above any real caseload file,
# far below a file that would tie up a worker (a 200 MB upload is refused unread).
MAX_CASELOAD_BYTES = 20 * 1024 * 1024
MAX_ROWS = 50_000
# An .xlsx is a zip: its XML, unpacked, may be far larger than the file.
MAX_XLSX_UNPACKED_BYTES = 200 * 1024 * 1024
EVENT_SLOTS = 8

KINDS = ("wireless", "permits", "projects")

_CLOCK_EVENTS = [
    col for n in range(1, EVENT_SLOTS + 1) for col in (f"event_{n}", f"date_{n}", f"details_{n}")
]
COLUMNS: dict[str, list[str]] = {
    "wireless": [
        "application_id",
        "jurisdiction",
        "category",
        "site_address",
        "description",
        "applicant_name",
        "applicant_email",
        "planner_email",
        *_CLOCK_EVENTS,
    ],
    "permits": [
        "clock_id",
        "jurisdiction",
        "rule",
        "title",
        "site_address",
        "applicant_name",
        "applicant_email",
        "staff_email",
        "project_id",
        "facts",
        *_CLOCK_EVENTS,
    ],
    "projects": [
        "project_id",
        "project_name",
        "jurisdiction",
        "approved_on",
        "applicant_name",
        "applicant_email",
        "project_manager_email",
        "condition_number",
        "condition_text",
        "department",
        "gates",
        "kind",
        "status",
        "evidence_date",
        "evidence_description",
        "status_date",
        "status_by",
        "reason",
        "signoffs",
    ],
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "wireless": ("application_id", "event_1", "date_1"),
    "permits": ("clock_id", "rule", "event_1", "date_1"),
    "projects": ("project_id", "condition_number", "condition_text", "gates", "status"),
}


class CaseloadFileError(ValueError):
    """The file as a whole cannot be read (size, format, header): one sentence."""


@dataclass
class RowError:
    """One problem, where it is: the spreadsheet's row number (the header is row 1) and
    the column's name ("" when it is the row as a whole)."""

    row: int
    column: str
    message: str

    def line(self) -> str:
        where = f"row {self.row}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"row": self.row, "column": self.column, "message": self.message}


@dataclass
class Sheet:
    """A caseload file's rows: each a dict of column to stripped text, with its row
    number; `errors` are the cells refused while reading (formulas)."""

    kind: str
    filename: str
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)


def check_size(size: int) -> None:
    if size > MAX_CASELOAD_BYTES:
        raise CaseloadFileError(
            f"the file is {size // (1024 * 1024)} MB; a caseload file may be at most "
            f"{MAX_CASELOAD_BYTES // (1024 * 1024)} MB (split it by jurisdiction or kind)"
        )


def kind_of(header: list[str]) -> str:
    """The file kind its header names by its first column."""
    first = header[0] if header else ""
    for kind, columns in COLUMNS.items():
        if first == columns[0]:
            return kind
    raise CaseloadFileError(
        f"row 1: the first column is {first!r}; a caseload file starts with application_id "
        "(wireless), clock_id (permits) or project_id (projects): download a template"
    )


def read_sheet(filename: str, data: bytes, kind: str = "") -> Sheet:
    """The rows of a CSV or XLSX caseload file, refused by size before it is parsed."""
    check_size(len(data))
    if not data.strip():
        raise CaseloadFileError("the file is empty: choose a caseload file (CSV or XLSX)")
    if data[:4] == b"PK\x03\x04":
        table = _xlsx_rows(data)
    elif filename.lower().endswith((".xlsx", ".xlsm")):
        raise CaseloadFileError("the file is named .xlsx but is not a spreadsheet")
    else:
        table = _csv_rows(data)
    if not table:
        raise CaseloadFileError("the file has no header row")
    header = [h.strip().lower() for h in table[0]]
    found = kind_of(header)
    if kind and found != kind:
        raise CaseloadFileError(f"this is a {found} file, not a {kind} file")
    known = set(COLUMNS[found])
    unknown = [h for h in header if h and h not in known]
    if unknown:
        raise CaseloadFileError(
            f"row 1, column {unknown[0]}: not a column of a {found} file (download the template)"
        )
    if len(set(h for h in header if h)) != len([h for h in header if h]):
        twice = next(h for h in header if h and header.count(h) > 1)
        raise CaseloadFileError(f"row 1, column {twice}: the column is given twice")
    missing = [c for c in REQUIRED[found] if c not in header]
    if missing:
        raise CaseloadFileError(f"row 1: the column {missing[0]} is missing")
    if len(table) - 1 > MAX_ROWS:
        raise CaseloadFileError(f"the file has {len(table) - 1} rows; at most {MAX_ROWS}")
    sheet = Sheet(found, filename)
    for number, cells in enumerate(table[1:], start=2):
        if not any(c.strip() for c in cells):
            continue  # blank lines between groups are common in hand-kept sheets
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            sheet.errors.append(
                RowError(number, "", f"{len(cells)} cells, the header has {len(header)}")
            )
            continue
        row: dict[str, str] = {}
        for name, cell in zip(header, cells, strict=False):
            if not name:
                continue
            text = cell.strip()
            if text.startswith(FORMULA_START):
                sheet.errors.append(
                    RowError(
                        number,
                        name,
                        "the cell starts with "
                        f"{text[:1]!r}, which a spreadsheet runs as a formula; "
                        "remove it (a note may not start with = + - or @)",
                    )
                )
                continue
            row[name] = text
        sheet.rows.append((number, row))
    return sheet


def _csv_rows(data: bytes) -> list[list[str]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseloadFileError("the file is not UTF-8 text: save it as CSV UTF-8") from None
    if "\x00" in text:
        raise CaseloadFileError("the file is not text (it holds NUL bytes)")
    try:
        return [row for row in csv.reader(io.StringIO(text, newline=""))]
    except csv.Error as err:
        raise CaseloadFileError(f"the CSV cannot be read: {err}") from None


def _xlsx_rows(data: bytes) -> list[list[str]]:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(i.file_size for i in archive.infolist())
    except zipfile.BadZipFile:
        raise CaseloadFileError("the file is not a readable XLSX spreadsheet") from None
    if unpacked > MAX_XLSX_UNPACKED_BYTES:
        raise CaseloadFileError("the spreadsheet unpacks to more than 200 MB: refused")
    try:
        # read_only streams the sheet; openpyxl parses with the standard library's
        # expat, which expands no external entities.
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as err:  # noqa: BLE001 - any reader failure is one sentence
        raise CaseloadFileError(f"the spreadsheet cannot be read ({type(err).__name__})") from None
    try:
        sheet = book.worksheets[0]
        rows = []
        for values in sheet.iter_rows(values_only=True):
            rows.append([_cell_text(v) for v in values])
            if len(rows) > MAX_ROWS + 1:
                break
        return rows
    finally:
        book.close()


def _cell_text(value: Any) -> str:
    """A spreadsheet cell as the text a CSV would hold (dates as ISO dates)."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# -- what goes back out ---------------------------------------------------------------------


def error_report(errors: list[RowError]) -> str:
    """The downloadable error report: one line per problem (formula cells guarded)."""
    return write_csv(("row", "column", "error"), ((e.row, e.column, e.message) for e in errors))


def template_rows(kind: str, today: date, city: str) -> list[list[str]]:
    """An example row or two per kind in jurisdiction `city`, dated before `today` so the
    template imports as it is."""
    from datetime import timedelta

    def day(n: int) -> str:
        return (today - timedelta(days=n)).isoformat()

    def events(*pairs: tuple[str, str, str]) -> list[str]:
        cells: list[str] = []
        for event, when, details in pairs:
            cells += [event, when, details]
        return cells + [""] * (3 * EVENT_SLOTS - len(cells))

    if kind == "wireless":
        return [
            [
                "WA-2026-0101",
                city,
                "macro_collocation",
                "8000 Old Redwood Hwy",
                "Add three antennas to the existing tower",
                "Tower Co",
                "permits@towerco.example",
                f"planner@{city}.example",
                *events(
                    ("submitted", day(40), ""),
                    (
                        "incomplete_notice",
                        day(30),
                        "A1 | Structural calculations | Municipal Code 17.62.040",
                    ),
                    ("resubmitted", day(20), ""),
                ),
            ]
        ]
    if kind == "permits":
        return [
            [
                "BP-2025-0420",
                city,
                "building_permit_expiry",
                "Building permit, 12 Main St",
                "12 Main St",
                "Ana Builder",
                "ana@builder.example",
                "",
                "",
                "",
                *events(("approved", day(200), ""), ("inspection", day(100), "result=approved")),
            ]
        ]
    return [
        [
            "PRJ-2025-007",
            "Oak Grove Subdivision",
            city,
            day(120),
            "Oak Grove LLC",
            "dev@oakgrove.example",
            f"pm@{city}.example",
            "1",
            "Submit an erosion control plan prior to grading permit.",
            "engineering",
            "grading_permit",
            "requirement",
            "cleared",
            day(60),
            "Erosion control plan, sheet C-3",
            day(50),
            f"publicworks@{city}.example",
            "",
            f"grading_permit {day(40)} engineer@{city}.example",
        ],
        [
            "PRJ-2025-007",
            "",
            "",
            "",
            "",
            "",
            "",
            "2",
            "Pay the park fees prior to building permit.",
            "planning",
            "building_permit",
            "requirement",
            "submitted",
            day(10),
            "Receipt 4471",
            "",
            "",
            "",
            "",
        ],
    ]


def template_csv(kind: str, today: date, city: str) -> str:
    return write_csv(COLUMNS[kind], template_rows(kind, today, city))


def template_xlsx(kind: str, today: date, city: str) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = kind
    sheet.append(COLUMNS[kind])
    for row in template_rows(kind, today, city):
        # Every cell as text: a spreadsheet must not turn an id or a date into a number.
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def template(kind: str, fmt: str, today: date, city: str) -> tuple[bytes, str, str]:
    """(body, media type, file name) of the template of `kind` as csv or xlsx, its example
    rows in jurisdiction `city` (the deployment's default)."""
    if kind not in KINDS:
        raise CaseloadFileError(f"kind: {kind!r} is not one of {', '.join(KINDS)}")
    if fmt == "csv":
        return template_csv(kind, today, city).encode(), "text/csv; charset=utf-8", f"{kind}.csv"
    if fmt == "xlsx":
        media = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        return template_xlsx(kind, today, city), media, f"{kind}.xlsx"
    raise CaseloadFileError(f"format: {fmt!r} is csv or xlsx")
