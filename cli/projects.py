"""`clearance conditions ...` (parse and import a resolution) and `clearance project ...`
(status by milestone and department, blockers, every action, sign-off, reports)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text
from sqlalchemy import select
from temporalio.client import WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from cli.connection import connect, query, update
from cli.errors import CliError
from models.conditions import (
    ActionResult,
    Actor,
    CorrectionInput,
    DigestRequestInput,
    ParsedResolution,
    PlannedDatesInput,
    ResolveInput,
    ReviewInput,
    SignOffInput,
    SubmitEvidenceInput,
    TriggerInput,
)
from rules.conditions.lifecycle import DEPARTMENTS, ROLES
from rules.packs import jurisdiction
from settings import load_settings

conditions_app = typer.Typer(help="Conditions of approval: parse and import a resolution.")
project_app = typer.Typer(help="Projects: clearance by milestone, actions, sign-off, reports.")
console = Console(width=None if sys.stdout.isatty() else 140)

AsOpt = Annotated[
    str,
    typer.Option(
        "--as",
        help="Who acts: ROLE:EMAIL[:DEPARTMENT], e.g. department_reviewer:eng@city.gov:engineering",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON")]


def _actor(spec: str) -> Actor:
    parts = spec.split(":")
    if len(parts) not in (2, 3) or not parts[1]:
        raise CliError("--as: give ROLE:EMAIL or ROLE:EMAIL:DEPARTMENT", code=2)
    role = parts[0]
    if role not in ROLES:
        raise CliError(f"--as: unknown role {role!r} (roles: {', '.join(ROLES)})", code=2)
    department = parts[2] if len(parts) == 3 else ""
    if department and department not in DEPARTMENTS:
        raise CliError(
            f"--as: unknown department {department!r} ({', '.join(DEPARTMENTS)})", code=2
        )
    if role == "department_reviewer" and not department:
        raise CliError("--as: a department_reviewer needs a department (ROLE:EMAIL:DEPARTMENT)", 2)
    return Actor(email=parts[1], role=role, department=department)


# -- parse and import -------------------------------------------------------------------------


def _parse_file(path: Path) -> ParsedResolution:
    """The parse with at least one condition; exit 2 with one line otherwise (never 0 with an
    empty list)."""
    from rules.conditions.parser import ResolutionError, read_resolution

    try:
        return read_resolution(path.read_bytes(), path.name)
    except OSError as err:
        raise CliError(f"{path}: cannot read the resolution ({err.strerror or err})", 2) from None
    except ResolutionError as err:
        raise CliError(f"{path}: {err}", code=2) from None


def _review_table(parsed: ParsedResolution) -> Table:
    from rules.conditions.time_limits import describe

    table = Table(title=parsed.title[:120] or "Conditions", show_lines=False)
    for col in ("No.", "Code", "Department", "Gates", "From", "Kind", "Time limits", "Condition"):
        table.add_column(col, overflow="fold")
    for c in parsed.conditions:
        text = " ".join(c.text.split())
        table.add_row(
            c.number,
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
    project_id: Annotated[str, typer.Option("--project", help="New project id")],
    name: Annotated[str, typer.Option(help="Project name")],
    pm: Annotated[str, typer.Option("--pm", help="Project manager's e-mail")],
    applicant_email: Annotated[str, typer.Option(help="Applicant's e-mail (digests)")],
    applicant_name: Annotated[str, typer.Option(help="Applicant")] = "",
    jurisdiction_key: Annotated[str, typer.Option("--jurisdiction")] = "cotati",
    corrections: Annotated[
        list[str] | None,
        typer.Option("--set", help="Correct before import: NUMBER.gates|kind|department=VALUE"),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Import without asking")] = False,
) -> None:
    """Import a resolution into a new project: review the parse, correct, confirm, start."""
    from rules.conditions.onboarding import CorrectionError, apply_corrections, new_project

    try:
        city = jurisdiction(jurisdiction_key)
    except ValueError as err:
        raise CliError(f"--jurisdiction: {err}", code=2) from None
    with _progress() as progress:
        task = progress.add_task(f"parsing {file.name}", total=None)
        parsed = _parse_file(file)
        progress.update(task, description=f"parsed {len(parsed.conditions)} conditions")
    try:
        notes, departments = apply_corrections(parsed, _corrections(corrections or []))
    except CorrectionError as err:
        raise CliError(str(err), code=2) from None
    console.print(_review_table(parsed))
    _print_counts(parsed)
    for note in notes:
        console.print(f"correction: {note}")
    if not yes:
        if not sys.stdin.isatty():
            raise CliError("review the table above, then import with --yes", code=2)
        if not typer.confirm(f"Import {len(parsed.conditions)} conditions into {project_id}?"):
            raise CliError("nothing imported")
    start = new_project(
        parsed,
        project_id=project_id,
        name=name,
        city=city,
        applicant_name=applicant_name,
        applicant_email=applicant_email,
        project_manager_email=pm,
        department_overrides=departments,
        notes=notes,
        imported_by=pm,
    )
    asyncio.run(_start_project(start))


def _progress() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


async def _start_project(start: Any) -> None:
    from workflows.project import ProjectWorkflow, project_workflow_id

    client = await connect()
    with _progress() as progress:
        task = progress.add_task("starting the project workflow", total=None)
        try:
            await client.start_workflow(
                ProjectWorkflow.run,
                start,
                id=project_workflow_id(start.info.project_id),
                task_queue=load_settings().task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            raise CliError(f"project {start.info.project_id} already exists") from None
        progress.update(task, description="waiting for the first record")
        handle = client.get_workflow_handle(project_workflow_id(start.info.project_id))
        status = await _query(handle, "status_by_milestone")
        progress.update(task, description="imported")
    console.print(
        f"imported [bold]{start.info.project_id}[/bold] ({start.info.name}): "
        f"{len(start.conditions)} conditions; next milestone {status['next_milestone']}"
    )


# -- talking to the project workflow ---------------------------------------------------------


async def _handle(project_id: str) -> WorkflowHandle[Any, Any]:
    from workflows.project import project_workflow_id

    return (await connect()).get_workflow_handle(project_workflow_id(project_id))


async def _query(handle: WorkflowHandle[Any, Any], name: str, *args: Any) -> Any:
    return await query(handle, name, *args, missing="no such project")


async def _update(project_id: str, name: str, payload: Any) -> ActionResult:
    handle = await _handle(project_id)
    await _query(handle, "status_by_milestone")  # fails clearly for an unknown project
    return await update(
        handle,
        name,
        payload,
        result_type=ActionResult,
        closed="refused: the project is closed; nothing was recorded",
    )


def _print_result(result: ActionResult) -> None:
    c = result.condition
    if c is None:
        console.print(result.message)
        return
    console.print(f"#{c['number']}: {c['status']} ({result.message})")


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
    overview, conditions = asyncio.run(_overview(project_id))
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


async def _overview(project_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    handle = await _handle(project_id)
    overview = await _query(handle, "status_by_milestone")
    conditions = await _query(handle, "conditions")
    return overview, conditions


@project_app.command("blockers")
def show_blockers(
    project_id: Annotated[str, typer.Argument()],
    milestone: Annotated[str, typer.Argument()],
    as_json: JsonOpt = False,
) -> None:
    """What still blocks a milestone, and who must clear it."""

    async def go() -> list[dict[str, Any]]:
        return await _query(await _handle(project_id), "blockers", milestone)

    blocking = asyncio.run(go())
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

    async def go() -> dict[str, Any]:
        return await _query(await _handle(project_id), "applicant_owes")

    result = asyncio.run(go())
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
        return
    console.print(f"next milestone: {result['next_milestone']}; {len(result['owed'])} owed")
    for c in result["owed"]:
        console.print(f"  #{c['number']} [{c['status']}] {' '.join(c['text'].split())[:110]}")


@project_app.command("list")
def list_projects(as_json: JsonOpt = False) -> None:
    """Projects with their next milestone and how many conditions block it."""
    from models.database import make_engine, session_factory
    from models.schema import Project

    engine = make_engine(load_settings().database_url)
    with session_factory(engine)() as session:
        rows = [
            {
                "project_id": p.project_id,
                "name": p.name,
                "jurisdiction": p.jurisdiction,
                "next_milestone": p.next_milestone,
                "blocking": p.next_milestone_blockers,
                "open_conditions": p.open_conditions,
            }
            for p in session.scalars(select(Project).order_by(Project.project_id))
        ]
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


# -- actions ----------------------------------------------------------------------------------


@project_app.command("submit")
def submit(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    description: Annotated[str, typer.Option(help="What the evidence is")],
    actor: AsOpt,
    file: Annotated[str, typer.Option(help="File name of the evidence")] = "",
    document_date: Annotated[str | None, typer.Option(help="Date of the document")] = None,
) -> None:
    """Submit evidence for a condition (applicant or project manager)."""
    payload = SubmitEvidenceInput(number, _actor(actor), description, file, document_date)
    _print_result(asyncio.run(_update(project_id, "submit_evidence", payload)))


@project_app.command("review")
def review(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    decision: Annotated[str, typer.Option(help="in_review, cleared or returned")],
    actor: AsOpt,
    comment: Annotated[str, typer.Option(help="What is missing (required to return)")] = "",
) -> None:
    """Review submitted evidence (only the responsible department)."""
    payload = ReviewInput(number, _actor(actor), decision, comment)
    _print_result(asyncio.run(_update(project_id, "review_condition", payload)))


@project_app.command("resolve")
def resolve(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    resolution: Annotated[
        str, typer.Option(help="waived, not_applicable, satisfied_by_alternative")
    ],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log)")],
    actor: AsOpt,
) -> None:
    """Waive a condition, mark it not applicable, or satisfied by an alternative."""
    payload = ResolveInput(number, _actor(actor), resolution, reason)
    _print_result(asyncio.run(_update(project_id, "resolve_condition", payload)))


@project_app.command("trigger")
def trigger(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    reason: Annotated[str, typer.Option(help="What happened")],
    actor: AsOpt,
) -> None:
    """Bring a conditional or event condition into force."""
    payload = TriggerInput(number, _actor(actor), reason)
    _print_result(asyncio.run(_update(project_id, "trigger_condition", payload)))


@project_app.command("plan")
def plan(
    project_id: Annotated[str, typer.Argument()],
    actor: AsOpt,
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
    payload = PlannedDatesInput(
        _actor(actor), groundbreaking, grading_start, grading_end, construction_end, targets
    )
    _print_result(asyncio.run(_update(project_id, "set_planned_dates", payload)))


@project_app.command("sign-off")
def sign_off(
    project_id: Annotated[str, typer.Argument()],
    milestone: Annotated[str, typer.Argument()],
    actor: AsOpt,
) -> None:
    """Sign off a milestone (engineering); refused with the blockers while any is open."""
    payload = SignOffInput(milestone, _actor(actor))
    _print_result(asyncio.run(_update(project_id, "sign_off_milestone", payload)))


@project_app.command("correct")
def correct(
    project_id: Annotated[str, typer.Argument()],
    number: Annotated[str, typer.Argument(help="Condition number")],
    reason: Annotated[str, typer.Option(help="Why (kept in the audit log)")],
    actor: AsOpt,
    gates: Annotated[str | None, typer.Option(help="Comma-separated gate keys")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    department: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Correct a condition's gate, kind or department (an audited event)."""
    gate_list = None if gates is None else [g.strip() for g in gates.split(",") if g.strip()]
    payload = CorrectionInput(number, _actor(actor), reason, gate_list, kind, department)
    _print_result(asyncio.run(_update(project_id, "correct_condition", payload)))


@project_app.command("digest")
def digest(
    project_id: Annotated[str, typer.Argument()],
    actor: AsOpt,
    milestone: Annotated[str | None, typer.Option(help="Default: the next milestone")] = None,
) -> None:
    """Send the applicant their digest of what is still owed, now."""
    payload = DigestRequestInput(_actor(actor), milestone)
    _print_result(asyncio.run(_update(project_id, "send_digest", payload)))


@project_app.command("report")
def report(
    project_id: Annotated[str, typer.Argument()],
    kind: Annotated[str, typer.Option(help="clearance, mmrp or audit")] = "clearance",
    fmt: Annotated[str, typer.Option("--format", help="html, csv or json (audit)")] = "html",
    out: Annotated[Path | None, typer.Option(help="Write to this file")] = None,
) -> None:
    """Milestone clearance report, CEQA MMRP table, or the audit log export."""
    from models.database import make_engine
    from reports import audit as audit_report
    from reports import clearance, mmrp

    engine = make_engine(load_settings().database_url)
    try:
        if kind == "clearance":
            data = clearance.milestone_clearance(engine, project_id)
            body = clearance.render_html(data) if fmt == "html" else clearance.to_csv(data)
        elif kind == "mmrp":
            table = mmrp.mmrp(engine, project_id)
            body = mmrp.render_html(table) if fmt == "html" else mmrp.to_csv(table)
        elif kind == "audit":
            export = audit_report.audit_log(engine, project_id)
            body = audit_report.to_json(export) if fmt == "json" else audit_report.to_csv(export)
        else:
            raise CliError("--kind: clearance, mmrp or audit", code=2)
    except ValueError as err:
        raise CliError(str(err)) from None
    if out is None:
        sys.stdout.write(body)
    else:
        out.write_text(body)
        console.print(f"wrote {out}")
