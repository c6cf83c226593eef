"""`clearance import ...`: a caseload file's template, and its preview and import through
the web app's API (the same checks as the page /admin/import; docs/onboarding.md)."""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from actions.caseload_files import KINDS, MAX_CASELOAD_BYTES, CaseloadFileError, template
from cli.api import Api
from cli.errors import CliError
from rules.kernel.jurisdictions import default_jurisdiction
from settings import load_settings

app = typer.Typer(help="Import the existing caseload: templates, preview, import.")
console = Console()


@app.command("template")
def template_command(
    kind: Annotated[str, typer.Argument(help=f"one of {', '.join(KINDS)}")],
    fmt: Annotated[str, typer.Option("--format", help="csv or xlsx")] = "csv",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="file to write")] = None,
) -> None:
    """Write the template of a caseload file kind (with an example row)."""
    try:
        city = default_jurisdiction(load_settings().default_jurisdiction).key
        body, _, name = template(kind, fmt, date.today(), city)
    except CaseloadFileError as err:
        raise CliError(str(err), code=2) from None
    target = output or Path(name)
    target.write_bytes(body)
    console.print(f"{kind} template written to {target}")


@app.command("caseload")
def caseload_command(
    file: Annotated[Path, typer.Argument(help="the caseload file, CSV or XLSX")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="preview only")] = False,
    errors: Annotated[
        Path | None, typer.Option("--errors", help="write the error report (CSV) here")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable JSON")] = False,
) -> None:
    """Preview a caseload file (every error by row and column; each clock's dates), then
    import it and follow its progress. Nothing is imported from a file with an error."""
    try:
        size = file.stat().st_size
    except OSError as err:
        raise CliError(f"{file}: {err.strerror}", code=2) from None
    if size > MAX_CASELOAD_BYTES:  # refused before a byte is read or sent
        raise CliError(
            f"{file}: {size // (1024 * 1024)} MB; a caseload file may be at most "
            f"{MAX_CASELOAD_BYTES // (1024 * 1024)} MB",
            code=2,
        )
    api = Api.from_settings()
    status, preview = api.upload("/caseload/previews", file.name, file.read_bytes())
    if status == 422:
        if errors is not None:
            report = api.text(f"/caseload/imports/{preview['run_id']}/errors.csv")
            errors.write_text(report, encoding="utf-8")
        lines = [
            f"row {e['row']}"
            + (f", column {e['column']}" if e["column"] else "")
            + f": {e['message']}"
            for e in preview["errors"]
        ]
        for line in lines:  # the report on standard output, the verdict on one line
            console.print(line, highlight=False, markup=False)
        raise CliError(
            f"{file.name}: {len(lines)} error(s), the first {lines[0]}; nothing was imported",
            code=1,
        )
    if as_json and dry_run:
        console.print_json(json.dumps(preview))
        return
    if not as_json:
        for item in preview["create"]:
            dates = ", ".join(f"{k} {v}" for k, v in item["dates"].items() if v)
            console.print(f"{item['id']}: {item['status']}; {dates}", highlight=False)
        created, existing = len(preview["create"]), len(preview["existing"])
        console.print(f"{created} to create, {existing} already there")
    if dry_run:
        return
    run = api.call("POST", f"/caseload/imports/{preview['run_id']}")
    while run["state"] == "running":
        time.sleep(1)
        run = api.call("GET", f"/caseload/imports/{preview['run_id']}")
        if not as_json:
            console.print(f"{run['done']} of {run['total']} ({run['percent']}%)")
    if run["state"] != "done":
        raise CliError(f"{file.name}: {run['state']}: {run['message']}")
    if as_json:
        console.print_json(json.dumps(run))
    else:
        console.print(f"{file.name}: {run['message']}")
