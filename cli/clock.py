"""`clearance clock ...`: compute a timeline, open a clock, record events, show and list."""

from __future__ import annotations

import json
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import pendulum
import typer
from rich.console import Console

from actions.shot_clock_requests import OUTCOMES
from cli.api import Api
from cli.display import list_applications, show_application
from cli.errors import CliError
from models.shot_clock import NoticeItem
from rules.kernel.input import MAX_INPUT_BYTES, TimelineError, load_json, parse_date
from rules.permit_clocks import compute_permit_clock
from rules.shot_clock.engine import compute_json

app = typer.Typer(help="Wireless shot clocks: compute, open, record events, show and list.")
console = Console()

DateOpt = Annotated[
    str | None,
    typer.Option("--date", help="Date of the event, YYYY-MM-DD (default: today in the city)"),
]
NoteOpt = Annotated[str, typer.Option("--note", help="Free-text note")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON")]


# -- compute (no server needed) --------------------------------------------------------------


@app.command()
def compute(
    file: Annotated[
        Path | None, typer.Argument(help="Timeline JSON file (default: standard input)")
    ] = None,
) -> None:
    """Compute a shot clock (`category` or `batch`; docs/how-dates-are-decided.md, "The
    compute contract") or a permit clock (`rule`; docs/permit-clocks.md) from its JSON
    timeline."""
    try:
        if file is None or str(file) == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with file.open("rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as err:
        raise CliError(f"input: cannot read {file}: {err.strerror}", code=2) from None
    try:
        # Strict: duplicate keys, nesting bombs, huge numbers are named, exit 2 (8.8).
        raw = load_json(data)
        permit = isinstance(raw, dict) and "rule" in raw
        result = compute_permit_clock(raw) if permit else compute_json(raw)
    except TimelineError as err:
        raise CliError(str(err), code=2) from None
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


# -- talking to the web app's API ---------------------------------------------------------------


def _today_in(time_zone: str) -> date:
    return pendulum.now(time_zone).date()


def _date_option(value: str | None, name: str = "--date") -> str | None:
    if value is None:
        return None
    try:
        return parse_date(value, name).isoformat()
    except TimelineError as err:
        raise CliError(str(err), code=2) from None


def _print_update(result: dict[str, Any], application_id: str) -> None:
    clock = result["clock"]
    console.print(
        f"[bold]{application_id}[/bold] recorded ({result.get('event_id') or 'calendar'}): status "
        f"[bold]{clock['status']}[/bold], shot clock date {clock['shot_clock_date'] or '-'}, "
        f"conservative date {clock['conservative_date'] or '-'}"
    )
    last = clock["ledger"][-1] if clock["ledger"] else None
    if last:
        console.print(f"  {last['date']} {last['event']}: {last['effect']} [{last['rule']}]")
    for warning in clock["warnings"]:
        console.print(f"  [yellow]warning:[/yellow] {warning}")


def _record(application_id: str, endpoint: str, body: dict[str, Any]) -> None:
    """POST one event to the application; the API decides (role, then the workflow)."""
    result = Api.from_settings().call(
        "POST", f"/applications/{quote(application_id, safe='')}/{endpoint}", body
    )
    _print_update(result, application_id)


# -- opening a clock ---------------------------------------------------------------------------


@app.command("open")
def open_clock(
    application_id: Annotated[str, typer.Option("--id", help="The city's application number")],
    planner: Annotated[
        str | None, typer.Option("--planner", help="Planner's e-mail (default: you)")
    ] = None,
    category: Annotated[
        str | None, typer.Option(help="swf_collocation, macro_collocation, ...")
    ] = None,
    batch: Annotated[
        list[str] | None, typer.Option(help="Category of each site of an SWF batch (repeat)")
    ] = None,
    jurisdiction_key: Annotated[
        str,
        typer.Option("--jurisdiction", help="A jurisdiction file's key (default: the setting)"),
    ] = "",
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
        str | None,
        typer.Option(
            help="Reminder offsets in days before the conservative date (default: the city's)"
        ),
    ] = None,
    description: Annotated[str, typer.Option(help="What is proposed")] = "",
) -> None:
    """Open a wireless application: starts its durable shot clock."""
    offsets = None
    if reminders is not None:
        try:
            offsets = sorted({int(x) for x in reminders.split(",") if x.strip()}, reverse=True)
        except ValueError:
            raise CliError(
                "--reminders: give whole days separated by commas, e.g. 30,14,7", 2
            ) from None
        if any(o < 0 for o in offsets):
            raise CliError("--reminders: offsets must not be negative", code=2)
    api = Api.from_settings()
    if planner is None:
        planner = api.call("GET", "/me")["email"]
    body = {
        "application_id": application_id,
        "planner_email": planner,
        "category": category,
        "batch": list(batch or []),
        "jurisdiction": jurisdiction_key,
        "submitted": _date_option(submitted, "--submitted"),
        "pre_application": _date_option(pre_application, "--pre-application"),
        "site_address": site,
        "description": description,
        "applicant_name": applicant_name,
        "applicant_email": applicant_email,
        "supervisor_email": supervisor or "",
        "attorney_email": attorney or "",
        "reminder_offsets": offsets,
    }
    try:
        opened = api.call("POST", "/applications", body)
    except CliError as err:
        if "already exists" in str(err):
            raise CliError(
                f"application {application_id} already exists (open or closed): see "
                f"`clearance clock show {application_id}`"
            ) from None
        raise
    clock = opened["clock"]
    console.print(
        f"opened [bold]{application_id}[/bold]: {clock['category']} "
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
    note: NoteOpt = "",
) -> None:
    """Record a written notice of incompleteness; the letter goes to the applicant."""
    items = [_parse_item(s) for s in item or []]
    if items_file is not None:
        items += _items_from_file(items_file)
    if not items:
        raise CliError("a notice of incompleteness must list each missing item (--item)", code=2)
    body = {"items": [i.__dict__ for i in items], "date": _date_option(when), "note": note}
    _record(application_id, "notice", body)


@app.command()
def resubmit(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: DateOpt = None,
    note: NoteOpt = "",
) -> None:
    """Record the applicant's resubmission answering the outstanding notice."""
    _record(application_id, "resubmission", {"date": _date_option(when), "note": note})


@app.command()
def toll(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    days: Annotated[int | None, typer.Option(help="Extend the clock by this many days")] = None,
    until: Annotated[str | None, typer.Option(help="Agreed shot clock date, YYYY-MM-DD")] = None,
    when: DateOpt = None,
    note: NoteOpt = "",
) -> None:
    """Record a written tolling agreement (--days N or --until DATE)."""
    if (days is None) == (until is None):
        raise CliError("give either --days or --until", code=2)
    if days is not None and days <= 0:
        raise CliError("--days: must be a positive whole number", code=2)
    body = {
        "days": days,
        "new_date": _date_option(until, "--until"),
        "date": _date_option(when),
        "note": note,
    }
    _record(application_id, "tolling-agreement", body)


@app.command()
def decide(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    outcome: Annotated[str, typer.Option(help="approved, approved_with_conditions or denied")],
    when: DateOpt = None,
    note: NoteOpt = "",
) -> None:
    """Record the decision; the confirmation goes to the applicant."""
    if outcome not in OUTCOMES:
        raise CliError(f"--outcome: one of {', '.join(OUTCOMES)}", code=2)
    body = {"outcome": outcome, "date": _date_option(when), "note": note}
    _record(application_id, "decision", body)


@app.command()
def withdraw(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: DateOpt = None,
    note: NoteOpt = "",
) -> None:
    """Record that the applicant withdrew the application."""
    _record(application_id, "withdrawal", {"date": _date_option(when), "note": note})


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
    note: NoteOpt = "",
) -> None:
    """Record an applicant's notice (deemed granted / public notice / deemed approved)."""
    if kind not in APPLICANT_NOTICES:
        raise CliError(f"--kind: one of {', '.join(APPLICANT_NOTICES)}", code=2)
    body = {"kind": APPLICANT_NOTICES[kind], "date": _date_option(when), "note": note}
    _record(application_id, "applicant-notice", body)


@app.command()
def record(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    kind: Annotated[str, typer.Option(help="moratorium, hearing-notice or appeal")],
    when: DateOpt = None,
    note: NoteOpt = "",
) -> None:
    """Record a moratorium, hearing notice or appeal (they never toll the clock)."""
    if kind not in NON_TOLLING:
        raise CliError(f"--kind: one of {', '.join(NON_TOLLING)}", code=2)
    body = {"kind": NON_TOLLING[kind], "date": _date_option(when), "note": note}
    _record(application_id, "non-tolling-event", body)


@app.command()
def closure(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    when: Annotated[str, typer.Option("--date", help="Day the city's offices are closed")],
) -> None:
    """Add a local closure day to this clock's calendar (dates roll past it)."""
    _record(application_id, "closures", {"date": _date_option(when)})


@app.command()
def rebase(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    reason: Annotated[str, typer.Option("--reason", help="Why (goes into the ledger)")],
    when: DateOpt = None,
) -> None:
    """Apply the current rule pack and calendar layers to a running clock (administrator
    only); the ledger records what moved and why (docs/how-dates-are-decided.md, "Frozen
    rules and rebase")."""
    if not reason.strip():
        raise CliError("--reason: say why the clock is rebased", code=2)
    _record(application_id, "rebase", {"reason": reason, "date": _date_option(when)})


# -- reading ---------------------------------------------------------------------------------


@app.command()
def show(
    application_id: Annotated[str, typer.Argument(help="Application id")],
    as_json: JsonOpt = False,
) -> None:
    """Show one application: dates, status, the ledger with rules, windows, alerts."""
    summary = Api.from_settings().call(
        "GET", f"/applications/{quote(application_id, safe='')}/summary"
    )
    if as_json:
        sys.stdout.write(json.dumps(summary["clock"], indent=2) + "\n")
        return
    show_application(console, summary, _today_in(summary["application"]["calendar"]["time_zone"]))


# --at-risk: what the earliest reading says is expired, deemed or decided late (8.1).
AT_RISK_STATUSES = ("expired", "deemed_granted", "deemed_approved", "decided_late")


def _conservative_status(clock: dict[str, Any]) -> str | None:
    return clock.get("conservative_status") or clock.get("status")


@app.command("list")
def list_clocks(
    as_json: JsonOpt = False,
    at_risk: Annotated[
        bool, typer.Option("--at-risk", help="Only expired, risk-flagged or within 7 days")
    ] = False,
    closed: Annotated[bool, typer.Option("--closed", help="Closed applications instead")] = False,
) -> None:
    """List applications by conservative date, with risk."""
    api = Api.from_settings()
    rows: list[dict[str, Any]] = []
    page, pages = 1, 1
    while page <= pages:
        result = api.call("GET", "/applications", page=page, full=True, closed=closed)
        rows += [
            {
                "application_id": r["application_id"],
                "jurisdiction": r["jurisdiction"],
                "risk_flagged": r["risk_flagged"],
                "clock": r["clock"],
            }
            for r in result["items"]
        ]
        page, pages = page + 1, result["pages"]
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
            or _conservative_status(r["clock"]) in AT_RISK_STATUSES
            or (
                _conservative_status(r["clock"]) == "running"
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
