"""The embedded dev server keeps its SQLite file in write-ahead-log mode (the 08:00 storm
benchmark's finding), still durable on every commit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client

from stack.ports import free_port
from stack.temporal_server import (
    DYNAMIC_CONFIG,
    GO_RUNTIME_DEFAULTS,
    DevServer,
    server_environment,
)


async def test_the_dev_server_file_is_in_wal_mode_and_keeps_every_commit_durable(
    tmp_path: Path,
) -> None:
    server = DevServer(tmp_path / "temporal.db", port=free_port(), ui_port=None)
    assert server.command().count("--sqlite-pragma") == 2
    server.start()
    try:
        client = await Client.connect(server.address)
        # The server answers on its file (it wrote its namespaces there).
        await client.workflow_service.get_system_info(GetSystemInfoRequest())
        with sqlite3.connect(tmp_path / "temporal.db") as db:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert (tmp_path / "temporal.db-wal").exists()
        assert "synchronous=full" in server.command()
        # One host: one matching partition per task queue (docs/storm.md, item 7).
        for value in DYNAMIC_CONFIG:
            assert value in server.command()
    finally:
        server.stop()


def test_the_dev_server_runs_with_the_measured_garbage_collector_settings(tmp_path: Path) -> None:
    server = DevServer(
        tmp_path / "temporal.db", port=free_port(), ui_port=None, env={"GODEBUG": "gctrace=1"}
    )
    server.start()
    try:
        assert server._process is not None
        environ = Path(f"/proc/{server._process.pid}/environ").read_bytes().split(b"\0")
        for name, value in GO_RUNTIME_DEFAULTS.items():
            assert f"{name}={value}".encode() in environ
        assert b"GODEBUG=gctrace=1" in environ
    finally:
        server.stop()
    # The collector's trace went to the server's log: the extra environment reached Go.
    assert "gc 1 @" in server.log_file.read_text()


def test_an_operators_own_garbage_collector_settings_win() -> None:
    env = server_environment({"GOGC": "100", "PATH": "/bin"}, {"GODEBUG": "gctrace=1"})
    assert env == {
        "GOGC": "100",
        "GOMEMLIMIT": GO_RUNTIME_DEFAULTS["GOMEMLIMIT"],
        "PATH": "/bin",
        "GODEBUG": "gctrace=1",
    }
