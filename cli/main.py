"""The `clearance` command line: staff tools, the worker and the embedded stack."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

import typer
from rich.console import Console

from cli import audit, caseload, clock, db, login, payload_key, permits, rules
from cli.errors import CliError, explain
from cli.projects import conditions_app, project_app
from cli.web import users_app
from cli.web import web as web_command

app = typer.Typer(
    help="Clearance: deadlines with legal consequences, kept by durable Temporal workflows.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(clock.app, name="clock")
app.add_typer(conditions_app, name="conditions")
app.add_typer(project_app, name="project")
app.add_typer(permits.app, name="permit")
app.add_typer(users_app, name="users")
app.command("login")(login.login)
app.command("logout")(login.logout)
app.command("whoami")(login.whoami)
app.command("web")(web_command)
app.add_typer(db.app, name="db")
app.add_typer(payload_key.app, name="payload-key")
app.add_typer(audit.app, name="audit")
app.add_typer(rules.app, name="rules")
app.add_typer(caseload.app, name="import")
stderr = Console(stderr=True)


@app.command()
def worker() -> None:
    """Run the worker against the Temporal server named by CLEARANCE_TEMPORAL_ADDRESS.

    Logs as CLEARANCE_LOG_FORMAT (text or json) says, serves /healthz and /readyz on
    CLEARANCE_WORKER_HEALTH_PORT when set, and on SIGTERM drains running activities for
    up to CLEARANCE_GRACEFUL_SHUTDOWN_SECONDS before exiting.
    """
    import worker as worker_module

    asyncio.run(worker_module.main())


@app.command("run")
def run_stack(
    demo: bool = typer.Option(True, help="Load the demo applications if they are missing"),
) -> None:
    """Run everything: Temporal dev server (SQLite), worker, web app and demo data."""
    from stack.embedded import PortInUse, run_embedded

    try:
        run_embedded(load_demo=demo)
    except PortInUse as err:
        raise CliError(str(err)) from None


def run() -> None:
    """Entry point: every failure is one line on standard error, never a traceback."""
    try:
        _run()
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    # Skip interpreter teardown: temporalio's Rust runtime threads can abort it with
    # "Fatal Python error: PyGILState_Release" and exit code 134 (temporalio/sdk-python#300).
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # e.g. a closed pipe: nothing left to say
            stream.flush()
    os._exit(code or 0)


def _run() -> None:
    try:
        app(standalone_mode=False)
    except CliError as err:
        _fail(str(err), err.code)
    except KeyboardInterrupt:
        sys.exit(130)
    except typer.Abort:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - the CLI's last line of defence
        # Usage errors (typer vendors click): bad option, missing argument, unknown command.
        if hasattr(err, "format_message") and hasattr(err, "exit_code"):
            message = err.format_message()
            if not message:  # no arguments: the help was printed, nothing else to say
                sys.exit(int(err.exit_code))
            _fail(message, int(err.exit_code))
        friendly = explain(err)
        _fail(str(friendly), friendly.code)


def _fail(message: str, code: int) -> None:
    stderr.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    sys.exit(code)


if __name__ == "__main__":
    run()
