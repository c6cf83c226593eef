"""`clearance web` (the web app) and `clearance users ...` (its users and API tokens)."""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from cli.errors import CliError
from rules.access import STAFF_ROLES
from settings import load_settings

if TYPE_CHECKING:
    from web.auth.accounts import Accounts

users_app = typer.Typer(help="Users of the web app: add, list, disable, API tokens.")
console = Console()


def web(
    host: Annotated[str | None, typer.Option(help="Address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Processes serving requests (default: CLEARANCE_WEB_WORKERS, else one per "
            "CPU core)",
        ),
    ] = None,
) -> None:
    """Run the web app (pages, applicant portal, ICS feeds, JSON API) with uvicorn."""
    import uvicorn

    from models.database import sqlite_files
    from operations.data_folder import keep_private
    from operations.signing import secret_key
    from web.app import create_app, warm_up

    settings = load_settings()
    # Evidence uploads, import jobs and the secret key: 0600 in a 0700 data folder.
    privacy = keep_private(settings.data_dir, sqlite_files(settings.database_url))
    if (fixed := privacy.message()) is not None:
        console.print(fixed, markup=False, highlight=False)
    host = host or settings.web_host
    port = port or settings.web_port
    processes = workers or settings.web_processes
    plural = "es" if processes != 1 else ""
    console.print(
        f"Clearance web app on http://{host}:{port}  (API docs at /api/docs; "
        f"{processes} process{plural})"
    )
    # Proxy headers are handled by the app itself, from CLEARANCE_TRUSTED_PROXIES only.
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "warning",
        "proxy_headers": False,
    }
    if processes == 1:
        app = create_app(settings)
        warm_up(app)
        uvicorn.run(app, **options)
        return
    # Every process signs and checks sessions and links with one key: made here, once,
    # before they start (each would otherwise race to make its own).
    secret_key(settings)
    # Each process builds the app from the same environment (sessions, log-in throttle
    # and resolution uploads are kept in the database and data folder, not in memory).
    uvicorn.run("web.app:served_app", factory=True, workers=processes, **options)


def _accounts() -> Accounts:
    from models.database import make_engine
    from web.auth.accounts import Accounts

    return Accounts(make_engine(load_settings().database_url))


@users_app.command("add")
def add(
    email: Annotated[str, typer.Argument(help="The user's e-mail address (their log-in)")],
    role: Annotated[str, typer.Option(help=f"One of: {', '.join(STAFF_ROLES)}")],
    department: Annotated[
        str, typer.Option(help="For a department_reviewer: the department they clear")
    ] = "",
    password: Annotated[str | None, typer.Option(help="Password (prompted when not given)")] = None,
    name: Annotated[str, typer.Option(help="Display name")] = "",
    replace: Annotated[bool, typer.Option(help="Replace an existing user's role/password")] = False,
) -> None:
    """Add a user (or, with --replace, reset their role and password)."""
    from web.auth.accounts import AccountError

    if password is None:
        password = getpass.getpass(f"Password for {email}: ")
        if getpass.getpass("Again: ") != password:
            raise CliError("the passwords do not match", code=2)
    try:
        user = _accounts().add_user(email, role, password, department, name, replace=replace)
    except AccountError as err:
        raise CliError(str(err), code=2) from None
    dept = f" ({user.department})" if user.department else ""
    console.print(f"added {user.email}: {user.role}{dept}")


@users_app.command("import")
def import_users(
    file: Annotated[
        str, typer.Argument(help="CSV: email, role, department, display_name, password")
    ],
    replace: Annotated[
        bool, typer.Option(help="Update the role, department and name of existing users")
    ] = False,
) -> None:
    """Add users from a CSV file with their roles (docs/security.md). The whole file is
    checked first: with an error nothing is added. An empty password: the user signs in
    with the city's identity provider. Running it again adds nothing twice."""
    from pathlib import Path

    from web.auth.accounts import MAX_USERS_FILE_BYTES, AccountError, read_users_csv

    try:
        if Path(file).stat().st_size > MAX_USERS_FILE_BYTES:  # refused before it is read
            raise CliError(f"{file}: larger than 5 MB (a users file is a few KB)", code=2)
        rows = read_users_csv(Path(file).read_bytes())
    except OSError as err:
        raise CliError(f"{file}: {err.strerror}", code=2) from None
    except AccountError as err:
        raise CliError(f"{file}: {err}", code=2) from None
    added, existing, errors = _accounts().import_users(rows, replace=replace)
    if errors:
        for line in errors:
            console.print(line, markup=False, highlight=False)
        raise CliError(f"{file}: {len(errors)} error(s); no user was added", code=2)
    console.print(
        f"{len(added)} added, {len(existing)} already there"
        + (" (updated)" if replace and existing else "")
    )


@users_app.command("list")
def list_users() -> None:
    """The users and their roles."""
    table = Table(title="Users")
    for col in ("E-mail", "Role", "Department", "Active"):
        table.add_column(col)
    for u in _accounts().list_users():
        table.add_row(u.email, u.role, u.department or "-", "yes" if u.active else "no")
    console.print(table)


@users_app.command("password")
def reset_password(
    email: Annotated[str, typer.Argument()],
    password: Annotated[
        str | None, typer.Option(help="New password (prompted when not given)")
    ] = None,
) -> None:
    """Reset a user's password; every session of theirs ends at once."""
    from web.auth.accounts import AccountError

    if password is None:
        password = getpass.getpass(f"New password for {email}: ")
        if getpass.getpass("Again: ") != password:
            raise CliError("the passwords do not match", code=2)
    try:
        _accounts().reset_password(email, password)
    except AccountError as err:
        raise CliError(str(err), code=2) from None
    console.print(f"password reset for {email}; their sessions have ended")


@users_app.command("disable")
def disable(email: Annotated[str, typer.Argument()]) -> None:
    """Stop a user logging in (their sessions end at once)."""
    from web.auth.accounts import AccountError

    try:
        _accounts().set_active(email, False)
    except AccountError as err:
        raise CliError(str(err), code=2) from None
    console.print(f"disabled {email}")


@users_app.command("token")
def token(
    email: Annotated[str, typer.Argument()],
    label: Annotated[str, typer.Option(help="What the token is for")] = "",
    scope: Annotated[str, typer.Option(help="read (only reads) or act (reads and acts)")] = "act",
    days: Annotated[int, typer.Option(help="Days until it expires: 7, 30, 90 or 365")] = 90,
) -> None:
    """Make an API token for a user (Authorization: Bearer ...); shown once. It expires
    after --days and is revoked when the user's password is changed or reset."""
    from web.auth.accounts import AccountError

    try:
        value = _accounts().new_api_token(email, label, scope, days)
    except AccountError as err:
        raise CliError(str(err), code=2) from None
    console.print(value, markup=False, highlight=False, soft_wrap=True)
