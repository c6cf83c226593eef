"""Personal access tokens with limits, as a script or the CLI meets them: each expires
(90 days unless chosen), a read token reads but cannot act, the last use is recorded and
shown, and every token of an account stops working when its password is changed or reset
or the account is disabled, with a message saying why."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from models.database import make_engine, session_factory
from models.schema import ApiToken
from settings import Settings
from tests.web.helpers import csrf_of
from tests.web.standalone import (
    PASSWORD,
    add_user,
    change_password,
    log_in,
    session_token,
    standalone_client,
    standalone_settings,
)
from web.auth.accounts import Accounts, now
from web.auth.security import token_hash
from web.context import SESSION_COOKIE

USER = "planner@city.example"
NEW_PASSWORD = "lantern quietly over seven bridges"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = standalone_settings(tmp_path)
    add_user(settings, USER)
    return settings


def accounts(settings: Settings) -> Accounts:
    return Accounts(make_engine(settings.database_url))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def make_token(client: TestClient, **body: object) -> dict[str, str]:
    made = client.post("/api/v1/tokens", json={"email": USER, "password": PASSWORD, **body})
    assert made.status_code == 201, made.text
    return dict(made.json())


def works(client: TestClient, token: str) -> bool:
    return client.get("/api/v1/me", headers=bearer(token)).status_code == 200


def refusal(client: TestClient, token: str) -> str:
    answer = client.get("/api/v1/me", headers=bearer(token))
    assert answer.status_code == 401, answer.text
    return str(answer.json()["error"])


def test_a_token_expires_after_90_days_unless_chosen(settings: Settings) -> None:
    with standalone_client(settings) as client:
        made = make_token(client)
        expires = datetime.fromisoformat(made["expires_at"])
        assert abs(expires - (now() + timedelta(days=90))) < timedelta(minutes=1)
        assert made["scope"] == "act"
        week = make_token(client, days=7)
        assert abs(datetime.fromisoformat(week["expires_at"]) - now() - timedelta(days=7)) < (
            timedelta(minutes=1)
        )
        never = client.post(
            "/api/v1/tokens", json={"email": USER, "password": PASSWORD, "days": 100000}
        )
        assert never.status_code == 400
        assert never.json()["error"] == "a token expires after 7, 30, 90, 365 days, not 100000"
    listed = accounts(settings).api_tokens(accounts(settings).get_user(USER).id)  # type: ignore[union-attr]
    assert len(listed) == 2  # the refused one made nothing


def test_an_expired_token_is_refused_saying_it_expired(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client)["token"]
        assert works(client, token)
        with session_factory(make_engine(settings.database_url)).begin() as db:
            db.execute(
                update(ApiToken)
                .where(ApiToken.token_hash == token_hash(token))
                .values(expires_at=now() - timedelta(hours=1))
            )
        why = refusal(client, token)
        assert why.startswith("that token expired on ") and "clearance login" in why
        log_in(client, USER)
        page = client.get("/me/tokens")
        assert 'data-state="expired"' in page.text and "expired on " in page.text


def test_a_read_token_reads_but_cannot_act(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client, scope="read")["token"]
        assert client.get("/api/v1/me", headers=bearer(token)).status_code == 200
        acted = client.post("/api/v1/projects", json={"project_id": "P-1"}, headers=bearer(token))
        assert acted.status_code == 403
        assert acted.json() == {
            "error": "this token has the read scope and cannot act: acting needs a token "
            "with the act scope"
        }
        # An act token gets past the scope check (here to the body's validation).
        actor = make_token(client)["token"]
        tried = client.post("/api/v1/projects", json={"project_id": "P-1"}, headers=bearer(actor))
        assert tried.status_code not in (401, 403)


def test_an_unknown_scope_is_refused(settings: Settings) -> None:
    with standalone_client(settings) as client:
        bad = client.post(
            "/api/v1/tokens", json={"email": USER, "password": PASSWORD, "scope": "admin"}
        )
        assert bad.status_code == 400
        assert bad.json()["error"] == "unknown scope 'admin'; scopes: read, act"


def test_the_last_use_is_recorded_and_shown(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client, label="nightly script")["token"]
        log_in(client, USER)
        row = next(r for r in client.get("/me/tokens").text.split("<tr") if "nightly script" in r)
        assert "never" in row
        assert works(client, token)
        row = next(r for r in client.get("/me/tokens").text.split("<tr") if "nightly script" in r)
        # The instant in city time for the reader, ISO in data-at.
        cell = row.split('data-testid="token-last-used"')[1]
        assert f'data-at="{now():%Y-%m-%d}' in cell[:40] and "never" not in cell[:200]


def test_a_password_change_revokes_every_token(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client)["token"]
        log_in(client, USER)
        changed = change_password(client, NEW_PASSWORD, follow_redirects=False)
        assert changed.status_code == 303
        client.cookies.set(SESSION_COOKIE, session_token(changed))
        assert "personal access tokens were revoked" in client.get("/me").text
        why = refusal(client, token)
        assert why.startswith("that token was revoked when your password was changed on ")
        tokens_page = client.get("/me/tokens").text
        assert "revoked when your password was changed" in tokens_page
        assert "All your tokens are revoked when your password is changed or reset" in tokens_page


def test_a_password_reset_revokes_every_token(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client)["token"]
        accounts(settings).reset_password(USER, NEW_PASSWORD)
        assert "revoked when your password was reset" in refusal(client, token)


def test_a_reset_through_users_add_replace_revokes_every_token(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client)["token"]
        accounts(settings).add_user(USER, "project_manager", NEW_PASSWORD, replace=True)
        assert "revoked when your password was reset" in refusal(client, token)


def test_disabling_the_account_revokes_every_token(settings: Settings) -> None:
    with standalone_client(settings) as client:
        token = make_token(client)["token"]
        accounts(settings).set_active(USER, False)
        assert "revoked when your account was disabled" in refusal(client, token)
        # Enabling it again does not bring the tokens back.
        accounts(settings).set_active(USER, True)
        assert not works(client, token)


def test_the_tokens_page_makes_a_90_day_token_unless_told(settings: Settings) -> None:
    with standalone_client(settings) as client:
        log_in(client, USER)
        page = client.get("/me/tokens")
        assert '<option value="90" selected>90 days</option>' in page.text
        made = client.post(
            "/me/tokens", data={"csrf_token": csrf_of(page.text), "label": "workstation"}
        )
        assert made.status_code == 201
        row = next(r for r in made.text.split("<tr") if "workstation" in r)
        assert f"{now() + timedelta(days=90):%Y-%m-%d}" in row and ">act<" in row
        read = client.post(
            "/me/tokens",
            data={
                "csrf_token": csrf_of(page.text),
                "label": "nightly-reader",
                "scope": "read",
                "days": "7",
            },
        )
        row = next(r for r in read.text.split("<tr") if "nightly-reader" in r)
        assert f"{now() + timedelta(days=7):%Y-%m-%d}" in row and ">read<" in row
        never = client.post(
            "/me/tokens",
            data={"csrf_token": csrf_of(page.text), "label": "forever", "days": "0"},
        )
        assert "No token made: a token expires after 7, 30, 90, 365 days, not 0." in never.text
        assert "forever" not in client.get("/me/tokens").text
