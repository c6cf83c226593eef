"""`clearance audit verify`: is an audit export, or the audit log in the database, as it
was written? Names the first broken link of the hash chain (rules/audit_chain.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cli.errors import CliError
from rules.audit_chain import ChainReport
from settings import load_settings

app = typer.Typer(help="The tamper-evident audit trail.", no_args_is_help=True)
console = Console()


def _say(label: str, report: ChainReport) -> bool:
    if report.intact:
        console.print(
            f"{label}: intact, {report.entries} entries, head {report.head}",
            markup=False,
            highlight=False,
        )
        return True
    console.print(
        f"{label}: BROKEN at {report.first_break}", markup=False, highlight=False, soft_wrap=True
    )
    return False


@app.command("verify")
def verify(
    export: Annotated[
        Path | None,
        typer.Argument(help="An audit export (JSON or CSV from `clearance project report`)"),
    ] = None,
    project: Annotated[
        str | None, typer.Option(help="Check this project's audit log in the database")
    ] = None,
) -> None:
    """Check an export, or the database (one project, or every project when neither is
    given). Exit code 1 when a chain is broken; the head hash is worth noting elsewhere,
    since only it shows entries cut off the end."""
    from reports import audit

    if export is not None:
        if project is not None:
            raise CliError("give an export file or --project, not both", code=2)
        try:
            text = export.read_text(encoding="utf-8")
        except OSError as err:
            raise CliError(f"cannot read {export}: {err.strerror or err}", code=2) from None
        try:
            report = audit.verify_export(text)
        except audit.NotAnAuditExport as err:
            raise CliError(f"{export}: {err}", code=2) from None
        if not _say(str(export), report):
            raise CliError(f"{export}: the audit chain is broken (first break above)")
        return

    from models.database import make_engine

    engine = make_engine(load_settings().database_url)
    projects = [project] if project else audit.projects_with_audit(engine)
    if project and project not in audit.projects_with_audit(engine):
        raise CliError(f"no audit entries for project {project!r}", code=2)
    results = [_say(f"project {p}", audit.verify_database(engine, p)) for p in projects]
    if not projects:
        console.print("no audit entries in the database")
    broken = results.count(False)
    if broken:
        raise CliError(f"{broken} project audit chain(s) broken (first breaks above)")
