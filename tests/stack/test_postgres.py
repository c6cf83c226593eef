"""The throwaway PostgreSQL cluster: created, started, restarted and stopped from the
installed server binaries, as root (CI) through the `postgres` system user."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from settings import PROJECT_ROOT
from stack.postgres import PostgresCluster, ensure_server_user, find_pg_bin_dir
from tests.real_parts import missing

pytestmark = pytest.mark.skipif(
    find_pg_bin_dir() is None,
    reason=missing(
        "PostgreSQL",
        "no PostgreSQL server installed (initdb not on PATH nor in /usr/lib/postgresql)",
    ),
)


def _connect(url: str) -> psycopg.Connection:
    return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> PostgresCluster:
    with PostgresCluster(tmp_path_factory.mktemp("pg") / "cluster") as running:
        yield running


def test_finds_the_server_binaries() -> None:
    folder = find_pg_bin_dir()
    assert folder is not None
    for name in ("initdb", "pg_ctl", "postgres"):
        assert (folder / name).exists()


def test_a_database_keeps_its_rows_across_a_restart(cluster: PostgresCluster) -> None:
    url = cluster.create_database("keeps_rows")
    assert url == f"postgresql+psycopg://postgres@127.0.0.1:{cluster.port}/keeps_rows"
    with _connect(url) as conn:
        conn.execute("CREATE TABLE clocks (id text PRIMARY KEY)")
        conn.execute("INSERT INTO clocks VALUES ('WTF-2026-014')")
    cluster.restart()
    assert cluster.running
    with _connect(url) as conn:
        assert conn.execute("SELECT id FROM clocks").fetchall() == [("WTF-2026-014",)]
        # The fast test settings are in force.
        assert conn.execute("SHOW fsync").fetchone() == ("off",)
    cluster.drop_database("keeps_rows")


def test_drop_database_ends_open_sessions(cluster: PostgresCluster) -> None:
    url = cluster.create_database("dropped")
    with _connect(url) as open_session:
        cluster.drop_database("dropped")
        with pytest.raises(psycopg.OperationalError):
            open_session.execute("SELECT 1")
    with _connect(cluster.url()) as conn:
        names = [row[0] for row in conn.execute("SELECT datname FROM pg_database")]
    assert "dropped" not in names
    cluster.drop_database("dropped")  # absent: no error


def test_a_bad_database_name_is_refused(cluster: PostgresCluster) -> None:
    with pytest.raises(ValueError, match="invalid database name 'x; DROP'"):
        cluster.create_database("x; DROP")


def test_stop_then_start_in_another_process_finds_the_same_port(tmp_path: Path) -> None:
    root = tmp_path / "shell"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}

    def shell(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "stack.postgres", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=PROJECT_ROOT,
        )

    missing = shell("url", str(root))
    assert missing.returncode == 1 and "no cluster in" in missing.stderr
    started = shell("start", str(root))
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip()
    try:
        cluster = PostgresCluster(root)
        assert cluster.running
        assert shell("url", str(root), "--database", "app").stdout.strip() == cluster.url("app")
        with _connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        stopped = shell("stop", str(root))
    assert stopped.returncode == 0, stopped.stderr
    assert not PostgresCluster(root).running
    with pytest.raises(psycopg.OperationalError):
        _connect(url)
    data_dir = PostgresCluster(root).data_dir
    assert (data_dir / "PG_VERSION").exists()  # stopped, not deleted
    destroyed = shell("destroy", str(root))
    assert destroyed.returncode == 0, destroyed.stderr
    assert not data_dir.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only as root: the server runs as 'postgres'")
def test_as_root_the_server_runs_as_the_postgres_user(cluster: PostgresCluster) -> None:
    owner = pwd.getpwuid(cluster.data_dir.stat().st_uid).pw_name
    assert owner == "postgres"
    with _connect(cluster.url()) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        # The backend serving us is a process of the postgres user, not root.
        assert pwd.getpwuid(os.stat(f"/proc/{pid}").st_uid).pw_name == "postgres"


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None,
    reason="only as root with useradd: creates and removes a system user",
)
def test_the_server_user_is_created_when_missing() -> None:
    name = f"pgtest{uuid.uuid4().hex[:8]}"
    with pytest.raises(KeyError):
        pwd.getpwnam(name)
    try:
        created = ensure_server_user(name)
        assert created.pw_name == name
        assert created.pw_shell == "/usr/sbin/nologin"
        assert ensure_server_user(name).pw_uid == created.pw_uid  # existing: reused
    finally:
        subprocess.run(["userdel", name], capture_output=True)
    with pytest.raises(KeyError):
        pwd.getpwnam(name)


@pytest.mark.skipif(os.geteuid() != 0, reason="only as root: the server runs as 'postgres'")
def test_the_server_keeps_running_when_its_folder_becomes_private(tmp_path: Path) -> None:
    # pytest makes /tmp/pytest-of-root 0700 again whenever a session starts, even while
    # another session's cluster runs: the server's files must not depend on that path.
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    cluster = PostgresCluster(private / "cluster")
    with cluster:
        private.chmod(0o700)
        url = cluster.create_database("still_here")
        with _connect(url) as conn:
            conn.execute("CHECKPOINT")
            assert conn.execute("SELECT 1").fetchone() == (1,)
        home = cluster.home
        assert home.exists() and not home.is_relative_to(private)
    assert not home.exists()  # a cluster made by the block is thrown away with it


@pytest.mark.skipif(os.geteuid() != 0, reason="only as root: the files live outside the folder")
def test_files_of_a_stopped_cluster_whose_folder_is_gone_are_swept(tmp_path: Path) -> None:
    left_behind = PostgresCluster(tmp_path / "left-behind")
    left_behind.start()
    left_behind.stop()  # stopped, never removed
    home = left_behind.home
    shutil.rmtree(tmp_path / "left-behind")  # as pytest does with old temporary folders
    assert home.exists()
    with PostgresCluster(tmp_path / "next"):
        assert not home.exists()
