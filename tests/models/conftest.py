"""Every migration test runs on SQLite and on PostgreSQL: the suite's server when
`scripts/test` started one, else a throwaway cluster of our own (skipped when no
PostgreSQL server is installed)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from stack.postgres import PostgresCluster, create_database_at, drop_database_at, find_pg_bin_dir
from tests.real_parts import missing


@pytest.fixture(scope="session")
def migration_server_url(
    postgres_server_url: str | None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str | None]:
    if postgres_server_url is not None:
        yield postgres_server_url
        return
    if find_pg_bin_dir() is None:
        yield None
        return
    with PostgresCluster(tmp_path_factory.mktemp("pg") / "cluster") as cluster:
        yield cluster.url()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_database_url(
    request: pytest.FixtureRequest, tmp_path: Path, migration_server_url: str | None
) -> Iterator[str]:
    """An empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'clearance.db'}"
        return
    if migration_server_url is None:
        pytest.skip(
            missing(
                "PostgreSQL",
                "no PostgreSQL server installed: the migrations are checked on SQLite only",
            )
        )
    name = f"migrate_{uuid.uuid4().hex[:20]}"
    url = create_database_at(migration_server_url, name)
    yield url
    drop_database_at(migration_server_url, name)
