"""A condition keeps the owner its project manager chose (migration 0019): conditions
recorded before it keep their rows, with no owner chosen (the department's reviewer owns
them, as before)."""

from __future__ import annotations

from sqlalchemy import inspect, select

from models.database import head_revision, make_engine, upgrade_schema
from models.schema import ConditionRow
from tests.models.test_migrations import differences, insert_old_condition


def test_conditions_recorded_before_owners_keep_their_rows(any_database_url: str) -> None:
    engine = make_engine(any_database_url, migrate=False)
    try:
        assert upgrade_schema(engine, "0015") == "0015"
        assert "owner_email" not in {c["name"] for c in inspect(engine).get_columns("conditions")}
        with engine.begin() as connection:
            insert_old_condition(connection, "submitted")
        assert upgrade_schema(engine) == head_revision()
        assert differences(engine) == []
        with engine.connect() as connection:
            row = connection.execute(select(ConditionRow)).one()
        assert (row.number, row.status, row.owner_email) == ("1", "submitted", None)
    finally:
        engine.dispose()
