"""Search over the read model on the suite's database (SQLite FTS5, or PostgreSQL's
full-text search when the suite runs on it): each kind is found by a word of it, words
match as prefixes, every word must match, query syntax is only words, and the index
follows inserts, updates and deletes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, delete, update

from models.database import make_engine, session_factory
from models.schema import (
    Application,
    ConditionRow,
    PermitClockRow,
    Project,
    User,
    UserJurisdiction,
)
from web.queries.search import search

NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    with session_factory(engine).begin() as db:
        db.add(
            Project(
                project_id="BIRCH-1",
                workflow_id="project-BIRCH-1",
                name="Birch Lane Townhomes",
                jurisdiction="cotati",
                applicant_name="Birch Lane LLC",
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.flush()
        for i, text in enumerate(
            [
                "The Applicant shall submit a final drainage report prepared by an engineer.",
                "Prior to grading, install tree protection fencing around each oak.",
            ]
        ):
            db.add(
                ConditionRow(
                    project_id="BIRCH-1",
                    number=str(i + 1),
                    position=i,
                    department="Public Works",
                    department_key="engineering",
                    text=text,
                    gates=["grading_permit"],
                    gate_source="explicit",
                    kind="requirement",
                    status="open",
                )
            )
        db.add(
            Application(
                application_id="WTF-00042",
                workflow_id="shot-clock-WTF-00042",
                jurisdiction="cotati",
                category="swf_collocation",
                status="running",
                site_address="8520 Old Redwood Highway",
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.add(
            PermitClockRow(
                clock_id="BP-77",
                workflow_id="permit-clock-BP-77",
                jurisdiction="cotati",
                rule="building_permit_expiry",
                status="running",
                title="Gravenstein bakery remodel",
                created_at=NOW,
                updated_at=NOW,
            )
        )
        db.add(
            User(
                email="rosa.alvarez@cotati.example",
                password_hash="x",
                role="department_reviewer",
                department="engineering",
                display_name="Rosa Alvarez",
                created_at=NOW,
            )
        )
        # A planner of another city only (a role there, none in the default city).
        rosalind = User(
            email="rosalind.park@sebastopol.example",
            password_hash="x",
            role="planner",
            display_name="Rosalind Park",
            created_at=NOW,
        )
        db.add(rosalind)
        db.flush()
        db.add(UserJurisdiction(user_id=rosalind.id, jurisdiction="sebastopol", role="planner"))
    yield engine
    engine.dispose()


def refs(engine: Engine, query: str) -> dict[str, list[str]]:
    with session_factory(engine)() as db:
        found = search(db, query, default_city="cotati")
    return {kind: [h.ref for h in hits] for kind, hits in found.groups.items()}


def test_each_kind_is_found_by_its_words(engine: Engine) -> None:
    assert refs(engine, "birch") == {"projects": ["BIRCH-1"]}
    assert refs(engine, "drainage report") == {"conditions": ["BIRCH-1 #1"]}
    assert refs(engine, "WTF-00042") == {"clocks": ["WTF-00042"]}
    assert refs(engine, "gravenstein") == {"permits": ["BP-77"]}
    assert refs(engine, "Alvarez") == {"people": ["rosa.alvarez@cotati.example"]}


def test_another_citys_records_are_not_found(engine: Engine) -> None:
    """A user of another city finds none of Cotati's projects, conditions or clocks: the
    full-text SQL is checked against the same city scope as every page."""
    from models.scope import scoped

    with scoped(["sebastopol"]):
        for words in ("birch", "drainage report", "WTF-00042", "gravenstein"):
            assert refs(engine, words) == {}, words
    with scoped(["cotati"]):
        assert refs(engine, "birch") == {"projects": ["BIRCH-1"]}
        assert refs(engine, "drainage report") == {"conditions": ["BIRCH-1 #1"]}


def test_people_are_found_only_in_the_cities_they_work_in(engine: Engine) -> None:
    """Staff search lists the people of the searcher's cities: Cotati's reviewer (no city
    roles, so the default city) and Sebastopol's planner (a role there only) each stay in
    their own city."""
    from models.scope import scoped

    both = ["rosa.alvarez@cotati.example", "rosalind.park@sebastopol.example"]
    assert sorted(refs(engine, "Rosa")["people"]) == both  # no scope: the CLI, the worker
    with scoped(["cotati"]):
        assert refs(engine, "Rosa") == {"people": ["rosa.alvarez@cotati.example"]}
    with scoped(["sebastopol"]):
        assert refs(engine, "Rosa") == {"people": ["rosalind.park@sebastopol.example"]}
    with scoped(["cotati", "sebastopol"]):
        assert sorted(refs(engine, "Rosa")["people"]) == both


def test_prefixes_every_word_and_no_syntax(engine: Engine) -> None:
    assert refs(engine, "drain") == {"conditions": ["BIRCH-1 #1"]}
    assert refs(engine, "drainage oak") == {}  # each word must match in one condition
    assert refs(engine, 'oak" OR "drainage') == {}
    assert refs(engine, "(drainage* ^") == {"conditions": ["BIRCH-1 #1"]}
    assert refs(engine, "NEAR(drainage") == {}  # "near" is a word like any other
    assert refs(engine, "   ") == {}


def test_an_excerpt_marks_the_matched_words(engine: Engine) -> None:
    with session_factory(engine)() as db:
        hit = search(db, "drainage").groups["conditions"][0]
    assert ("drainage", True) in [(t.lower(), m) for t, m in hit.excerpt]
    assert hit.url == "/projects/BIRCH-1/conditions/1"


def test_the_index_follows_changes(engine: Engine) -> None:
    with session_factory(engine).begin() as db:
        db.execute(
            update(ConditionRow)
            .where(ConditionRow.number == "2")
            .values(text="Prior to grading, plant three valley oaks.")
        )
        db.execute(delete(PermitClockRow).where(PermitClockRow.clock_id == "BP-77"))
    assert refs(engine, "fencing") == {}
    assert refs(engine, "valley") == {"conditions": ["BIRCH-1 #2"]}
    assert refs(engine, "gravenstein") == {}
    # A status change leaves the row found as before.
    with session_factory(engine).begin() as db:
        db.execute(update(ConditionRow).values(status="cleared"))
    assert refs(engine, "valley") == {"conditions": ["BIRCH-1 #2"]}
