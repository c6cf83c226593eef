"""`clearance conditions ...` (parse and import a resolution) and `clearance project ...`
(status by milestone and department, blockers, every action, sign-off, reports)."""

from __future__ import annotations

import copy
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from cli.api import Api
from cli.errors import CliError
from models.conditions import ParsedResolution
from rules.conditions.lifecycle import DEPARTMENTS

conditions_app = typer.Typer(help="Conditions of approval: parse and import a resolution.")
project_app = typer.Typer(help="Projects: clearance by milestone, actions, sign-off, reports.")
console = Console(width=None if sys.stdout.isatty() else 140)

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON")]


# -- parse and import -------------------------------------------------------------------------


def _parse_file(path: Path) -> ParsedResolution:
    """The parse with at least one condition; exit 2 with one line otherwise (never 0 with an
    empty list)."""
    from actions.resolution_files import ResolutionError, read_resolution

    try:
        return read_resolution(path.read_bytes(), path.name, progress=_progress_line)
    except OSError as err:
        raise CliError(f"{path}: cannot read the resolution ({err.strerror or err})", 2) from None
    except ResolutionError as err:
        raise CliError(f"{path}: {err}", code=2) from None


def _progress_line(done: int, total: int, stage: str) -> None:
    """A long file's progress on standard error (the parse itself goes to standard output):
    in place on a terminal, every tenth page otherwise."""
    if total < 5:
        return
    line = f"{done} of {total} pages {'recognised by OCR' if stage == 'recognised' else 'read'}"
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{line}" + ("\n" if done == total else ""))
    elif done == total or done % 10 == 0:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _review_table(parsed: ParsedResolution) -> Table:
    from rules.conditions.time_limits import describe

    table = Table(title=parsed.title[:120] or "Conditions", show_lines=False)
    columns = ("No.", "Page", "Sure", "Code", "Department", "Gates", "From", "Kind", "Time limits")
    for col in (*columns, "Condition"):
        table.add_column(col, overflow="fold")
    for c in parsed.conditions:
        text = " ".join(c.text.split())
        table.add_row(
            c.number,
            str(c.page or ""),
            c.confidence,
            c.code or "",
            (c.department or "")[:28],
            ", ".join(c.gates),
            c.gate_source,
            c.kind,
            "; ".join(describe(t) for t in c.time_limits),
            text if len(text) <= 90 else text[:87] + "...",
        )
    return table


@conditions_app.command("parse")
def parse(
    file: Annotated[Path, typer.Argument(help="Resolution as plain text or PDF")],
    as_json: JsonOpt = False,
) -> None:
    """Parse a resolution: a review table (default) or the JSON parse contract (--json)."""
    parsed = _parse_file(file)
    if as_json:
        sys.stdout.write(json.dumps(parsed.to_contract(), indent=2) + "\n")
        return
    console.print(_review_table(parsed))
    _print_counts(parsed)


def _print_counts(parsed: ParsedResolution) -> None:
    by_gate: dict[str, int] = defaultdict(int)
    for c in parsed.conditions:
        for g in c.gates:
            by_gate[g] += 1
    if parsed.adopted:
        console.print(f"adopted {parsed.adopted} (the approval that time limits count from)")
    console.print(
        f"{len(parsed.conditions)} conditions; by gate: "
        + ", ".join(f"{g} {n}" for g, n in sorted(by_gate.items()))
    )
    for warning in parsed.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))


def _corrections(values: list[str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for value in values:
        target, sep, new = value.partition("=")
        number, dot, field = target.partition(".")
        if not (sep and dot and number and field and new):
            raise CliError(
                f"--set {value!r}: use NUMBER.FIELD=VALUE, e.g. 12.gates=building_permit", code=2
            )
        out[number][field] = new
    return out


@conditions_app.command("import")
def import_resolution(
    file: Annotated[Path, typer.Argument(help="Resolution as plain text or PDF")],
    project_id: Annotated[
        str, typer.Option("--project", help="New (or, with --existing) project id")
    ],
    name: Annotated[str, typer.Option(help="Project name (a new project)")] = "",
    applicant_email: Annotated[str, typer.Option(help="Applicant's e-mail (digests)")] = "",
    pm: Annotated[
        str | None, typer.Option("--pm", help="Project manager's e-mail (default: you)")
    ] = None,
    applicant_name: Annotated[str, typer.Option(help="Applicant")] = "",
    jurisdiction_key: Annotated[
        str, typer.Option("--jurisdiction", help="A jurisdiction file's key (default: the setting)")
    ] = "",
    corrections: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Correct before import: NUMBER.gates|kind|department|time_limits=VALUE "
            "(time limits as 'expiry 24 months after approval +1x12 months', 'none', ...)",
        ),
    ] = None,
    existing: Annotated[
        bool, typer.Option("--existing", help="Add the conditions to an existing project")
    ] = False,
    prefix: Annotated[str, typer.Option(help="Number them apart: A- gives A-1")] = "",
    approved_on: Annotated[
        str, typer.Option("--approved-on", help="Adoption date, if the document has none")
    ] = "",
    yes: Annotated[bool, typer.Option("--yes", help="Import without asking")] = False,
) -> None:
    """Import a resolution into a new project (or an existing one): review the parse,
    correct, confirm, start."""
    from rules.conditions.onboarding import CorrectionError, apply_corrections

    with _progress() as progress:
        task = progress.add_task(f"parsing {file.name}", total=None)
        parsed = _parse_file(file)
        progress.update(task, description=f"parsed {len(parsed.conditions)} conditions")
    wanted = _corrections(corrections or [])
    # The review table shows the corrections; the server applies them to the parse as read.
    reviewed = copy.deepcopy(parsed)
    try:
        notes, _ = apply_corrections(reviewed, wanted)
    except CorrectionError as err:
        raise CliError(str(err), code=2) from None
    console.print(_review_table(reviewed))
    _print_counts(reviewed)
    for note in notes:
        console.print(f"correction: {note}")
    if not yes:
        if not sys.stdin.isatty():
            raise CliError("review the table above, then import with --yes", code=2)
        if not typer.confirm(f"Import {len(parsed.conditions)} conditions into {project_id}?"):
            raise CliError("nothing imported")
    api = Api.from_settings()
    body = {
        "project_id": project_id,
        "name": name,
        "project_manager_email": pm or ("" if existing else api.call("GET", "/me")["email"]),
        "applicant_email": applicant_email,
        "applicant_name": applicant_name,
        "jurisdiction": jurisdiction_key,
        "resolution": parsed.to_contract(),
        "corrections": wanted,
        "existing": existing,
        "prefix": prefix,
        "approved_on": approved_on or None,
    }
    with _progress() as progress:
        task = progress.add_task("starting the project workflow", total=None)
        result = api.call("POST", "/projects", body)
        progress.update(task, description="imported")
    console.print(
        f"imported [bold]{result['project_id']}[/bold] ({result['name']}): "
        f"{result['conditions']} conditions; next milestone {result['next_milestone']}"
    )
    for clock in result.get("clocks") or []:
        console.print(f"time limit clock: {clock}")
    for waiting in result.get("clocks_waiting") or []:
        console.print(f"time limit of #{waiting['condition']}: {waiting['reason']}")


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


# -- talking to the web app's API -----------------------------------------------------------


def _pid(project_id: str) -> str:
    return f"/projects/{quote(project_id, safe='')}"


def _act(project_id: str, path: str, body: dict[str, Any] | None = None) -> None:
    result = Api.from_settings().call("POST", _pid(project_id) + path, body)
    c = result.get("condition")
    if c is None:
        console.print(result["message"])
        return
    console.print(f"#{c['number']}: {c['status']} ({result['message']})")


# -- reading ----------------------------------------------------------------------------------


@project_app.command("show")
def show(
    project_id: Annotated[str, typer.Argument()],
    department: Annotated[str | None, typer.Option(help="Only this department")] = None,
    milestone: Annotated[str | None, typer.Option(help="Only this milestone")] = None,
    status: Annotated[str | None, typer.Option(help="Only conditions in this status")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The project by milestone and department, with each condition's status."""
    overview = Api.from_settings().call("GET", _pid(project_id) + "/status")
    conditions = overview.pop("conditions")
    if department:
        conditions = [c for c in conditions if c["department"] == department]
    if milestone:
        conditions = [c for c in conditions if milestone in c["gates"]]
    if status:
        conditions = [c for c in conditions if c["status"] == status]
    if as_json:
        sys.stdout.write(json.dumps({**overview, "conditions": conditions}, indent=2) + "\n")
        return
    summary = Table(title=f"{overview['name']} ({overview['project_id']}): clearance by milestone")
    for col in ("Milestone", "Conditions", "Resolved", "Blocking", "Signed off"):
        summary.add_column(col)
    for m in overview["milestones"]:
        signed = m["signed_off"]
        summary.add_row(
            m["milestone"],
            str(m["conditions"]),
            str(m["resolved"]),
            Text(str(len(m["blocking"])), style="red" if m["blocking"] else "green"),
            f"{signed['by']} {signed['at'][:10]}" if signed else "",
        )
    console.print(summary)
    console.print(f"next milestone: [bold]{overview['next_milestone']}[/bold]")
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    order = {m: i for i, m in enumerate(m["milestone"] for m in overview["milestones"])}
    for c in conditions:
        first = min(c["gates"], key=lambda g: order.get(g, 99))
        grouped[(first, c["department"])].append(c)
    for (gate, dept), items in sorted(
        grouped.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][1])
    ):
        table = Table(title=f"{gate} / {DEPARTMENTS.get(dept, dept)}", title_justify="left")
        for col in ("No.", "Code", "Status", "Kind", "Gates", "Condition"):
            table.add_column(col, overflow="fold")
        for c in items:
            text = " ".join(c["text"].split())
            table.add_row(
                c["number"],
                c["code"] or "",
                c["status"],
                c["kind"],
                ", ".join(c["gates"]),
                text if len(text) <= 100 else text[:97] + "...",
            )
        console.print(table)
    if overview.get("windows"):
        windows = Table(title="Seasonal and freshness windows (from the planned dates)")
        for col in ("No.", "Due", "What"):
            windows.add_column(col, overflow="fold")
        for item in overview["windows"]:
            windows.add_row(item["condition_number"], item["due"], item["description"])
        console.print(windows)
    for conflict in overview.get("window_conflicts", []):
        console.print(
            Text(f"#{conflict['condition_number']}: {conflict['message']}", style="yellow")
        )
    if overview["unspecified_gate"]:
        console.print(
            Text(
                f"{len(overview['unspecified_gate'])} condition(s) have no gate: "
                + ", ".join(overview["unspecified_gate"]),
                style="yellow",
            )
        )


@project_app.command("blockers")
def show_blockers(
    project_id: Annotated[str, typer.Argument()],
    milestone: Annotated[str, typer.Argument()],
    as_json: JsonOpt = False,
) -> None:
    """What still blocks a milestone, and who must clear it."""

    blocking = Api.from_settings().call(
        "GET", f"{_pid(project_id)}/milestones/{quote(milestone, safe='')}/blockers"
    )
    if as_json:
        sys.stdout.write(json.dumps(blocking, indent=2) + "\n")
        return
    if not blocking:
        console.print(f"nothing blocks {milestone}")
        return
    table = Table(title=f"{len(blocking)} condition(s) block {milestone}")
    for col in ("No.", "Code", "Department", "Status", "Condition"):
        table.add_column(col, overflow="fold")
    for c in blocking:
        text = " ".join(c["text"].split())
        table.add_row(
            c["number"],
            c["code"] or "",
            c["department"],
            c["status"],
            text if len(text) <= 100 else text[:97] + "...",
        )
    console.print(table)


@project_app.command("owes")
def owes(project_id: Annotated[str, typer.Argument()], as_json: JsonOpt = False) -> None:
    """What the applicant still owes."""

    result = Api.from_settings().call("GET", _pid(project_id) + "/owes")
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        return
    console.print(f"next milestone: {result['next_milestone']}; {len(result['owed'])} owed")
    for c in result["owed"]:
        console.print(f"  #{c['number']} [{c['status']}] {' '.join(c['text'].split())[:110]}")


@project_app.command("list")
def list_projects(as_json: JsonOpt = False) -> None:
    """Projects with their next milestone and how many conditions block it."""
    api = Api.from_settings()
    rows: list[dict[str, Any]] = []
    page, pages = 1, 1
    while page <= pages:
        result = api.call("GET", "/projects", page=page)
        rows += [
            {
                "project_id": p["project_id"],
                "name": p["name"],
                "jurisdiction": p["jurisdiction"],
                "next_milestone": p["next_milestone"],
                "blocking": p["next_milestone_blockers"],
                "open_conditions": p["open_conditions"],
            }
            for p in result["items"]
        ]
        page, pages = page + 1, result["pages"]
    rows.sort(key=lambda r: r["project_id"])
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    if not rows:
        console.print("no projects yet: import one with `clearance conditions import`")
        return
    table = Table(title="Projects")
    for col in ("Project", "Name", "Next milestone", "Blocking", "Open"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["project_id"],
            r["name"],
            r["next_milestone"] or "-",
            str(r["blocking"]),
            str(r["open_conditions"]),
        )
    console.print(table)


# -- actions: each acts as the logged-in account, with its role ----------------------------------


@project_app.command("submit")
def submit(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    description: Annotated[str, typer.Option(help="What the evidence is")],
    file: Annotated[str, typer.Option(help="File name of the evidence")] = "",
    document_date: Annotated[str | None, typer.Option(help="Date of the document")] = None,
) -> None:
    """Submit evidence for a condition (for the applicant, or as project manager)."""
    body = {"description": description, "filename": file, "document_date": document_date}
    _act(project_id, f"/conditions/{quote(number, safe='')}/evidence", body)


@project_app.command("review")
def review(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    decision: Annotated[str, typer.Option(help="in_review, cleared or returned")],
    comment: Annotated[str, typer.Option(help="What is missing (required to return)")] = "",
) -> None:
    """Review submitted evidence (only the responsible department)."""
    body = {"decision": decision, "comment": comment}
    _act(project_id, f"/conditions/{quote(number, safe='')}/review", body)


@project_app.command("resolve")
def resolve(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    resolution: Annotated[
        str, typer.Option(help="waived, not_applicable, satisfied_by_alternative")
    ],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log)")],
) -> None:
    """Waive a condition, mark it not applicable, or satisfied by an alternative."""
    body = {"resolution": resolution, "reason": reason}
    _act(project_id, f"/conditions/{quote(number, safe='')}/resolve", body)


@project_app.command("trigger")
def trigger(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    reason: Annotated[str, typer.Option(help="What happened")],
) -> None:
    """Bring a conditional or event condition into force."""
    _act(project_id, f"/conditions/{quote(number, safe='')}/trigger", {"reason": reason})


@project_app.command("reassign")
def reassign(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    email: Annotated[str, typer.Option(help="The new owner: a reviewer who can log in")],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log)")] = "",
) -> None:
    """Hand a condition to another owner (the project manager)."""
    body = {"email": email, "reason": reason}
    _act(project_id, f"/conditions/{quote(number, safe='')}/owner", body)


@project_app.command("plan")
def plan(
    project_id: Annotated[str, typer.Argument()],
    groundbreaking: Annotated[str | None, typer.Option()] = None,
    grading_start: Annotated[str | None, typer.Option()] = None,
    grading_end: Annotated[str | None, typer.Option()] = None,
    construction_end: Annotated[str | None, typer.Option()] = None,
    target: Annotated[
        list[str] | None, typer.Option(help="MILESTONE=YYYY-MM-DD target date (repeat)")
    ] = None,
) -> None:
    """Set planned dates: they become due dates, reminders and digests."""
    targets: dict[str, str] = {}
    for value in target or []:
        milestone, sep, when = value.partition("=")
        if not sep:
            raise CliError(f"--target {value!r}: use MILESTONE=YYYY-MM-DD", code=2)
        targets[milestone] = when
    body = {
        "groundbreaking": groundbreaking,
        "grading_start": grading_start,
        "grading_end": grading_end,
        "construction_end": construction_end,
        "milestone_targets": targets,
    }
    _act(project_id, "/plan", body)


@project_app.command("sign-off")
def sign_off(
    project_id: Annotated[str, typer.Argument()],
    milestone: Annotated[str, typer.Argument()],
) -> None:
    """Sign off a milestone (engineering); refused with the blockers while any is open."""
    _act(project_id, f"/milestones/{quote(milestone, safe='')}/sign-off")


@project_app.command("correct")
def correct(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log)")],
    gates: Annotated[str | None, typer.Option(help="Comma-separated gate keys")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    department: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Correct a condition's gate, kind or department (an audited event)."""
    gate_list = None if gates is None else [g.strip() for g in gates.split(",") if g.strip()]
    body = {"reason": reason, "gates": gate_list, "kind": kind, "department_key": department}
    _act(project_id, f"/conditions/{quote(number, safe='')}/correct", body)


@project_app.command("digest")
def digest(
    project_id: Annotated[str, typer.Argument()],
    milestone: Annotated[str | None, typer.Option(help="Default: the next milestone")] = None,
) -> None:
    """Send the applicant their digest of what is still owed, now."""
    _act(project_id, "/digest", {"milestone": milestone})


@project_app.command("report")
def report(
    project_id: Annotated[str, typer.Argument()],
    kind: Annotated[str, typer.Option(help="clearance, mmrp or audit")] = "clearance",
    fmt: Annotated[str, typer.Option("--format", help="html, csv or json (audit)")] = "html",
    out: Annotated[Path | None, typer.Option(help="Write to this file")] = None,
) -> None:
    """Milestone clearance report, CEQA MMRP table, or the audit log export."""
    if kind not in ("clearance", "mmrp", "audit"):
        raise CliError("--kind: clearance, mmrp or audit", code=2)
    if kind == "audit" and fmt == "html":
        fmt = "json"
    result = Api.from_settings().call("GET", f"{_pid(project_id)}/reports/{kind}", format=fmt)
    body = result["body"]
    if out is None:
        sys.stdout.write(body)
    else:
        out.write_text(body)
        console.print(f"wrote {out}")
