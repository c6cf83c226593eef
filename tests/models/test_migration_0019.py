"""A condition keeps the owner its project manager chose (migration 0019): conditions
recorded before it keep their rows, with no owner chosen (the department's reviewer owns
them, as before)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import inspect, select, text

from models.database import head_revision, make_engine, upgrade_schema
from models.schema import ConditionRow
from tests.models.test_migrations import differences


def test_conditions_recorded_before_owners_keep_their_rows(any_database_url: str) -> None:
    engine = make_engine(any_database_url, migrate=False)
    try:
        assert upgrade_schema(engine, "0015") == "0015"
        assert "owner_email" not in {c["name"] for c in inspect(engine).get_columns("conditions")}
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO projects (project_id, workflow_id, name, jurisdiction,"
                    " resolution_title, applicant_name, applicant_email, project_manager_email,"
                    " next_milestone_blockers, open_conditions, milestones, signoff_ready,"
                    " planned, signoffs, departments, created_at, updated_at) VALUES ('OLD-1',"
                    " 'project-OLD-1', 'Old project', 'cotati', '', '', '', '', 0, 1, '[]', 0,"
                    " '{}', '[]', '[]', :at, :at)"
                ),
                {"at": datetime(2026, 1, 5, tzinfo=UTC)},
            )
            connection.execute(
                text(
                    "INSERT INTO conditions (project_id, number, position, department,"
                    " department_key, text, gates, gate_source, kind, status, triggered,"
                    " resolution_reason, evidence, comments, sub_items, related) VALUES"
                    " ('OLD-1', '1', 0, 'Planning', 'planning', 'Pay the fees.', '[]', 'none',"
                    " 'requirement', 'submitted', false, '', '[]', '[]', '[]', '[]')"
                )
            )
        assert upgrade_schema(engine) == head_revision()
        assert differences(engine) == []
        with engine.connect() as connection:
            row = connection.execute(select(ConditionRow)).one()
        assert (row.number, row.status, row.owner_email) == ("1", "submitted", None)
    finally:
        engine.dispose()
