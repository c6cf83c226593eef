"""The embedded dev server keeps its SQLite file in write-ahead-log mode (the 08:00 storm
benchmark's finding), still durable on every commit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client

from stack.temporal_server import DYNAMIC_CONFIG, DevServer, free_port


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
