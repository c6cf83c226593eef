"""Readable tables for staff: one application with its ledger, and the list of clocks."""

from __future__ import annotations

from datetime import date
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

STATUS_STYLE = {
    "running": "green",
    "tolled": "cyan",
    "reset_pending": "cyan",
    "awaiting_submission": "dim",
    "decided_on_time": "green",
    "decided_late": "red",
    "expired": "bold red",
    "withdrawn": "dim",
    "deemed_granted": "bold red",
    "deemed_approved": "bold red",
}


def risk_label(clock: dict[str, Any], risk_flagged: bool, today: date) -> Text:
    """At a glance: how close the conservative date is, under the earliest reading."""
    status = clock.get("conservative_status") or clock.get("status")
    if status == "decided_late":
        return Text("decided late (earliest reading)", style="bold red")
    if status in ("deemed_granted", "deemed_approved"):
        return Text(status.replace("_", " "), style="bold red")
    if risk_flagged or status == "expired":
        return Text("DEEMED-APPROVAL RISK", style="bold red")
    conservative = clock.get("conservative_date")
    if status in ("decided_on_time", "decided_late", "withdrawn"):
        return Text("closed", style="dim")
    if not conservative:
        return Text("paused", style="cyan")
    left = (date.fromisoformat(conservative) - today).days
    if left < 0:
        return Text("past conservative date", style="bold red")
    if left <= 7:
        return Text(f"{left} days left", style="bold yellow")
    if left <= 30:
        return Text(f"{left} days left", style="yellow")
    return Text(f"{left} days left", style="green")


def show_application(console: Console, summary: dict[str, Any], today: date) -> None:
    app = summary["application"]
    clock = summary["clock"]
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    what = clock["category"] if not app.get("batch") else f"batch {', '.join(app['batch'])}"
    rows = [
        ("Application", app["application_id"]),
        ("Site", app.get("site_address") or "-"),
        (
            "Jurisdiction",
            f"{app['calendar']['jurisdiction']} (rule pack {app['calendar']['rule_pack']})",
        ),
        ("Category", f"{what}: {clock['period_days']} days"),
        ("Start date", clock["start_date"] or "-"),
        ("Shot clock date", clock["shot_clock_date"] or "not determined (clock paused)"),
        ("Conservative date", clock["conservative_date"] or "-"),
        ("Tolled days", str(clock["tolled_days"])),
        ("Reset on", clock["reset_on"] or "-"),
        ("Judicial review by", clock["judicial_review_deadline"] or "-"),
    ]
    for label, value in rows:
        head.add_row(label, value)
    head.add_row("Status", Text(clock["status"], style=STATUS_STYLE.get(clock["status"], "")))
    head.add_row("Risk", risk_label(clock, summary.get("risk_flagged", False), today))
    console.print(head)

    ledger = Table(title="Ledger: how the date was reached", show_lines=False, expand=True)
    for col in ("Date", "Event", "Effect", "Days", "Rule"):
        ledger.add_column(col, overflow="fold")
    for entry in clock["ledger"]:
        days = "" if entry["days"] is None else str(entry["days"])
        ledger.add_row(entry["date"], entry["event"], entry["effect"], days, entry["rule"])
    console.print(ledger)

    if clock["notice_windows"]:
        windows = Table(title="Notice windows")
        for col in ("Window", "Closes", "State", "Rule"):
            windows.add_column(col)
        for w in clock["notice_windows"]:
            windows.add_row(w["kind"], w["closes"], w.get("state", ""), w["rule"])
        console.print(windows)
    if clock["alternatives"]:
        alts = Table(title="Alternative readings")
        alts.add_column("Reading", overflow="fold")
        alts.add_column("Shot clock date")
        for alt in clock["alternatives"]:
            alts.add_row(alt["reading"], alt["shot_clock_date"] or "-")
        console.print(alts)
    for warning in clock["warnings"]:
        console.print(Text(f"warning: {warning}", style="yellow"))
    upcoming = summary.get("upcoming_alerts") or []
    if upcoming:
        alerts = Table(title="Upcoming alerts")
        alerts.add_column("When (UTC)")
        alerts.add_column("Alert")
        for alert in upcoming[:10]:
            alerts.add_row(alert["fire_at"][:16].replace("T", " "), alert["key"])
        console.print(alerts)


def list_applications(console: Console, rows: list[dict[str, Any]], today: date) -> None:
    table = Table(title="Wireless applications by conservative date")
    for col in (
        "Application",
        "Category",
        "Jurisdiction",
        "Status",
        "Shot clock",
        "Conservative",
        "Risk",
    ):
        table.add_column(col)
    for row in rows:
        clock = row["clock"]
        table.add_row(
            row["application_id"],
            clock.get("category", ""),
            row["jurisdiction"],
            Text(clock["status"], style=STATUS_STYLE.get(clock["status"], "")),
            clock.get("shot_clock_date") or "-",
            clock.get("conservative_date") or "-",
            risk_label(clock, row["risk_flagged"], today),
        )
    console.print(table)
