"""Alembic's entry point: migrate the read model at the caller's connection or URL.

`models.database.upgrade_schema` passes an open connection in `config.attributes`
(so the upgrade runs under its advisory lock); the `alembic` command uses `-x url=...`,
the ini's `sqlalchemy.url`, or CLEARANCE_DATABASE_URL (settings.py), in that order.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from models.schema import Base
from settings import load_settings

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return (
        context.get_x_argument(as_dictionary=True).get("url")
        or config.get_main_option("sqlalchemy.url")
        or load_settings().database_url
    )


def _configure(**kwargs: Any) -> None:
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite cannot ALTER most things: batch mode copies the table instead.
        render_as_batch=True,
        **kwargs,
    )


def run_migrations_offline() -> None:
    """`alembic upgrade head --sql`: print the SQL instead of running it."""
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run_on(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_on(connection)
        return
    engine = create_engine(_url(), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            _run_on(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
