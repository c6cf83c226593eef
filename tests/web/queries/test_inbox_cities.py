"""The inbox of a person with different roles in different cities gives each city's
share by their role there: an engineer at home who is the planning manager of another
city sees that city's projects' milestones (a planning manager's share) and not their
home city's (an engineer's share has none), each item once, nearest first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from models.database import make_engine, session_factory, upgrade_schema
from models.schema import ConditionRow, Project
from models.scope import scoped
from web.queries.inbox_cities import inbox_in_cities, review_queue_in_cities

NOW = datetime.now(UTC)
TODAY = NOW.date()


def project(project_id: str, city: str, days: int) -> Project:
    return Project(
        project_id=project_id, workflow_id=f"project-{project_id}", name=project_id,
        jurisdiction=city, next_milestone="building_permit", next_milestone_blockers=2,
        urgent_target=(TODAY + timedelta(days=days)).isoformat(), created_at=NOW,
        updated_at=NOW,
    )  # fmt: skip


def test_each_city_gives_its_share_by_the_role_held_there(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade_schema(engine)
    with session_factory(engine).begin() as db:
        db.add_all([project("HOME-1", "cotati", 5), project("SEB-1", "sebastopol", 9)])
        db.add(project("SEB-2", "sebastopol", 3))
    roles = {"cotati": ("engineering", ""), "sebastopol": ("planning_manager", "")}
    with scoped(roles), session_factory(engine)() as db:
        inbox = inbox_in_cities(
            db, roles, ("engineering", ""), "p@firm.example", TODAY, "America/Los_Angeles"
        )
        one_role = inbox_in_cities(
            db,
            {key: ("planning_manager", "") for key in roles},
            ("engineering", ""),
            "p@firm.example",
            TODAY,
            "America/Los_Angeles",
        )
    milestones = [i.href for i in inbox.items if i.kind == "milestone"]
    assert milestones == ["/projects/SEB-2", "/projects/SEB-1"]
    assert any(cover.endswith("(sebastopol)") for cover in inbox.sections), inbox.sections
    # The same role everywhere: one inbox over both cities, as before.
    assert [i.href for i in one_role.items if i.kind == "milestone"] == [
        "/projects/SEB-2",
        "/projects/HOME-1",
        "/projects/SEB-1",
    ]


def test_the_api_says_the_role_held_in_each_city(tmp_path: Path) -> None:
    from tests.web.standalone import add_user, standalone_client, standalone_settings
    from web.auth.accounts import Accounts
    from web.queries.scope import grant

    settings = standalone_settings(tmp_path)
    add_user(settings, "p@firm.example", "engineering")
    engine = make_engine(settings.database_url)
    accounts = Accounts(engine)
    user = accounts.get_user("p@firm.example")
    assert user is not None
    grant(session_factory(engine), user.id, "cotati", "engineering")
    grant(session_factory(engine), user.id, "sebastopol", "planning_manager")
    token = accounts.new_api_token("p@firm.example")
    with standalone_client(settings) as client:
        me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["cities"] == {
        "cotati": {"role": "engineering", "department": ""},
        "sebastopol": {"role": "planning_manager", "department": ""},
    }


def condition(project_id: str, number: str, department: str, submitted: str) -> ConditionRow:
    return ConditionRow(
        project_id=project_id, number=number, position=int(number), department=department,
        department_key=department, text=f"Condition {number}.", gate_source="stated",
        kind="standard", status="submitted", submitted_at=submitted,
    )  # fmt: skip


def test_the_review_queue_holds_each_citys_share_by_the_role_held_there(tmp_path: Path) -> None:
    """An engineering reviewer at home who manages planning in another city reviews
    engineering's evidence at home and every department's there, oldest first."""
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade_schema(engine)
    with session_factory(engine).begin() as db:
        db.add_all([project("HOME-1", "cotati", 5), project("SEB-1", "sebastopol", 9)])
        db.flush()
        db.add_all(
            [
                condition("HOME-1", "1", "engineering", "2026-11-03T16:00:00+00:00"),
                condition("HOME-1", "2", "planning", "2026-11-01T16:00:00+00:00"),
                condition("SEB-1", "1", "planning", "2026-11-02T16:00:00+00:00"),
                condition("SEB-1", "2", "fire", "2026-11-04T16:00:00+00:00"),
            ]
        )
    roles = {"cotati": ("department_reviewer", "engineering"), "sebastopol": ("admin", "")}
    with scoped(roles), session_factory(engine)() as db:
        queue = review_queue_in_cities(db, roles, ("department_reviewer", "engineering"), 1, 10)
        second = review_queue_in_cities(db, roles, ("department_reviewer", "engineering"), 2, 2)
        alone = review_queue_in_cities(
            db, {"cotati": roles["cotati"]}, ("department_reviewer", "engineering"), 1, 10
        )
    seen = [(row["project_id"], row["number"]) for row in queue.page.items]
    assert seen == [("SEB-1", "1"), ("HOME-1", "1"), ("SEB-1", "2")]
    assert queue.page.total == 3
    assert [(s.department, s.cities) for s in queue.shares] == [
        ("engineering", ["cotati"]),
        (None, ["sebastopol"]),
    ]
    assert queue.department is None
    assert [(r["project_id"], r["number"]) for r in second.page.items] == [("SEB-1", "2")]
    assert alone.department == "engineering" and alone.page.total == 1
