"""Engine and sessions for the read model (SQLite by default, PostgreSQL in production).

`make_engine` brings the schema to the newest Alembic revision (migrations/) the first
time a process opens a database, so the worker, the web app and the CLI never run on an
old schema; `clearance db upgrade` does the same as a separate deployment step.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from models.schema import Base

# Activities write from a thread pool; wait this long for SQLite's write lock
# instead of failing at once with "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 5000

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"

# The first migration: a database made by `create_all` before migrations existed is
# adopted at this revision (see _adopt_pre_migration_database).
BASELINE_REVISION = "0001"
# The tables the baseline revision creates: a pre-migration database is given only
# these before it is stamped, so later revisions create their own tables themselves.
BASELINE_TABLES = (
    "applicant_links",
    "applications",
    "audit_log",
    "closure_days",
    "evidence_files",
    "notices",
    "operator_alerts",
    "projects",
    "users",
    "api_tokens",
    "calendar_tokens",
    "clock_events",
    "conditions",
    "web_sessions",
)

# Two processes starting together (worker and web app) take this PostgreSQL advisory
# lock, so one migrates and the other then finds the schema at head.
MIGRATION_LOCK_KEY = 0x436C656172  # "Clear"

_upgraded: set[str] = set()
_upgraded_lock = threading.Lock()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        # WAL lets the CLI and dashboards read while a worker writes.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def _sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def sqlite_files(url: str) -> list[Path]:
    """A SQLite database's files (the database, its -wal and -shm, the migration lock
    beside it); none for PostgreSQL or an in-memory database."""
    database = _sqlite_file(url)
    if database is None:
        return []
    return [database, *(Path(f"{database}{end}") for end in ("-wal", "-shm", ".migrate-lock"))]


def make_engine(url: str, migrate: bool = True) -> Engine:
    """Create the engine and bring the schema to head (once per process and URL); for
    SQLite also the file's folder. `migrate=False` only connects (`clearance db current`)."""
    parsed = make_url(url)
    connect_args: dict[str, Any] = {}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None:
        sqlite_file.parent.mkdir(parents=True, exist_ok=True)
    if is_sqlite:
        # Connections are pooled and handed to whichever activity thread runs next.
        connect_args["check_same_thread"] = False
    # pre_ping: a connection broken by a database server's restart is replaced, not
    # handed out. A SQLite file has no server to restart, and the ping was a statement
    # per checkout, three or four per notice (docs/storm.md).
    engine = create_engine(url, connect_args=connect_args, pool_pre_ping=not is_sqlite)
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
    if migrate:
        with _upgraded_lock:
            # A SQLite file deleted since (tests reuse paths), or an in-memory database
            # (new with each engine), is migrated again.
            fresh = is_sqlite and (sqlite_file is None or not sqlite_file.exists())
            if url not in _upgraded or fresh:
                upgrade_schema(engine)
                _upgraded.add(url)
    return engine


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for migrations/, independent of the working folder."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "migrations/versions holds no migration"
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; None for an empty or pre-migration database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade_schema(engine: Engine, revision: str = "head") -> str | None:
    """Migrate the database to `revision` (default: the newest), adopting a database made
    before migrations existed; returns the revision it is at afterwards."""
    with _migration_lock(engine), _migration_engine(engine).begin() as connection:
        if engine.dialect.name == "postgresql":
            # Held until this transaction ends: PostgreSQL migrates in one transaction.
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
            )
        config = alembic_config(connection)
        _adopt_pre_migration_database(connection, config)
        command.upgrade(config, revision)
        return MigrationContext.configure(connection).get_current_revision()


def _adopt_pre_migration_database(connection: Connection, config: Config) -> None:
    """A database the previous release made with `create_all` has our tables and no
    `alembic_version`: keep its rows, add the tables it lacks (create_all never touches an
    existing table) and stamp it at the baseline, which those tables match. (This holds
    while the models are the baseline; a later revision that alters one of those tables
    must make this create the baseline's shape instead.)"""
    if MigrationContext.configure(connection).get_current_revision() is not None:
        return
    if not set(inspect(connection).get_table_names()) & set(Base.metadata.tables):
        return
    Base.metadata.create_all(
        connection, tables=[Base.metadata.tables[name] for name in BASELINE_TABLES]
    )
    command.stamp(config, BASELINE_REVISION)


def _migration_engine(engine: Engine) -> Engine:
    """The engine migrations run on. Python's sqlite3 commits before each DDL statement,
    so a failed SQLite migration would leave half a schema: for SQLite this engine issues
    BEGIN itself and DDL rolls back with the rest (SQLAlchemy's documented recipe)."""
    if engine.dialect.name != "sqlite" or _sqlite_file(str(engine.url)) is None:
        return engine  # PostgreSQL's DDL is transactional; an in-memory SQLite is per engine
    migration_engine = create_engine(engine.url, poolclass=NullPool)

    @event.listens_for(migration_engine, "connect")
    def _no_implicit_transactions(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        _sqlite_pragmas(dbapi_connection, _record)

    @event.listens_for(migration_engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")

    return migration_engine


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """For a SQLite file, a lock file beside it does what PostgreSQL's advisory lock does."""
    sqlite_file = _sqlite_file(str(engine.url))
    if sqlite_file is None:
        yield
        return
    with open(f"{sqlite_file}.migrate-lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


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


# How long a readiness check waits for SQLite's write lock before saying "locked".
READY_LOCK_WAIT_MS = 1000
# The same upsert on SQLite and PostgreSQL (the table: migration 0011).
_PROBE_UPSERT = text(
    "INSERT INTO readiness_probe (id, checked_at) VALUES (1, :at) "
    "ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at"
)


def write_probe(engine: Engine) -> None:
    """Raise unless the database takes a write now: the probe row is upserted and
    committed. A database that answers reads but is locked, read-only or full is not
    ready (the web app's and the worker's /readyz)."""
    from datetime import UTC, datetime

    with engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            # Say "locked" within a second, not after the 5 s an action would wait.
            conn.exec_driver_sql(f"PRAGMA busy_timeout={READY_LOCK_WAIT_MS}")
            conn.commit()
        try:
            with conn.begin():
                conn.execute(_PROBE_UPSERT, {"at": datetime.now(UTC)})
        finally:
            if sqlite:
                conn.exec_driver_sql(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
                conn.commit()
