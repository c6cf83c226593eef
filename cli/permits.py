"""`clearance permit ...`: open a permit clock, record its events, show and list them,
and list the rules a clock can be opened on.

Staff commands act through the web app's JSON API with your personal access token
(cli/api.py: the same role check as the pages); `clearance permit rules` is local.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from cli.api import Api
from cli.errors import CliError

app = typer.Typer(
    help="Permit clocks (PSA, HAA, AB 2234, SB 330, map and permit expirations, local "
    "rules): open, record events, show, list."
)
console = Console()

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON")]
DateOpt = Annotated[
    str | None,
    typer.Option("--date", help="Date of the event, YYYY-MM-DD (default: today in the city)"),
]


def _number(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def parse_facts(facts: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for fact in facts:
        name, sep, value = fact.partition("=")
        if not sep or not name.strip():
            raise CliError(f"--fact: '{fact}' is not name=value (e.g. units=24)", code=2)
        out[name.strip()] = _number(value.strip())
    return out


def event_fields(
    *,
    result: str | None = None,
    qualifying: bool | None = None,
    days: int | None = None,
    months: int | None = None,
    reason: str | None = None,
    outcome: str | None = None,
    document: str | None = None,
    until: str | None = None,
    items: list[str] | None = None,
    citation: str | None = None,
    units_change_pct: float | None = None,
    area_change_pct: float | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "result": result,
        "qualifying": qualifying,
        "days": days,
        "months": months,
        "reason": reason,
        "outcome": outcome,
        "document": document,
        "until": until,
        "citation": citation,
        "units_change_pct": units_change_pct,
        "area_change_pct": area_change_pct,
    }
    if items:
        out["items"] = [
            {"id": str(i + 1), "text": text, "rule": ""} for i, text in enumerate(items)
        ]
    return {k: v for k, v in out.items() if v is not None}


@app.command()
def rebase(
    clock_id: Annotated[str, typer.Argument(help="Permit or application number")],
    reason: Annotated[str, typer.Option("--reason", help="Why (goes into the ledger)")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Apply the current version of the clock's rule (administrators; audited): a running
    clock keeps the rules it was opened under until then."""
    if not reason.strip():
        raise CliError("--reason: say why the clock is rebased", code=2)
    done = Api.from_settings().call("POST", f"/permits/{clock_id}/rebase", {"reason": reason})
    if as_json:
        print(json.dumps(done, indent=2))
        return
    console.print(f"rebased on {done['clock']['rule_version']}")
    _print_clock(clock_id, done["clock"])


@app.command("rules")
def rules(as_json: JsonOpt = False) -> None:
    """The rules a permit clock can be opened on (no server needed)."""
    from rules.permit_clocks import rule_catalog

    catalog = rule_catalog()
    if as_json:
        print(json.dumps(catalog, indent=2))
        return
    table = Table("rule", "citation", "starts on", "takes", "if missed")
    for rule in catalog:
        table.add_row(
            rule["id"] + (" (provisional)" if rule["provisional"] else ""),
            rule["citation"],
            ", ".join(rule["start_events"]),
            ", ".join(rule["events"]),
            str(rule["consequence"]).replace("_", " "),
        )
    console.print(table)


@app.command("open")
def open_clock(
    clock_id: Annotated[str, typer.Option("--id", help="Permit or application number")],
    rule: Annotated[str, typer.Option("--rule", help="Rule id (`clearance permit rules`)")],
    event: Annotated[str, typer.Option("--event", help="The event that starts the clock")],
    date: Annotated[str, typer.Option("--date", help="Its date, YYYY-MM-DD")],
    jurisdiction: Annotated[
        str, typer.Option("--jurisdiction", help="Default: the deployment's jurisdiction")
    ] = "",
    fact: Annotated[
        list[str] | None, typer.Option("--fact", help="name=value, repeatable (units=24)")
    ] = None,
    document: Annotated[str | None, typer.Option("--document", help="CEQA document")] = None,
    title: Annotated[str, typer.Option("--title")] = "",
    site: Annotated[str, typer.Option("--site", help="Site address")] = "",
    applicant_name: Annotated[str, typer.Option("--applicant-name")] = "",
    applicant_email: Annotated[
        str, typer.Option("--applicant-email", help="Expiry reminders go here")
    ] = "",
    companion: Annotated[
        str, typer.Option("--companion", help="A sign permit's companion building permit")
    ] = "",
    as_json: JsonOpt = False,
) -> None:
    """Open the clock of one permit or application; it is validated by the rules before
    anything is stored."""
    start: dict[str, Any] = {"type": event, "date": date}
    if document:
        start["document"] = document
    body = {
        "clock_id": clock_id,
        "rule": rule,
        "jurisdiction": jurisdiction,
        "events": [start],
        "facts": parse_facts(fact or []),
        "title": title,
        "site_address": site,
        "applicant_name": applicant_name,
        "applicant_email": applicant_email,
        "companion_id": companion,
    }
    opened = Api.from_settings().call("POST", "/permits", body)
    if as_json:
        print(json.dumps(opened, indent=2))
        return
    _print_clock(opened["clock_id"], opened["clock"])


@app.command()
def record(
    clock_id: Annotated[str, typer.Argument(help="Permit or application number")],
    event: Annotated[str, typer.Argument(help="Event type, e.g. inspection, extension_granted")],
    date: DateOpt = None,
    result: Annotated[str | None, typer.Option("--result", help="Inspection result")] = None,
    qualifying: Annotated[
        bool | None,
        typer.Option("--qualifying/--not-qualifying", help="Does the inspection qualify"),
    ] = None,
    days: Annotated[int | None, typer.Option("--days")] = None,
    months: Annotated[int | None, typer.Option("--months")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why paused")] = None,
    outcome: Annotated[str | None, typer.Option("--outcome", help="A decision's outcome")] = None,
    document: Annotated[str | None, typer.Option("--document", help="CEQA document")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Companion expiry")] = None,
    citation: Annotated[
        str | None, typer.Option("--citation", help="The statute of a statutory_extension")
    ] = None,
    units_change_pct: Annotated[
        float | None,
        typer.Option("--units-change-pct", help="A project change in units, % (a cut is negative)"),
    ] = None,
    area_change_pct: Annotated[
        float | None,
        typer.Option("--area-change-pct", help="A project change in floor area, % (signed)"),
    ] = None,
    item: Annotated[
        list[str] | None, typer.Option("--item", help="Missing item (repeatable)")
    ] = None,
    note: Annotated[str, typer.Option("--note")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Record an event; refused (nothing stored) when the rule does not take it."""
    api = Api.from_settings()
    body: dict[str, Any] = {
        "type": event,
        "date": date or _clock_today(api, clock_id),
        "note": note,
        **event_fields(
            result=result,
            qualifying=qualifying,
            days=days,
            months=months,
            reason=reason,
            outcome=outcome,
            document=document,
            until=until,
            items=item,
            citation=citation,
            units_change_pct=units_change_pct,
            area_change_pct=area_change_pct,
        ),
    }
    done = api.call("POST", f"/permits/{clock_id}/events", body)
    if as_json:
        print(json.dumps(done, indent=2))
        return
    console.print(f"recorded {event} as {done['event_id']}")
    _print_clock(clock_id, done["clock"])


def _clock_today(api: Api, clock_id: str) -> str:
    page = api.call("GET", f"/permits/{clock_id}")
    return str(page["today"])


@app.command()
def show(clock_id: str, as_json: JsonOpt = False) -> None:
    """A clock with its ledger, chained clocks and recorded events."""
    page = Api.from_settings().call("GET", f"/permits/{clock_id}")
    if as_json:
        print(json.dumps(page, indent=2))
        return
    _print_clock(clock_id, page["clock"])
    table = Table("date", "event", "details", "recorded by", title="Events recorded")
    for e in page["events"]:
        details = {k: v for k, v in e.items() if k not in ("type", "date", "event_id", "note")}
        details.pop("recorded_by", None)
        table.add_row(
            e["date"], e["type"], json.dumps(details) if details else "", e["recorded_by"]
        )
    console.print(table)


@app.command("list")
def list_clocks(as_json: JsonOpt = False) -> None:
    """Every permit clock, next deadline first."""
    rows = Api.from_settings().call("GET", "/permits")
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table("clock", "rule", "status", "next deadline", "due (literal)", "if missed")
    for r in rows:
        table.add_row(
            r["clock_id"],
            r["rule"] + (" (provisional)" if r["provisional"] else ""),
            r["status"],
            r["next_deadline"] or "-",
            r["due_date"] or "-",
            (r["consequence"] or "-").replace("_", " "),
        )
    console.print(table)


def _print_clock(clock_id: str, clock: dict[str, Any], indent: str = "") -> None:
    provisional = " [bold yellow]PROVISIONAL[/]" if clock.get("provisional") else ""
    console.print(f"{indent}[bold]{clock_id}[/] {clock['rule']} ({clock['citation']}){provisional}")
    console.print(
        f"{indent}  status {clock['status']} (conservative: {clock['conservative_status']}); "
        f"due {clock['due_date'] or '-'}; conservative date "
        f"[bold]{clock['conservative_date'] or '-'}[/]"
        + (f"; hard stop {clock['hard_stop']}" if clock.get("hard_stop") else "")
        + f"; if missed: {(clock.get('consequence') or '-').replace('_', ' ')}"
    )
    ext = clock.get("extensions") or {}
    if ext.get("cap_months"):
        console.print(
            f"{indent}  limit on extensions: {ext['months_used']} of {ext['cap_months']} "
            f"months used, {ext['months_left']} left ({ext.get('cap_citation', '')})"
            + (
                f"; {ext['statutory_months']} months by statute, outside the limit"
                if ext.get("statutory_months")
                else ""
            ),
            markup=False,
        )
    for line in clock.get("ledger") or []:
        console.print(
            f"{indent}  {line['date']}  {line['event']}: {line['effect']}  [{line['rule']}]"
        )
    for alt in clock.get("alternatives") or []:
        why = f" ({alt['explanation']})" if alt.get("explanation") else ""
        console.print(
            f"{indent}  other reading: {alt['reading']}: {alt.get('due_date') or '-'}{why}",
            markup=False,
        )
    for warning in clock.get("warnings") or []:
        console.print(f"{indent}  [yellow]warning:[/] {warning}")
    for chained in clock.get("next") or []:
        console.print(f"{indent}  then:")
        _print_clock(clock_id, chained, indent + "    ")
