"""A locked or unreachable database: every page, log-in included, answers 503 with
Retry-After (never a bare 500); an action says its outcome is unknown and where to check;
/readyz tests a write, so a locked database is "not ready"."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient

from models.database import make_engine
from settings import Settings
from tests.web.helpers import csrf_of
from tests.web.standalone import (
    PASSWORD,
    add_user,
    log_in,
    standalone_client,
    standalone_settings,
)
from web.app import create_app
from web.auth.accounts import Accounts

PM = "pm@outage.example"


@contextmanager
def locked(settings: Settings) -> Iterator[None]:
    """Another process's write transaction holds SQLite's write lock."""
    path = settings.database_url.removeprefix("sqlite:///")
    holder = sqlite3.connect(path, isolation_level=None, timeout=1)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO readiness_probe (id, checked_at) VALUES (99, '2026-01-01')")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_locked_database_answers_503_with_retry_after(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path)
    add_user(settings, PM)
    token = Accounts(make_engine(settings.database_url)).new_api_token(PM, "outage")
    with standalone_client(settings) as client:
        assert client.get("/readyz").json()["database"] == "ok"
        with locked(settings):
            login = log_in(client, PM, PASSWORD)
            assert login.status_code == 503, login.text
            assert int(login.headers["retry-after"]) > 0
            assert "database is locked" in login.text and "try again" in login.text

            made = client.post(
                "/api/v1/links",
                json={"scope": "project", "scope_id": "P-9"},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "outage-1"},
            )
            assert made.status_code == 503, made.text
            assert made.headers["retry-after"]
            answer = made.json()
            assert answer["error"].startswith("outcome unknown: check before retrying")
            assert (answer["outcome"], answer["check"]) == ("unknown", "/api/v1/links")

            ready = client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["ready"] is False
            assert ready.json()["database"].startswith("cannot write: database is locked")
        # The lock gone, the same key acts (the failed attempt was not stored as done):
        # here the rules answer, refusing a project that does not exist.
        retried = client.post(
            "/api/v1/links",
            json={"scope": "project", "scope_id": "P-9"},
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "outage-1"},
        )
        assert retried.status_code == 400, retried.text
        assert "no project 'P-9'" in retried.json()["error"]
        assert log_in(client, PM, PASSWORD).status_code == 303
        assert client.get("/readyz").json()["database"] == "ok"


def test_a_database_that_is_gone_answers_503_on_every_page(tmp_path: Path) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    settings = standalone_settings(tmp_path, database_url=f"sqlite:///{folder / 'app.db'}")
    add_user(settings, PM)
    app = create_app(settings)
    with TestClient(app, base_url="http://testserver") as client:
        anonymous = TestClient(app, base_url="http://testserver")
        assert log_in(client, PM, PASSWORD).status_code == 303
        login_form = anonymous.get("/login")
        shutil.rmtree(folder)  # the disk holding it went away
        app.state.ctx.engine.dispose()  # and no connection is left open on it
        for path in ("/", "/projects", "/me/tokens", "/api/v1/projects"):
            answer = client.get(path)
            assert answer.status_code == 503, (path, answer.status_code, answer.text[:200])
            assert answer.headers["retry-after"], path
            assert "unable to open database file" in answer.text, path
        assert client.get("/login").status_code == 503  # it looks up the session
        login = anonymous.post(
            "/login",
            data={"email": PM, "password": PASSWORD, "csrf_token": csrf_of(login_form.text)},
            follow_redirects=False,
        )
        assert login.status_code == 503, login.text
        assert login.headers["retry-after"]
