"""`clearance db upgrade|current` as an operator runs them, on the suite's database."""

from __future__ import annotations

from models.database import head_revision
from tests.cli.runner import assert_one_line_error, clean_env, clearance


def test_upgrade_then_current_reports_head(database_url: str) -> None:
    env = clean_env({"CLEARANCE_DATABASE_URL": database_url})
    head = head_revision()

    behind = clearance("db", "current", env=env)
    assert_one_line_error(behind, 3, "revision none", f"the code expects {head}")

    first = clearance("db", "upgrade", env=env)
    assert first.returncode == 0, first
    assert f"migrated from empty to {head} (head)" in first.stdout

    again = clearance("db", "upgrade", env=env)
    assert again.returncode == 0, again
    assert f"already at revision {head} (head)" in again.stdout

    current = clearance("db", "current", env=env)
    assert current.returncode == 0, current
    assert f"revision {head} (head)" in current.stdout


def test_an_unknown_revision_is_refused(database_url: str) -> None:
    env = clean_env({"CLEARANCE_DATABASE_URL": database_url})
    result = clearance("db", "upgrade", "9999", env=env)
    assert_one_line_error(result, 2, "'9999'", "Can't locate revision")


def test_an_unreachable_database_is_one_line_without_the_password() -> None:
    url = "postgresql+psycopg://clearance:s3cret@127.0.0.1:1/clearance"
    result = clearance("db", "current", "--url", url, env=clean_env())
    line = assert_one_line_error(result, 1, "cannot read", "127.0.0.1:1")
    assert "s3cret" not in line
