"""`clearance import ...` as an administrator runs it: a template from the command line,
a dry run that previews each clock's dates, the import with its progress, a second run
that changes nothing, and a bad file refused with every error by row and column."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pendulum
import pytest

from actions.caseload_files import COLUMNS
from tests.cli.runner import Stack, running_stack

ADMIN = "admin@cotati.example"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("caseload-cli"), web=True) as running:
        yield running.as_(ADMIN)


def ago(days: int) -> str:
    return (pendulum.now("America/Los_Angeles").date() - timedelta(days=days)).isoformat()


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS["permits"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_template_dry_run_import_and_again(stack: Stack, tmp_path: Path) -> None:
    template = tmp_path / "wireless.xlsx"
    stack.ok("import", "template", "wireless", "--format", "xlsx", "-o", str(template))
    assert template.read_bytes()[:2] == b"PK"

    clock_id = f"BP-{uuid.uuid4().hex[:6]}"
    row = {"clock_id": clock_id, "rule": "building_permit_expiry",
           "event_1": "approved", "date_1": ago(100)}  # fmt: skip
    path = write(tmp_path / "permits.csv", [row])
    due = (pendulum.now("America/Los_Angeles").date() + timedelta(days=80)).isoformat()
    dry = stack.ok("import", "caseload", str(path), "--dry-run")
    assert clock_id in dry.stdout and due in dry.stdout and "1 to create" in dry.stdout
    assert stack.run("permit", "show", clock_id).returncode != 0  # a dry run starts nothing

    done = json.loads(stack.ok("import", "caseload", str(path), "--json").stdout)
    assert (done["state"], done["created"]) == ("done", 1)
    shown = json.loads(stack.ok("permit", "show", clock_id, "--json").stdout)
    assert shown["clock"]["due_date"] == due and [e["type"] for e in shown["events"]] == [
        "approved"
    ]

    again = json.loads(stack.ok("import", "caseload", str(path), "--json").stdout)
    assert (again["created"], again["existing"]) == (0, 1)


def test_a_bad_file_is_refused_with_every_error(stack: Stack, tmp_path: Path) -> None:
    good = f"BP-{uuid.uuid4().hex[:6]}"
    rows = [
        {"clock_id": good, "rule": "building_permit_expiry", "event_1": "approved",
         "date_1": ago(10)},
        {"clock_id": "BP-X", "rule": "parking_permit_expiry", "event_1": "approved",
         "date_1": ago(10)},
        {"clock_id": good, "rule": "building_permit_expiry", "event_1": "approved",
         "date_1": ago(10), "title": "@SUM(1+1)"},
    ]  # fmt: skip
    report = tmp_path / "errors.csv"
    result = stack.run(
        "import", "caseload", str(write(tmp_path / "bad.csv", rows)), "--errors", str(report)
    )
    assert result.returncode == 1, result
    assert "row 3, column rule" in result.stdout and "row 4, column title" in result.stdout
    assert result.stderr.count("\n") == 1 and "nothing was imported" in result.stderr
    lines = list(csv.reader(io.StringIO(report.read_text("utf-8"))))
    assert [line[:2] for line in lines] == [
        ["row", "column"],
        ["3", "rule"],
        ["4", "clock_id"],
        ["4", "title"],
    ]
    assert stack.run("permit", "show", good).returncode != 0


def test_a_file_over_the_limit_is_refused_before_it_is_sent(stack: Stack, tmp_path: Path) -> None:
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as out:
        out.truncate(200 * 1024 * 1024)  # sparse: 200 MB without writing them
    result = stack.run("import", "caseload", str(huge))
    assert result.returncode == 2 and "200 MB" in result.stderr, result
