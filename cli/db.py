"""`clearance db upgrade|current`: the read model's schema, migrated with Alembic.

The worker and the web app also migrate when they start (models.database.make_engine);
a deployment runs `clearance db upgrade` first so a failing migration stops the rollout
before any service starts on the new code.
"""

from __future__ import annotations

import typer
from rich.console import Console

from cli.errors import CliError

app = typer.Typer(help="The app database: migrate it and show its schema revision.")
console = Console(highlight=False, soft_wrap=True)


def _database_url(url: str | None) -> str:
    from settings import load_settings

    return url or load_settings().database_url


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _reason(err: Exception) -> str:
    """The driver's first line (\"connection refused\"), not SQLAlchemy's whole story."""
    cause = getattr(err, "orig", None) or err
    lines = str(cause).strip().splitlines()
    return lines[0] if lines else cause.__class__.__name__


@app.command()
def upgrade(
    revision: str = typer.Argument("head", help="Target revision (default: the newest)"),
    url: str | None = typer.Option(
        None, "--url", help="Database URL (default: CLEARANCE_DATABASE_URL)"
    ),
) -> None:
    """Migrate the database to the newest schema (adopting one made before migrations)."""
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from models.database import current_revision, head_revision, make_engine, upgrade_schema

    target = _database_url(url)
    engine = make_engine(target, migrate=False)
    try:
        before = current_revision(engine)
        after = upgrade_schema(engine, revision)
    except CommandError as err:  # e.g. an unknown revision
        raise CliError(f"cannot migrate {_safe(target)} to {revision!r}: {err}", code=2) from err
    except SQLAlchemyError as err:
        raise CliError(f"cannot migrate {_safe(target)}: {_reason(err)}") from err
    finally:
        engine.dispose()
    state = "head" if after == head_revision() else "not head"
    if before == after:
        console.print(f"{_safe(target)} is already at revision {after} ({state})")
    else:
        console.print(f"{_safe(target)} migrated from {before or 'empty'} to {after} ({state})")


@app.command()
def current(
    url: str | None = typer.Option(
        None, "--url", help="Database URL (default: CLEARANCE_DATABASE_URL)"
    ),
) -> None:
    """Show the database's schema revision; exits 3 when it is behind the code."""
    from sqlalchemy.exc import SQLAlchemyError

    from models.database import current_revision, head_revision, make_engine

    target = _database_url(url)
    engine = make_engine(target, migrate=False)
    try:
        revision = current_revision(engine)
    except SQLAlchemyError as err:
        raise CliError(f"cannot read {_safe(target)}: {_reason(err)}") from err
    finally:
        engine.dispose()
    head = head_revision()
    if revision == head:
        console.print(f"{_safe(target)}: revision {revision} (head)")
        return
    raise CliError(
        f"{_safe(target)}: revision {revision or 'none (empty or made before migrations)'}; "
        f"the code expects {head}: run `clearance db upgrade`",
        code=3,
    )
