"""`clearance rules status`: the law watch (rules/law_watch.py): provisional rules, rules
not verified against the official text in the last 12 months, and pending changes of
the law the packs know of. Reads the packs shipped with this install; no server."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from cli.errors import CliError
from rules.law_watch import law_watch

app = typer.Typer(help="The rule packs: what to check against the law.", no_args_is_help=True)
console = Console()


def _table(title: str, rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for _, header in columns:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*(str(row.get(key) or "-") for key, _ in columns))
    return table


@app.command()
def status(
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Judge staleness as of this day (YYYY-MM-DD)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable JSON")] = False,
) -> None:
    """List provisional rules, stale rules (not verified in 12 months) and pending changes."""
    try:
        today = date.fromisoformat(as_of) if as_of else date.today()
    except ValueError:
        raise CliError(f"--as-of: {as_of!r} is not a date (YYYY-MM-DD)", code=2) from None
    watch = law_watch(today)
    if as_json:
        print(json.dumps(watch, indent=2))
        return
    rule_cols = [("pack", "pack"), ("rule", "rule"), ("citation", "citation")]
    console.print(
        f"{watch['rules']} rules as of {watch['as_of']}: {len(watch['provisional'])} "
        f"provisional, {len(watch['stale'])} not verified in the last "
        f"{watch['stale_after_months']} months, {len(watch['pending'])} pending changes"
    )
    console.print(
        _table(
            "Provisional (the text was not confirmed)",
            watch["provisional"],
            [*rule_cols, ("why", "why")],
        )
    )
    console.print(
        _table(
            f"Stale (not verified in {watch['stale_after_months']} months)",
            watch["stale"],
            [*rule_cols, ("verified_on", "verified on"), ("read_at", "read at")],
        )
    )
    console.print(
        _table(
            "Pending changes (not in force)",
            watch["pending"],
            [
                ("pack", "pack"),
                ("title", "change"),
                ("citation", "citation"),
                ("status", "status"),
                ("affects", "affects"),
            ],
        )
    )
