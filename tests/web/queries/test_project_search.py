"""Searching projects matches what was typed, literally: `%`, `_` and `/` are characters
to find, not LIKE wildcards (on SQLite, and on PostgreSQL when the suite runs on it)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy.orm import Session

from models.database import make_engine, session_factory
from models.schema import Project
from tests.database import fresh_database, suite_server_url
from web.queries import readmodel

NAMES = {
    "P-1": "Main Street lofts",
    "P-2": "100% affordable housing",
    "P-3": "Lot_7 subdivision",
    "P-4": "Creek/Bridge repair",
    "P-5": "Old mill (no marks)",
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    with fresh_database(tmp_path_factory.mktemp("search"), suite_server_url()) as url:
        engine = make_engine(url)
        try:
            with session_factory(engine).begin() as session:
                at = datetime(2026, 1, 5, tzinfo=UTC)
                for project_id, name in NAMES.items():
                    session.add(
                        Project(
                            project_id=project_id,
                            workflow_id=f"project-{project_id}",
                            name=name,
                            jurisdiction="cotati",
                            next_milestone=None,
                            urgent_target=None,
                            created_at=at,
                            updated_at=at,
                        )
                    )
            with session_factory(engine)() as session:
                yield session
        finally:
            engine.dispose()


def found(session: Session, q: str) -> set[str]:
    return {p.project_id for p in readmodel.projects(session, q=q).items}


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("%", {"P-2"}),  # not every project
        ("_", {"P-3"}),  # not every project with a name at least one character long
        ("/", {"P-4"}),  # the escape character itself
        ("0%", {"P-2"}),
        ("lot_", {"P-3"}),  # still case-insensitive
        ("of_s", set()),  # `_` is not "any one character" ("lofts")
        ("%%", set()),
        ("main", {"P-1"}),
        ("p-", set(NAMES)),  # the id is searched too
    ],
)
def test_search_matches_the_typed_characters_literally(
    db: Session, q: str, expected: set[str]
) -> None:
    assert found(db, q) == expected
