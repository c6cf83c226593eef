"""No browser or proxy keeps what a session, a token or a portal link showed
(`Cache-Control: no-store`); the public stylesheet and icon may be cached."""

from __future__ import annotations

from pathlib import Path

from models.database import make_engine
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.auth.accounts import Accounts

EMAIL = "pm@cache.example"


def test_signed_in_pages_and_api_answers_are_not_stored(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path)
    add_user(settings, EMAIL)
    with standalone_client(settings) as client:
        assert log_in(client, EMAIL).status_code == 303
        for path in ("/", "/projects", "/me/tokens", "/api/v1/projects", "/api/v1/me"):
            response = client.get(path)
            assert response.status_code == 200, (path, response.text)
            assert response.headers["cache-control"] == "no-store", path
        # Refusals and the log-in page too: they vary with the cookie.
        assert client.get("/projects/NO-SUCH").headers["cache-control"] == "no-store"

    token = Accounts(make_engine(settings.database_url)).new_api_token(EMAIL, "cache test")
    with standalone_client(settings) as anonymous:
        answer = anonymous.get("/api/v1/projects", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text
        assert answer.headers["cache-control"] == "no-store"
        assert anonymous.get("/login").headers["cache-control"] == "no-store"
        # A portal link (here one that does not exist) is answered no-store as well.
        assert anonymous.get("/a/not-a-link").headers["cache-control"] == "no-store"


def test_the_public_static_files_may_be_cached(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path)
    add_user(settings, EMAIL)
    with standalone_client(settings) as client:
        log_in(client, EMAIL)  # even with the session cookie: the file is the same for all
        for path in ("/static/app.css", "/favicon.ico"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert "no-store" not in response.headers.get("cache-control", ""), path
            assert response.headers["x-content-type-options"] == "nosniff"
