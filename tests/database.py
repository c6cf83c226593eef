"""The app database a test runs on: a fresh database on the PostgreSQL server named by
CLEARANCE_TEST_DATABASE_URL (`scripts/test` starts one), else a SQLite file."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stack.postgres import create_database_at, drop_database_at

TEST_DATABASE_URL_ENV = "CLEARANCE_TEST_DATABASE_URL"


def suite_server_url() -> str | None:
    """The PostgreSQL server the suite runs on, or None for SQLite."""
    return os.environ.get(TEST_DATABASE_URL_ENV) or None


@contextmanager
def fresh_database(folder: Path, server_url: str | None = None) -> Iterator[str]:
    """An empty database: a new one on `server_url` (dropped afterwards, with any session
    still open on it), or `folder/db/clearance.db` in a folder that need not exist yet."""
    if server_url is None:
        yield f"sqlite:///{folder / 'db' / 'clearance.db'}"
        return
    name = f"test_{uuid.uuid4().hex[:24]}"
    url = create_database_at(server_url, name)
    try:
        yield url
    finally:
        drop_database_at(server_url, name)
