"""Every CSV Clearance writes guards cells a spreadsheet would run as a formula
(`=HYPERLINK(...)`, `+`, `-`, `@`, a tab or a carriage return first): they all go through
`reports.common.write_csv`, which puts an apostrophe first. The exports are the
clearance, MMRP and audit reports, the caseload error report and templates."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path

from actions.caseload_files import RowError, error_report, template
from reports.common import write_csv

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("actions", "activities", "cli", "models", "notices", "operations", "reports",
           "rules", "stack", "web", "workflows")  # fmt: skip


def test_only_write_csv_writes_csv() -> None:
    writers = re.compile(r"csv\.(writer|DictWriter)\(")
    found = sorted(
        str(path.relative_to(ROOT))
        for folder in PRODUCT
        for path in (ROOT / folder).rglob("*.py")
        if writers.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["reports/common.py"], found


def test_formula_cells_are_guarded_in_every_export() -> None:
    dangerous = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1"]
    rows = list(csv.reader(io.StringIO(write_csv(["value"], [[d] for d in dangerous]))))
    assert [r[0] for r in rows[1:]] == ["'" + d for d in dangerous]
    report = error_report([RowError(2, "site_address", d) for d in dangerous])
    assert all(r[2].startswith("'") for r in list(csv.reader(io.StringIO(report)))[1:])
    for kind in ("wireless", "permits", "projects"):
        body, _, _ = template(kind, "csv", date(2026, 12, 1), "cotati")
        for row in csv.reader(io.StringIO(body.decode())):
            assert not any(cell.startswith(("=", "+", "@")) for cell in row), row
