"""Upgrading a single-city database to many jurisdictions (migration 0017) loses nothing:
its clocks, projects and users stay as they were, and every user keeps seeing what they
saw, through a role in each jurisdiction the database already has records in."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from models.database import make_engine, upgrade_schema
from models.schema import Application, PermitClockRow, User, UserJurisdiction
from models.scope import scoped
from tests.models.test_migrations import differences

NOW = datetime(2026, 11, 20, tzinfo=UTC)


def test_a_single_city_database_upgrades_with_every_user_in_its_cities(
    any_database_url: str,
) -> None:
    engine = make_engine(any_database_url, migrate=False)
    try:
        assert upgrade_schema(engine, "0010") == "0010"
        with engine.begin() as connection:
            for email, role, department in (
                ("planner@cotati.example", "project_manager", ""),
                ("fire@cotati.example", "department_reviewer", "fire"),
            ):
                connection.execute(
                    User.__table__.insert().values(
                        email=email, password_hash="x", role=role, department=department,
                        display_name="", active=True, created_at=NOW,
                    )
                )  # fmt: skip
            connection.execute(
                Application.__table__.insert().values(
                    application_id="WTF-1", workflow_id="shot-clock-WTF-1", jurisdiction="cotati",
                    category="macro_collocation", batch=[], site_address="", description="",
                    applicant_name="", applicant_email="", planner_email="", supervisor_email="",
                    attorney_email="", status="running", tolled_days=0, risk_flagged=False,
                    clock={"status": "running"}, created_at=NOW, updated_at=NOW,
                )
            )  # fmt: skip
            connection.execute(
                PermitClockRow.__table__.insert().values(
                    clock_id="BP-1", workflow_id="permit-clock-BP-1", jurisdiction="federal",
                    rule="building_permit_expiry", citation="", rule_version="",
                    provisional=False, title="", site_address="", companion_id="",
                    applicant_name="", applicant_email="", staff_email="", status="running",
                    conservative_status="", consequence="", escalated=False, clock={},
                    created_at=NOW, updated_at=NOW,
                )
            )  # fmt: skip
        assert upgrade_schema(engine) is not None
        assert differences(engine) == []
        with scoped(None), engine.connect() as connection:
            roles = connection.execute(
                select(
                    User.email,
                    UserJurisdiction.jurisdiction,
                    UserJurisdiction.role,
                    UserJurisdiction.department,
                )
                .join(User, User.id == UserJurisdiction.user_id)
                .order_by(User.email, UserJurisdiction.jurisdiction)
            ).all()
            app = connection.execute(select(Application.__table__)).one()
        assert [tuple(r) for r in roles] == [
            ("fire@cotati.example", "cotati", "department_reviewer", "fire"),
            ("fire@cotati.example", "federal", "department_reviewer", "fire"),
            ("planner@cotati.example", "cotati", "project_manager", ""),
            ("planner@cotati.example", "federal", "project_manager", ""),
        ]
        assert (app.application_id, app.jurisdiction, app.clock) == (
            "WTF-1",
            "cotati",
            {"status": "running"},
        )
    finally:
        engine.dispose()
