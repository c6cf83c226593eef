"""Conditions of approval as staff and applicants use them: every `clearance conditions ...`
and `clearance project ...` call is a subprocess against a real Temporal dev server and a
real `clearance worker` process, configured only through the environment."""

from __future__ import annotations

import email
import json
import uuid
from collections import Counter
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from settings import PROJECT_ROOT
from tests.cli.runner import (
    Result,
    Stack,
    assert_one_line_error,
    clearance,
    reviewer_email,
    running_stack,
)
from tests.cli.test_staff_cli import addresses, wait_for

RESOLUTION = PROJECT_ROOT / "stack" / "data" / "cotati-village-resolution.txt"
CONTRACT_KEYS = {"title", "adopted", "conditions", "warnings"}
CONDITION_KEYS = {
    "number",
    "code",
    "department",
    "section",
    "text",
    "gates",
    "gate_source",
    "kind",
    "time_limits",
    "sub_items",
    "related",
    # revision 3 (§9): where each condition was printed and how sure the parse is
    "page",
    "department_source",
    "confidence",
    "evidence",
    "warnings",
}
PM = "pm@cotati.example"
APPLICANT = "applicant@cotati-village.example"
# The staff commands act as the account whose token they carry (tests/cli/runner.py).
ENGINEER = "engineer@cotati.example"
NOTICE_KEY = "X-Clearance-Notice-Key"

SMALL_RESOLUTION = """\
RESOLUTION NO. 2026-01
RESOLUTION OF THE CITY COUNCIL OF THE CITY OF COTATI APPROVING THE ALDER COURT LOT SPLIT
NOW, THEREFORE, BE IT RESOLVED that the City Council approves the project subject to the
following Conditions of Approval:
CONDITIONS OF APPROVAL
Public Works / Engineering
The following shall be satisfied prior to issuance of a grading permit:
1. The Applicant shall submit a final drainage report prepared by a registered civil engineer.
2. The Applicant shall submit an erosion and sediment control plan for review and approval.
3. The Applicant shall post a grading security in an amount approved by the City Engineer.
4. The Applicant shall submit a geotechnical report addressing the proposed grading.
5. The Applicant shall pay all plan check and inspection fees.
PRIOR TO ISSUANCE OF A BUILDING PERMIT
6. The Applicant shall pay the park in-lieu fees.
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("project-cli"), web=True) as running:
        yield running


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8].upper()}"


def import_args(path: Path, project_id: str, *extra: str) -> list[str]:
    return [
        "conditions", "import", str(path), "--project", project_id,
        "--name", f"Project {project_id}", "--pm", PM,
        "--applicant-email", APPLICANT, "--applicant-name", "Cotati Village Partners",
        *extra,
    ]  # fmt: skip


def refused(result: Result, *fragments: str) -> str:
    """Exit 1, nothing on stdout, one `error: refused: ...` line naming `fragments`."""
    assert result.stdout == "", result
    return assert_one_line_error(result, 1, "error: refused:", *fragments)


def project_json(stack: Stack, project_id: str) -> dict[str, Any]:
    return json.loads(stack.ok("project", "show", project_id, "--json").stdout)


def conditions_of(stack: Stack, project_id: str) -> dict[str, dict[str, Any]]:
    return {c["number"]: c for c in project_json(stack, project_id)["conditions"]}


def reviewer(stack: Stack, department: str) -> Stack:
    """The CLI as the department's reviewer."""
    return stack.as_(reviewer_email(department))


def project_messages(outbox: Path, project_id: str) -> list[EmailMessage]:
    out = []
    for path in sorted(outbox.glob("*.eml")) if outbox.exists() else []:
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(msg, EmailMessage)
        if str(msg[NOTICE_KEY]).startswith(f"{project_id}:"):
            out.append(msg)
    return out


def audit_events(stack: Stack, project_id: str) -> list[dict[str, Any]]:
    result = stack.ok("project", "report", project_id, "--kind", "audit", "--format", "json")
    return json.loads(result.stdout)["events"]


# -- parse ------------------------------------------------------------------------------------


def test_parse_prints_the_review_table_and_the_gate_counts() -> None:
    result = clearance("conditions", "parse", str(RESOLUTION))
    assert result.returncode == 0, result
    contract = json.loads(clearance("conditions", "parse", str(RESOLUTION), "--json").stdout)
    counts = Counter(g for c in contract["conditions"] for g in c["gates"])
    # The counts follow the table (wrapped to the terminal's width), before any warning.
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "conditions; by gate:" in line)
    rest = [line for line in lines[first:] if not line.startswith("warning:")]
    summary = " ".join(rest)
    assert summary.startswith("133 conditions; by gate: "), summary
    for gate, count in counts.items():
        assert f"{gate} {count}" in summary, (gate, count, summary)
    table = result.stdout
    assert "RESOLUTION OF THE CITY COUNCIL" in table
    for column in ("No.", "Code", "Department", "Gates", "From", "Kind", "Condition"):
        assert column in table
    assert "BIO-3" in table and "grading_permit" in table


def test_parse_json_is_the_parse_contract() -> None:
    result = clearance("conditions", "parse", str(RESOLUTION), "--json")
    assert result.returncode == 0, result
    contract = json.loads(result.stdout)
    assert set(contract) == CONTRACT_KEYS
    assert "COTATI" in contract["title"].upper()
    conditions = contract["conditions"]
    assert [c["number"] for c in conditions] == [str(n) for n in range(1, 134)]
    for c in conditions:
        assert set(c) == CONDITION_KEYS, c
        assert c["gates"], c
        assert c["gate_source"] in ("explicit", "section", "department", "none"), c
    codes = {c["code"] for c in conditions if c["code"]}
    assert {"BIO-3", "AQ-1", "UTI-3"} <= codes


def test_parse_unreadable_input_is_one_line_exit_2(tmp_path: Path) -> None:
    missing = clearance("conditions", "parse", str(tmp_path / "nope.txt"))
    assert missing.stdout == "", missing
    assert_one_line_error(missing, 2, "nope.txt")
    directory = clearance("conditions", "parse", str(tmp_path))
    assert_one_line_error(directory, 2, str(tmp_path))
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n")
    assert_one_line_error(clearance("conditions", "parse", str(empty)), 2, "empty.txt")


def test_a_file_without_conditions_exits_2_never_0_with_an_empty_list(tmp_path: Path) -> None:
    letter = tmp_path / "letter.txt"
    letter.write_text("Dear neighbour,\nThe park opens on Saturday. See you there.\n")
    parsed = clearance("conditions", "parse", str(letter), "--json")
    assert parsed.stdout == "", parsed
    assert_one_line_error(parsed, 2, "not a resolution")
    imported = clearance(
        "conditions", "import", str(letter), "--project", "X", "--name", "X", "--pm", PM,
        "--applicant-email", APPLICANT, "--yes",
    )  # fmt: skip
    assert "imported" not in imported.stdout, imported
    assert_one_line_error(imported, 2, "not a resolution")
    headed = tmp_path / "resolution.txt"
    headed.write_text(
        "RESOLUTION OF THE BOARD OF SUPERVISORS APPROVING USE PERMIT UP-9\n"
        "CONDITIONS OF APPROVAL\nThe applicant shall comply with everything.\n"
    )
    assert_one_line_error(
        clearance("conditions", "parse", str(headed), "--json"), 2, "no conditions found"
    )


def test_a_county_resolution_numbered_coa_1_parses(tmp_path: Path) -> None:
    county = tmp_path / "county.txt"
    county.write_text(
        "RESOLUTION OF THE BOARD OF SUPERVISORS OF THE COUNTY OF ALTA APPROVING UP-25-3\n"
        "CONDITIONS OF APPROVAL\n"
        "COA-1. This use permit shall expire twenty-four (24) months from the date of "
        "approval unless the use has commenced.\n"
        "COA-2. Prior to map recordation, the applicant shall dedicate the trail easement.\n"
    )
    result = clearance("conditions", "parse", str(county), "--json")
    assert result.returncode == 0, result
    conditions = json.loads(result.stdout)["conditions"]
    assert [c["number"] for c in conditions] == ["COA-1", "COA-2"]
    assert conditions[0]["time_limits"][0]["months"] == 24
    assert conditions[1]["gates"] == ["final_map"]


# -- import Cotati Village and work it as staff and the applicant ------------------------------


def test_import_cotati_village_and_drive_it_through_the_cli(stack: Stack) -> None:
    pid = new_id("CV")
    # Bad corrections: one line, exit 2, nothing imported.
    for bad, fragment in (
        ("12.gates=nope", "nope"),
        ("999.gates=building_permit", "#999"),
        ("12gates=building_permit", "NUMBER.FIELD=VALUE"),
        ("12.colour=red", "only gates, kind, department or time_limits"),
    ):
        result = stack.run(*import_args(RESOLUTION, pid, "--yes", "--set", bad))
        assert_one_line_error(result, 2, "--set", fragment)
    assert_one_line_error(stack.run("project", "show", pid), 1, "no such project")

    imported = stack.ok(*import_args(RESOLUTION, pid, "--yes", "--set", "12.gates=building_permit"))
    assert "parsed 133 conditions" in imported.stdout, imported
    assert "correction: #12 gates" in imported.stdout, imported
    assert f"imported {pid}" in imported.stdout, imported
    assert "133 conditions" in imported.stdout

    again = stack.run(*import_args(RESOLUTION, pid, "--yes"))
    assert_one_line_error(again, 1, pid, "already exists")

    show = stack.ok("project", "show", pid).stdout
    assert "clearance by milestone" in show and "next milestone:" in show
    for column in ("Milestone", "Conditions", "Resolved", "Blocking", "Signed off"):
        assert column in show
    overview = project_json(stack, pid)
    conditions = {c["number"]: c for c in overview["conditions"]}
    assert len(conditions) == 133
    assert conditions["12"]["gates"] == ["building_permit"]
    assert conditions["12"]["gate_source"] == "corrected"
    grading = next(m for m in overview["milestones"] if m["milestone"] == "grading_permit")
    assert grading["blocking"], grading

    # What blocks the grading permit, and the refused sign-off naming those conditions.
    blocking = json.loads(stack.ok("project", "blockers", pid, "grading_permit", "--json").stdout)
    numbers = [c["number"] for c in blocking]
    assert numbers == grading["blocking"]
    table = stack.ok("project", "blockers", pid, "grading_permit").stdout
    assert f"{len(numbers)} condition(s) block grading_permit" in table
    line = refused(
        stack.as_(ENGINEER).run("project", "sign-off", pid, "grading_permit"),
        "grading_permit cannot be signed off",
        f"{len(numbers)} condition(s) still open",
    )
    for number in numbers:
        assert f"#{number} " in line, (number, line)

    # The applicant submits evidence; only the responsible department reviews it.
    target = conditions[numbers[0]]
    number, department = target["number"], target["department"]
    wrong = "planning" if department != "planning" else "engineering"
    submitted = stack.as_(PM).ok(
        "project", "submit", pid, number, "--description", "report attached",
        "--file", "report.pdf",
    )  # fmt: skip
    assert f"#{number}: submitted" in submitted.stdout
    refused(
        reviewer(stack, wrong).run("project", "review", pid, number, "--decision", "cleared"),
        "not its reviewer",
    )
    cleared = reviewer(stack, department).ok(
        "project", "review", pid, number, "--decision", "cleared"
    )
    assert f"#{number}: cleared" in cleared.stdout
    after = json.loads(stack.ok("project", "blockers", pid, "grading_permit", "--json").stdout)
    assert number not in [c["number"] for c in after]

    # The project manager hands a condition to another owner who can review it; someone
    # who cannot log in is refused in one line.
    handed = numbers[-1]
    refused(
        stack.as_(PM).run("project", "reassign", pid, handed, "--email", "nobody@x.example"),
        "nobody@x.example is not a user who can log in",
    )
    owner = reviewer_email(conditions[handed]["department"])
    stack.as_(PM).ok("project", "reassign", pid, handed, "--email", owner, "--reason", "on leave")
    assert [
        (e["action"], e["reason"]) for e in audit_events(stack, pid)
        if e["condition_number"] == handed and e["action"] == "reassigned"
    ] == [("reassigned", "on leave")]  # fmt: skip

    # A waiver needs the planning manager: the project manager's token is refused before
    # the workflow is asked; a correction is audited with its reason.
    waive = numbers[1]
    waiver = [
        "project", "resolve", pid, waive, "--resolution", "waived", "--reason", "council waived it",
    ]  # fmt: skip
    result = stack.as_(PM).run(*waiver)
    assert result.stdout == "", result
    assert_one_line_error(result, 1, f"not permitted: {PM}", "waive", "planning manager")
    assert conditions_of(stack, pid)[waive]["status"] == "open"
    reason = "the council meant occupancy, not the grading permit"
    stack.as_(PM).ok(
        "project", "correct", pid, waive, "--gates", "occupancy", "--reason", reason
    )  # fmt: skip

    def correction() -> dict[str, Any] | None:
        events = audit_events(stack, pid)
        return next((e for e in events if e["action"] == "corrected"), None)

    event = wait_for("the correction in the audit log", correction)
    assert event["condition_number"] == waive and event["reason"] == reason
    assert event["actor"] == PM and event["role"] == "project_manager"
    assert event["details"]["to"]["gates"] == ["occupancy"]
    assert conditions_of(stack, pid)[waive]["gates"] == ["occupancy"]

    # Reports from the read model.
    csv = stack.ok("project", "report", pid, "--kind", "clearance", "--format", "csv").stdout
    rows = csv.splitlines()
    assert rows[0].startswith("project,milestone,number"), rows[:2]
    assert any(row.startswith(f"{pid},grading_permit,") for row in rows[1:]), rows[:5]
    html = stack.ok("project", "report", pid, "--kind", "mmrp", "--format", "html").stdout
    assert html.lstrip().lower().startswith("<!doctype html") and "BIO-3" in html

    # The applicant's digest for the grading permit: exactly one message, to the applicant.
    digest = stack.as_(PM).ok("project", "digest", pid, "--milestone", "grading_permit").stdout
    assert "digest sent" in digest
    digests = [
        m
        for m in project_messages(stack.outbox, pid)
        if str(m[NOTICE_KEY]).startswith(f"{pid}:digest:")
    ]
    assert len(digests) == 1, [str(m[NOTICE_KEY]) for m in digests]
    assert addresses(digests[0], "To") == [APPLICANT]
    assert PM in addresses(digests[0], "Cc")


def test_a_cleared_milestone_is_signed_off(stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "alder-court.txt"
    path.write_text(SMALL_RESOLUTION)
    contract = json.loads(stack.ok("conditions", "parse", str(path), "--json").stdout)
    gates = {c["number"]: c["gates"] for c in contract["conditions"]}
    assert gates == {**{n: ["grading_permit"] for n in "12345"}, "6": ["building_permit"]}

    pid = new_id("AC")
    stack.ok(*import_args(path, pid, "--yes"))
    conditions = conditions_of(stack, pid)
    for number, c in conditions.items():
        if number == "6":
            continue
        stack.as_(PM).ok(
            "project", "submit", pid, number, "--description", f"document for #{number}"
        )  # fmt: skip
        reviewer(stack, c["department"]).ok(
            "project", "review", pid, number, "--decision", "cleared"
        )  # fmt: skip
    assert stack.ok("project", "blockers", pid, "grading_permit").stdout.startswith(
        "nothing blocks grading_permit"
    )
    engineer = stack.as_(ENGINEER)
    signed = engineer.ok("project", "sign-off", pid, "grading_permit")
    assert "grading_permit signed off" in signed.stdout
    again = engineer.run("project", "sign-off", pid, "grading_permit")
    refused(again, "already signed off")
    building = engineer.run("project", "sign-off", pid, "building_permit")
    assert refused(building, "1 condition(s) still open", "#6 ").count("#") == 1
    grading = next(
        m for m in project_json(stack, pid)["milestones"] if m["milestone"] == "grading_permit"
    )
    assert grading["signed_off"]["by"] == ENGINEER
    keys = [str(m[NOTICE_KEY]) for m in project_messages(stack.outbox, pid)]
    assert f"{pid}:signoff:grading_permit" in keys
