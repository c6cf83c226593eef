"""The models and the Alembic migrations agree, on SQLite and on PostgreSQL; migrations
go down and up again; a database made before migrations existed keeps its rows; two
processes starting at once both find the schema at head."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, inspect, select, text

from models.database import (
    BASELINE_REVISION,
    alembic_config,
    current_revision,
    head_revision,
    make_engine,
    upgrade_schema,
)
from models.schema import Application, AuditRow, Base, ClockEventRow, Notice, Project
from models.schema import ConditionRow as Condition
from models.search import is_search_object
from settings import PROJECT_ROOT

# What the release before migrations made with `create_all` (models/schema.py at that time).
PRE_MIGRATION_TABLES = [
    Application.__table__,
    ClockEventRow.__table__,
    Notice.__table__,
    Project.__table__,
    Condition.__table__,
    AuditRow.__table__,
]


def _not_search(name: str | None) -> bool:
    # The search index's FTS5 tables (SQLite) and GIN indexes (PostgreSQL), migration
    # 0015, are no models (models/search.py).
    return not is_search_object(name)


def differences(engine: Engine) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "include_name": lambda name, _kind, _parent: _not_search(name),
            },
        )
        return compare_metadata(context, Base.metadata)


def app_tables(engine: Engine) -> set[str]:
    names = set(inspect(engine).get_table_names()) - {"alembic_version"}
    return {name for name in names if _not_search(name)}


def test_models_and_migrations_agree(any_database_url: str) -> None:
    engine = make_engine(any_database_url)
    try:
        assert current_revision(engine) == head_revision()
        assert app_tables(engine) == set(Base.metadata.tables)
        assert differences(engine) == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_up_again(any_database_url: str) -> None:
    engine = make_engine(any_database_url)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
        assert app_tables(engine) == set()
        assert current_revision(engine) is None
        assert upgrade_schema(engine) == head_revision()
        assert app_tables(engine) == set(Base.metadata.tables)
        assert differences(engine) == []
    finally:
        engine.dispose()


def test_a_pre_migration_database_keeps_its_rows(any_database_url: str) -> None:
    # The previous release: create_all of its tables, no alembic_version, a clock in it.
    old = create_engine(any_database_url)
    now = datetime(2026, 11, 20, tzinfo=UTC)
    with old.begin() as connection:
        Base.metadata.create_all(connection, tables=PRE_MIGRATION_TABLES)
        connection.execute(
            Application.__table__.insert().values(
                application_id="WTF-2026-014",
                workflow_id="shot-clock-WTF-2026-014",
                jurisdiction="City of Cotati",
                category="macro_collocation",
                batch=[],
                site_address="201 W Sierra Ave",
                description="",
                applicant_name="",
                applicant_email="siteacq@carrier.example",
                planner_email="planner@cotati.example",
                supervisor_email="",
                attorney_email="",
                status="running",
                shot_clock_date="2027-02-18",
                tolled_days=0,
                risk_flagged=False,
                clock={"status": "running"},
                created_at=now,
                updated_at=now,
            )
        )
    old.dispose()

    engine = make_engine(any_database_url)
    try:
        with engine.connect() as connection:
            version = connection.execute(text("SELECT version_num FROM alembic_version"))
            assert version.scalar_one() == head_revision()
            row = connection.execute(select(Application.__table__)).one()
        assert (row.application_id, row.shot_clock_date) == ("WTF-2026-014", "2027-02-18")
        assert app_tables(engine) == set(Base.metadata.tables)
        assert differences(engine) == []
    finally:
        engine.dispose()


def test_the_baseline_is_the_first_migration() -> None:
    config = alembic_config()
    from alembic.script import ScriptDirectory

    revisions = list(ScriptDirectory.from_config(config).walk_revisions())
    assert revisions[-1].revision == BASELINE_REVISION
    assert revisions[-1].down_revision is None


def test_two_processes_migrating_at_once_both_succeed(any_database_url: str) -> None:
    # The worker and the web app start together on an empty database: one migrates (under
    # PostgreSQL's advisory lock, or a lock file for SQLite), the other finds it at head.
    script = (
        "import sys; from models.database import make_engine, current_revision; "
        "print(current_revision(make_engine(sys.argv[1])))"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, any_database_url],
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [process.communicate(timeout=120) for process in processes]
    for process, (out, err) in zip(processes, results, strict=True):
        assert process.returncode == 0, err
        assert out.strip() == head_revision()
    engine = create_engine(any_database_url)
    try:
        assert differences(engine) == []
    finally:
        engine.dispose()


def test_clocks_recorded_before_the_window_column_keep_their_windows(
    any_database_url: str,
) -> None:
    # 0009 fills each application's next notice window closing from its recorded clock,
    # so the inboxes, which search by it, still list the windows of clocks recorded before.
    engine = make_engine(any_database_url)
    now = datetime(2026, 12, 4, tzinfo=UTC)
    windows = [
        {"kind": "reset_notice", "closes": "2026-12-01", "state": "used"},
        {"kind": "first_notice", "closes": "2026-12-20", "state": "open"},
        {"kind": "later_notice", "closes": "2026-12-11", "state": "open"},
    ]
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0008")
        assert "notice_window_closes" not in {
            c["name"] for c in inspect(engine).get_columns("applications")
        }
        with engine.begin() as connection:
            for application_id, clock in [
                ("WTA-1", {"status": "running", "notice_windows": windows}),
                ("WTA-2", {"status": "running", "notice_windows": windows[:1]}),
                ("WTA-3", {"status": "running"}),
            ]:
                connection.execute(
                    text(
                        "INSERT INTO applications (application_id, workflow_id, jurisdiction,"
                        " category, batch, site_address, description, applicant_name,"
                        " applicant_email, planner_email, supervisor_email, attorney_email,"
                        " status, tolled_days, risk_flagged, clock, created_at, updated_at)"
                        " VALUES (:id, :id, 'City of Cotati', 'small_wireless', '[]', '', '',"
                        " '', '', '', '', '', 'running', 0, false, :clock, :now, :now)"
                    ),
                    {"id": application_id, "clock": json.dumps(clock), "now": now},
                )
        assert upgrade_schema(engine) == head_revision()
        with engine.connect() as connection:
            closes = {
                application_id: (first, last)
                for application_id, first, last in connection.execute(
                    select(
                        Application.application_id,
                        Application.notice_window_closes,
                        Application.notice_window_last_closes,
                    )
                )
            }
        assert closes == {
            "WTA-1": ("2026-12-11", "2026-12-20"),
            "WTA-2": (None, None),
            "WTA-3": (None, None),
        }
        assert differences(engine) == []
    finally:
        engine.dispose()


def test_tokens_made_before_their_limits_act_and_expire_in_90_days(
    any_database_url: str,
) -> None:
    # 0010 gives each token made before it the act scope (all it could do) and an expiry
    # 90 days from the migration (docs/security.md): it keeps working until then.
    from web.auth.accounts import Accounts
    from web.auth.security import token_hash

    engine = make_engine(any_database_url)
    made = datetime(2026, 1, 5, tzinfo=UTC)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0009")
        assert "expires_at" not in {c["name"] for c in inspect(engine).get_columns("api_tokens")}
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO users (id, email, password_hash, role, department,"
                    " display_name, active, created_at) VALUES (7, 'old@city.example', 'x',"
                    " 'planning_manager', '', '', true, :made)"
                ),
                {"made": made},
            )
            for secret, revoked in [("old-live-token", None), ("old-revoked-token", made)]:
                connection.execute(
                    text(
                        "INSERT INTO api_tokens (token_hash, user_id, label, created_at,"
                        " revoked_at) VALUES (:hash, 7, 'laptop', :made, :revoked)"
                    ),
                    {"hash": token_hash(secret), "made": made, "revoked": revoked},
                )
        migrated_at = datetime.now(UTC)
        assert upgrade_schema(engine) == head_revision()
        assert differences(engine) == []
        accounts = Accounts(engine)
        [live, revoked_row] = sorted(accounts.api_tokens(7), key=lambda t: t.revoked_at is None)[
            ::-1
        ]
        assert (live.scope, live.state, live.last_used_at) == ("act", "active", None)
        assert live.expires_at is not None
        assert abs(live.expires_at - migrated_at - timedelta(days=90)) < timedelta(minutes=5)
        assert revoked_row.state == "revoked"
        use = accounts.use_api_token("old-live-token")
        assert use.user is not None and use.user.email == "old@city.example"
        assert use.scope == "act"
        assert accounts.use_api_token("old-revoked-token").user is None
    finally:
        engine.dispose()


def test_idempotency_keys_are_one_per_user_and_key_from_0011(any_database_url: str) -> None:
    # 0011 adds the table where a request's first outcome is kept under its idempotency
    # key, and the row /readyz writes; going down removes both, and up brings them back.
    from sqlalchemy.exc import IntegrityError

    engine = make_engine(any_database_url)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0010")
        assert not {"idempotency_keys", "readiness_probe"} & app_tables(engine)
        assert upgrade_schema(engine) == head_revision()
        assert differences(engine) == []
        row = (
            "INSERT INTO idempotency_keys (scope, idem_key, fingerprint, method, path, state,"
            " created_at) VALUES (:scope, 'k', 'f', 'POST', '/x', 'running', :at)"
        )
        at = datetime.now(UTC)
        with engine.begin() as connection:
            connection.execute(text(row), {"scope": "user:1", "at": at})
            connection.execute(text(row), {"scope": "user:2", "at": at})  # another user's
        try:
            with engine.begin() as connection:
                connection.execute(text(row), {"scope": "user:1", "at": at})
            raise AssertionError("a second row for one user's key was stored")
        except IntegrityError:
            pass
    finally:
        engine.dispose()


def insert_old_condition(connection: Any, status: str) -> None:
    """A project OLD-1 with one condition, as rows written before a migration."""
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
            f" 'requirement', '{status}', false, '', '[]', '[]', '[]', '[]')"
        )
    )


def test_conditions_imported_before_pages_keep_their_rows(any_database_url: str) -> None:
    # 0012 adds where a condition was printed, the parse's confidence and its evidence;
    # conditions imported before it keep their rows, with those unknown.
    engine = make_engine(any_database_url)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0017")
        assert "page" not in {c["name"] for c in inspect(engine).get_columns("conditions")}
        with engine.begin() as connection:
            insert_old_condition(connection, "open")
        assert upgrade_schema(engine) == head_revision()
        assert differences(engine) == []
        with engine.connect() as connection:
            row = connection.execute(select(Condition)).one()
        assert (row.number, row.page, row.confidence, row.parse_evidence) == ("1", None, None, None)
    finally:
        engine.dispose()
