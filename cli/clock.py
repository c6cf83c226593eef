"""`clearance clock ...`: compute a timeline, open a clock, record events, show and list."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Any

import pendulum
import typer
from rich.console import Console
from sqlalchemy import select
from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from cli.connection import connect, query, update
from cli.display import list_applications, show_application
from cli.errors import CliError
from models.shot_clock import (
    ApplicantNoticeInput,
    ApplicationInfo,
    CalendarSnapshot,
    ClockEvent,
    ClockSummary,
    ClockUpdateResult,
    Contacts,
    DecisionInput,
    IncompleteNoticeInput,
    LocalClosureInput,
    NonTollingEventInput,
    NoticeItem,
    ResubmissionInput,
    ShotClockInput,
    TollingAgreementInput,
    WithdrawalInput,
)
from rules.packs import JURISDICTIONS, jurisdiction
from rules.permit_clocks import compute_permit_clock
from rules.shot_clock import compute_json
from rules.timeline import TimelineError, parse_date, parse_timeline
from settings import load_settings

app = typer.Typer(help="Wireless shot clocks: compute, open, record events, show and list.")
console = Console()

DateOpt = Annotated[
    str | None,
    typer.Option("--date", help="Date of the event, YYYY-MM-DD (default: today in the city)"),
]
ByOpt = Annotated[str, typer.Option("--by", help="Who records it (for the audit trail)")]
NoteOpt = Annotated[str, typer.Option("--note", help="Free-text note")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON")]


# -- compute (no server needed) --------------------------------------------------------------


@app.command()
def compute(
    file: Annotated[
        Path | None, typer.Argument(help="Timeline JSON file (default: standard input)")
    ] = None,
) -> None:
    """Compute a shot clock (`category` or `batch`, shot-clocks.md section 5) or a permit
    clock (`rule`, permit-clocks.md section 4) from its JSON timeline."""
    try:
        text = sys.stdin.read() if file is None or str(file) == "-" else file.read_text()
    except OSError as err:
        raise CliError(f"input: cannot read {file}: {err.strerror}", code=2) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise CliError(f"input: not valid JSON ({err.msg} at line {err.lineno})", code=2) from None
    try:
        permit = isinstance(raw, dict) and "rule" in raw
        result = compute_permit_clock(raw) if permit else compute_json(raw)
    except TimelineError as err:
        raise CliError(str(err), code=2) from None
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


# -- talking to the workflow -----------------------------------------------------------------


def _handle(client: Client, application_id: str) -> WorkflowHandle[Any, Any]:
    from workflows.shot_clock import workflow_id_for

    return client.get_workflow_handle(workflow_id_for(application_id))


def _today_in(time_zone: str) -> date:
    return pendulum.now(time_zone).date()


async def _app_info(handle: WorkflowHandle[Any, Any]) -> ClockSummary:
    return await query(
        handle,
        "summary",
        result_type=ClockSummary,
        missing="no such application (no shot clock workflow with that id)",
    )


def _event_date(value: str | None, summary: ClockSummary) -> str:
    if value is None:
        return _today_in(summary.application.calendar.time_zone).isoformat()
    try:
        return parse_date(value, "--date").isoformat()
    except TimelineError as err:
        raise CliError(str(err), code=2) from None


def _print_update(result: ClockUpdateResult, application_id: str) -> None:
    clock = result.clock
    console.print(
        f"[bold]{application_id}[/bold] recorded ({result.event_id or 'calendar'}): status "
        f"[bold]{clock['status']}[/bold], shot clock date {clock['shot_clock_date'] or '-'}, "
        f"conservative date {clock['conservative_date'] or '-'}"
    )
    last = clock["ledger"][-1] if clock["ledger"] else None
    if last:
        console.print(f"  {last['date']} {last['event']}: {last['effect']} [{last['rule']}]")
    for warning in clock["warnings"]:
        console.print(f"  [yellow]warning:[/yellow] {warning}")


async def _update(application_id: str, name: str, build: Any) -> None:
    client = await connect()
    handle = _handle(client, application_id)
    summary = await _app_info(handle)
    result = await update(
        handle,
        name,
        build(summary),
        result_type=ClockUpdateResult,
        closed=f"refused: the application is already closed ({summary.clock['status']}); "
        "nothing was recorded",
    )
    _print_update(result, application_id)


# -- opening a clock ---------------------------------------------------------------------------


@app.command("open")
def open_clock(
    application_id: Annotated[str, typer.Option("--id", help="The city's application number")],
    planner: Annotated[str, typer.Option("--planner", help="Planner's e-mail (reminders)")],
    category: Annotated[
        str | None, typer.Option(help="swf_collocation, macro_collocation, ...")
    ] = None,
    batch: Annotated[
        list[str] | None, typer.Option(help="Category of each site of an SWF batch (repeat)")
    ] = None,
    jurisdiction_key: Annotated[
        str, typer.Option("--jurisdiction", help=f"One of: {', '.join(sorted(JURISDICTIONS))}")
    ] = "cotati",
    submitted: Annotated[
        str | None, typer.Option(help="Submission date (default: today in the city)")
    ] = None,
    pre_application: Annotated[
        str | None, typer.Option(help="Start of a pre-application period the city asserts")
    ] = None,
    site: Annotated[str, typer.Option(help="Site address")] = "",
    applicant_name: Annotated[str, typer.Option(help="Applicant")] = "",
    applicant_email: Annotated[str, typer.Option(help="Applicant's e-mail (letters)")] = "",
    supervisor: Annotated[
        str | None, typer.Option(help="Supervisor's e-mail (default: the city's)")
    ] = None,
    attorney: Annotated[
        str | None, typer.Option(help="City attorney's e-mail (default: the city's)")
    ] = None,
    reminders: Annotated[
        str, typer.Option(help="Reminder offsets in days before the conservative date")
    ] = "30,14,7,3,1",
    description: Annotated[str, typer.Option(help="What is proposed")] = "",
) -> None:
    """Open a wireless application: starts its durable shot clock."""
    try:
        city = jurisdiction(jurisdiction_key)
    except ValueError as err:
        raise CliError(f"--jurisdiction: {err}", code=2) from None
    try:
        offsets = sorted({int(x) for x in reminders.split(",") if x.strip()}, reverse=True)
    except ValueError:
        raise CliError(
            "--reminders: give whole days separated by commas, e.g. 30,14,7", 2
        ) from None
    if any(o < 0 for o in offsets):
        raise CliError("--reminders: offsets must not be negative", code=2)
    today = _today_in(city.time_zone)
    events = [{"type": "submitted", "date": submitted or today.isoformat()}]
    if pre_application:
        events.insert(0, {"type": "pre_application", "date": pre_application})
    raw: dict[str, Any] = {"state": city.state, "rule_pack": city.rule_pack, "events": events}
    if batch:
        raw["batch"] = batch
    if category:
        raw["category"] = category
    try:
        parsed = parse_timeline(raw)
    except TimelineError as err:
        message = str(err).replace(
            "events[0]", "--submitted" if not pre_application else "--pre-application"
        )
        raise CliError(message, code=2) from None
    if any(e.date > today for e in parsed.events):
        raise CliError(f"--submitted: the date is in the future (today is {today})", code=2)
    info = ApplicationInfo(
        application_id=application_id,
        category=category,
        batch=list(batch or []),
        site_address=site,
        description=description,
        calendar=CalendarSnapshot(
            jurisdiction=city.key,
            state=city.state,
            time_zone=city.time_zone,
            rule_pack=city.rule_pack,
            local_holidays=list(city.local_closures),
        ),
        contacts=Contacts(
            planner_email=planner,
            supervisor_email=supervisor or city.supervisor_email,
            attorney_email=attorney or city.attorney_email,
            applicant_email=applicant_email,
            applicant_name=applicant_name,
        ),
        reminder_offsets=offsets,
    )
    asyncio.run(_open(info, [ClockEvent(e["type"], e["date"]) for e in events]))


async def _open(info: ApplicationInfo, events: list[ClockEvent]) -> None:
    from workflows.shot_clock import ShotClockWorkflow, workflow_id_for

    client = await connect()
    try:
        await client.start_workflow(
            ShotClockWorkflow.run,
            ShotClockInput(application=info, events=events),
            id=workflow_id_for(info.application_id),
            task_queue=load_settings().task_queue,
            # A decided or withdrawn application keeps its id: never open a fresh clock over it.
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )
    except WorkflowAlreadyStartedError:
        raise CliError(
            f"application {info.application_id} already exists (open or closed): see "
            f"`clearance clock show {info.application_id}`"
        ) from None
    handle = _handle(client, info.application_id)
    summary = await _app_info(handle)
    clock = summary.clock
    console.print(
        f"opened [bold]{info.application_id}[/bold]: {clock['category']} "
        f"({clock['period_days']} days from {clock['start_date']}); shot clock date "
        f"[bold]{clock['shot_clock_date']}[/bold], conservative date {clock['conservative_date']}"
    )


# -- recording events ------------------------------------------------------------------------


def _parse_item(spec: str) -> NoticeItem:
    parts = [p.strip() for p in spec.split("|")]
    if len(parts) != 3 or not all(parts):
        raise CliError(
            f"--item {spec!r}: give ID|what is missing|the rule that requires it, e.g. "
            "'A|RF emissions report|CMC 17.44.070(A)'",
            code=2,
        )
    return NoticeItem(id=parts[0], text=parts[1], rule=parts[2])


def _items_from_file(path: Path) -> list[NoticeItem]:
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise CliError(f"--items-file: cannot read {path}: {err}", code=2) from None
    if not isinstance(raw, list):
        raise CliError("--items-file: expected a JSON list of {id, text, rule} objects", code=2)
    items = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise CliError(f"--items-file: item {i} is not an object", code=2)
        items.append(
            NoticeItem(
                id=str(entry.get("id", "")),
                text=str(entry.get("text", "")),
                rule=str(entry.get("rule", "")),
            )
        )
    return items


@app.command()
def notice(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    item: Annotated[
        list[str] | None, typer.Option("--item", help="ID|what is missing|rule (repeat)")
    ] = None,
    items_file: Annotated[Path | None, typer.Option(help="JSON list of items")] = None,
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record a written notice of incompleteness; the letter goes to the applicant."""
    items = [_parse_item(s) for s in item or []]
    if items_file is not None:
        items += _items_from_file(items_file)
    if not items:
        raise CliError("a notice of incompleteness must list each missing item (--item)", code=2)
    asyncio.run(
        _update(
            application_id,
            "record_incomplete_notice",
            lambda s: IncompleteNoticeInput(_event_date(when, s), items, by, note),
        )
    )


@app.command()
def resubmit(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record the applicant's resubmission answering the outstanding notice."""
    asyncio.run(
        _update(
            application_id,
            "record_resubmission",
            lambda s: ResubmissionInput(_event_date(when, s), by, note),
        )
    )


@app.command()
def toll(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    days: Annotated[int | None, typer.Option(help="Extend the clock by this many days")] = None,
    until: Annotated[str | None, typer.Option(help="Agreed shot clock date, YYYY-MM-DD")] = None,
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record a written tolling agreement (--days N or --until DATE)."""
    if (days is None) == (until is None):
        raise CliError("give either --days or --until", code=2)
    if days is not None and days <= 0:
        raise CliError("--days: must be a positive whole number", code=2)
    if until is not None:
        try:
            parse_date(until, "--until")
        except TimelineError as err:
            raise CliError(str(err), code=2) from None
    asyncio.run(
        _update(
            application_id,
            "record_tolling_agreement",
            lambda s: TollingAgreementInput(_event_date(when, s), days, until, by, note),
        )
    )


@app.command()
def decide(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    outcome: Annotated[str, typer.Option(help="approved, approved_with_conditions or denied")],
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record the decision; the confirmation goes to the applicant."""
    asyncio.run(
        _update(
            application_id,
            "record_decision",
            lambda s: DecisionInput(_event_date(when, s), outcome, by, note),
        )
    )


@app.command()
def withdraw(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record that the applicant withdrew the application."""
    asyncio.run(
        _update(
            application_id,
            "record_withdrawal",
            lambda s: WithdrawalInput(_event_date(when, s), by, note),
        )
    )


APPLICANT_NOTICES = {
    "deemed-granted": "deemed_granted_notice",
    "public-notice": "applicant_public_notice",
    "deemed-approved": "deemed_approved_notice",
}
NON_TOLLING = {"moratorium": "moratorium", "hearing-notice": "hearing_notice", "appeal": "appeal"}


@app.command("applicant-notice")
def applicant_notice(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    kind: Annotated[str, typer.Option(help="deemed-granted, public-notice or deemed-approved")],
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record an applicant's notice (deemed granted / public notice / deemed approved)."""
    if kind not in APPLICANT_NOTICES:
        raise CliError(f"--kind: one of {', '.join(APPLICANT_NOTICES)}", code=2)
    asyncio.run(
        _update(
            application_id,
            "record_applicant_notice",
            lambda s: ApplicantNoticeInput(_event_date(when, s), APPLICANT_NOTICES[kind], by, note),
        )
    )


@app.command()
def record(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    kind: Annotated[str, typer.Option(help="moratorium, hearing-notice or appeal")],
    when: DateOpt = None,
    by: ByOpt = "",
    note: NoteOpt = "",
) -> None:
    """Record a moratorium, hearing notice or appeal (they never toll the clock)."""
    if kind not in NON_TOLLING:
        raise CliError(f"--kind: one of {', '.join(NON_TOLLING)}", code=2)
    asyncio.run(
        _update(
            application_id,
            "record_non_tolling_event",
            lambda s: NonTollingEventInput(_event_date(when, s), NON_TOLLING[kind], by, note),
        )
    )


@app.command()
def closure(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: Annotated[str, typer.Option("--date", help="Day the city's offices are closed")],
    by: ByOpt = "",
) -> None:
    """Add a local closure day to this clock's calendar (dates roll past it)."""
    asyncio.run(
        _update(
            application_id,
            "add_local_closure",
            lambda s: LocalClosureInput(_event_date(when, s), by),
        )
    )


# -- reading ---------------------------------------------------------------------------------


@app.command()
def show(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    as_json: JsonOpt = False,
) -> None:
    """Show one application: dates, status, the ledger with rules, windows, alerts."""
    summary = asyncio.run(_summary(application_id))
    if as_json:
        sys.stdout.write(json.dumps(summary.clock, indent=2) + "\n")
        return
    show_application(
        console,
        dataclasses.asdict(summary),
        _today_in(summary.application.calendar.time_zone),
    )


async def _summary(application_id: str) -> ClockSummary:
    client = await connect()
    return await _app_info(_handle(client, application_id))


@app.command("list")
def list_clocks(
    as_json: JsonOpt = False,
    at_risk: Annotated[
        bool, typer.Option("--at-risk", help="Only expired, risk-flagged or within 7 days")
    ] = False,
) -> None:
    """List applications by conservative date, with risk (from the read model)."""
    from models.database import make_engine, session_factory
    from models.schema import Application

    engine = make_engine(load_settings().database_url)
    with session_factory(engine)() as session:
        apps = session.scalars(select(Application)).all()
        rows = [
            {
                "application_id": a.application_id,
                "jurisdiction": a.jurisdiction,
                "risk_flagged": a.risk_flagged,
                "clock": a.clock,
            }
            for a in apps
        ]
    today = pendulum.now("UTC").date()
    rows.sort(
        key=lambda r: (r["clock"].get("conservative_date") or "9999-12-31", r["application_id"])
    )
    if at_risk:
        soon = (today + timedelta(days=7)).isoformat()
        rows = [
            r
            for r in rows
            if r["risk_flagged"]
            or r["clock"].get("status") in ("expired", "deemed_granted", "deemed_approved")
            or (
                r["clock"].get("status") in ("running",)
                and (r["clock"].get("conservative_date") or "9999") <= soon
            )
        ]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    if not rows:
        console.print("no applications yet: open one with `clearance clock open`")
        return
    list_applications(console, rows, today)
