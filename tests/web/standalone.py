"""The web app on its own SQLite database with no Temporal server behind it: for what
is decided before any workflow is asked (request limits, log-ins, sessions, cookies)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from settings import Settings, load_settings
from tests.web.helpers import csrf_of
from web.app import create_app
from web.auth.accounts import Accounts
from web.context import SESSION_COOKIE

PASSWORD = "correct horse battery"


def standalone_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path / "var",
        "database_url": f"sqlite:///{tmp_path / 'app.db'}",
        # Nothing listens here: an action that needed Temporal would say it is unreachable.
        "temporal_address": "127.0.0.1:9",
        "secret_key": "standalone-tests-secret",
        "public_url": "http://testserver",
    }
    return dataclasses.replace(load_settings(), **{**values, **overrides})


def standalone_client(settings: Settings, **kwargs: Any) -> TestClient:
    kwargs.setdefault("base_url", "http://testserver")
    return TestClient(create_app(settings), **kwargs)


def add_user(settings: Settings, email: str, role: str = "project_manager") -> None:
    from models.database import make_engine

    Accounts(make_engine(settings.database_url)).add_user(email, role, PASSWORD)


def log_in(
    client: TestClient,
    email: str,
    password: str = PASSWORD,
    headers: dict[str, str] | None = None,
) -> Any:
    """Post the log-in form as a browser would (its CSRF cookie and token); the response."""
    page = client.get("/login", headers=headers)
    return client.post(
        "/login",
        data={"email": email, "password": password, "csrf_token": csrf_of(page.text)},
        headers=headers,
        follow_redirects=False,
    )


def session_token(response: Any) -> str:
    return str(response.cookies[SESSION_COOKIE])


def change_password(client: TestClient, new: str, current: str = PASSWORD, **kwargs: Any) -> Any:
    """Post the /me password form as the signed-in user would; the response."""
    page = client.get("/me")
    return client.post(
        "/me/password",
        data={
            "csrf_token": csrf_of(page.text),
            "current_password": current,
            "new_password": new,
            "new_password_again": new,
        },
        **kwargs,
    )
