"""Engine and sessions for the read model (SQLite by default, any SQLAlchemy URL works)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from models.schema import Base

# Activities write from a thread pool; wait this long for SQLite's write lock
# instead of failing at once with "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 5000


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        # WAL lets the CLI and dashboards read while a worker writes.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def make_engine(url: str) -> Engine:
    """Create the engine and the tables; for SQLite also the file's folder."""
    parsed = make_url(url)
    connect_args: dict[str, Any] = {}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # Connections are pooled and handed to whichever activity thread runs next.
        connect_args["check_same_thread"] = False
    engine = create_engine(url, connect_args=connect_args)
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
    Base.metadata.create_all(engine)
    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    # Rows are read after commit (receipts, tests): don't expire them on commit.
    return sessionmaker(engine, expire_on_commit=False)


def dialect_insert(engine: Engine, table: Any) -> Any:
    """An INSERT that supports ON CONFLICT (upserts) for the engine's dialect."""
    name = engine.dialect.name
    if name == "sqlite":
        return sqlite.insert(table)
    if name == "postgresql":
        return postgresql.insert(table)
    raise NotImplementedError(f"upserts are not implemented for {name!r}")
