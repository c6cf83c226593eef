"""`clearance login`, `logout` and `whoami`: the personal access token staff commands use."""

from __future__ import annotations

import getpass
import sys
from typing import Annotated

import typer
from rich.console import Console

from cli.api import Api, config_path, local_url, read_config, write_config
from cli.errors import CliError
from settings import load_settings

console = Console()


def login(
    url: Annotated[
        str | None, typer.Option(help="The web app's address (default: the local one)")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(help="A token made on the web app's 'Personal access tokens' page"),
    ] = None,
    email: Annotated[
        str | None, typer.Option(help="Log in with e-mail and password (makes a token)")
    ] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input")
    ] = False,
    scope: Annotated[
        str, typer.Option(help="With --email: the token's scope, read (only reads) or act")
    ] = "act",
    days: Annotated[
        int, typer.Option(help="With --email: days until the token expires (7, 30, 90, 365)")
    ] = 90,
) -> None:
    """Save the web app's address and your personal access token for the staff commands.
    With --email, the token made expires after --days (90) with the --scope given (act);
    it is revoked when your password is changed or reset: then log in again."""
    settings = load_settings()
    path = config_path(settings)
    saved = read_config(path)
    base = (url or settings.api_url or saved.get("url") or local_url(settings)).rstrip("/")
    if (token is None) == (email is None):
        raise CliError("give --token TOKEN (from the web app) or --email EMAIL", code=2)
    expires = ""
    if email is not None:
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        elif sys.stdin.isatty():
            password = getpass.getpass(f"Password for {email}: ")
        else:
            raise CliError("no terminal to ask the password: use --password-stdin", code=2)
        made = Api(base, "").call(
            "POST",
            "/tokens",
            {"email": email, "password": password, "scope": scope, "days": days},
        )
        token = str(made["token"])
        expires = str(made.get("expires_at", ""))[:10]
    assert token is not None
    me = Api(base, token).call("GET", "/me")
    write_config(path, {"url": base, "token": token, "email": me["email"]})
    limits = f"; it expires on {expires} ({scope} scope)" if email is not None else ""
    console.print(
        f"logged in to {base} as {me['email']} ({me['role']}); token saved in {path}{limits}"
    )


def logout() -> None:
    """Revoke the saved token and forget it."""
    path = config_path()
    saved = read_config(path)
    if not saved.get("token"):
        console.print("not logged in")
        return
    try:
        Api(saved.get("url", ""), saved["token"]).call("POST", "/tokens/current/revoke")
        revoked = "revoked and "
    except CliError as err:
        revoked = f"(not revoked: {err}) "
    path.unlink(missing_ok=True)
    console.print(f"token {revoked}removed from {path}")


def whoami() -> None:
    """Who the staff commands act as, and where."""
    api = Api.from_settings()
    me = api.call("GET", "/me")
    dept = f", {me['department']}" if me.get("department") else ""
    console.print(f"{me['email']} ({me['role']}{dept}) at {api.url}")
