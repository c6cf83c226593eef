"""The engine the worker and the web app use: it survives a database restart, and a
failed migration leaves nothing half done."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.util import CommandError
from sqlalchemy import inspect, select

from models.database import current_revision, head_revision, make_engine, upgrade_schema
from models.schema import Application
from stack.postgres import PostgresCluster, find_pg_bin_dir
from tests.real_parts import missing


@pytest.mark.skipif(
    find_pg_bin_dir() is None, reason=missing("PostgreSQL", "no PostgreSQL server installed")
)
def test_pooled_connections_survive_a_database_restart(tmp_path: Path) -> None:
    with PostgresCluster(tmp_path / "pg") as cluster:
        engine = make_engine(cluster.create_database("restarted"))
        try:
            with engine.connect() as conn:
                assert conn.execute(select(Application)).all() == []
            # Every pooled connection is now dead; pre-ping replaces it instead of
            # handing an activity a broken one.
            cluster.restart()
            with engine.connect() as conn:
                assert conn.execute(select(Application)).all() == []
        finally:
            engine.dispose()


def test_a_failed_sqlite_migration_changes_nothing(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'clearance.db'}", migrate=False)
    try:
        with pytest.raises(CommandError, match="9999"):
            upgrade_schema(engine, "9999")
        assert inspect(engine).get_table_names() == []
        assert current_revision(engine) is None
        assert upgrade_schema(engine) == head_revision()
    finally:
        engine.dispose()


def test_a_deleted_sqlite_file_is_migrated_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'clearance.db'}"
    make_engine(url).dispose()
    (tmp_path / "clearance.db").unlink()
    engine = make_engine(url)
    try:
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()
