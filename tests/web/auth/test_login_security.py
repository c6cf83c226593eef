"""Log-ins and sessions as an attacker and a user meet them: guessing from one address is
blocked without locking the real user out, counts are shared by every web process (they
live in the database), sessions end when idle and on a password change or reset, and every
cookie is Secure when the app is served over HTTPS."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

import web.auth.login_throttle as throttle_module
from models.database import make_engine, session_factory
from models.schema import WebSession
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
from web.auth.login_throttle import ACCOUNT_ADDRESS_FREE, ADDRESS_FREE, LoginThrottle
from web.context import SESSION_COOKIE

USER = "planner@city.example"


def from_address(address: str, proto: str = "http") -> dict[str, str]:
    """Headers a reverse proxy adds (believed only because the tests trust the client)."""
    return {"X-Forwarded-For": address, "X-Forwarded-Proto": proto}


@pytest.fixture
def settings(tmp_path: Path):
    settings = standalone_settings(tmp_path, trusted_proxies="testclient")
    add_user(settings, USER)
    return settings


@pytest.fixture(autouse=True)
def short_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    # The account-wide slow-down is checked on its own below; here it would only add time.
    monkeypatch.setattr(throttle_module, "MAX_DELAY_S", 0.01)


def test_a_lockout_attempt_does_not_stop_the_real_user(settings) -> None:
    attacker = from_address("203.0.113.66")
    with standalone_client(settings) as client:
        statuses = [
            log_in(client, USER, f"guess-{n}", headers=attacker).status_code for n in range(8)
        ]
        assert statuses == [401] * ACCOUNT_ADDRESS_FREE + [429] * 3
        blocked = log_in(client, USER, PASSWORD, headers=attacker)
        assert blocked.status_code == 429  # not even the right password, from there
        assert int(blocked.headers["Retry-After"]) > 0
        assert "Too many failed log-ins" in blocked.text

        client.cookies.clear()
        user = log_in(client, USER, PASSWORD, headers=from_address("198.51.100.7"))
        assert user.status_code == 303, user.text
        client.cookies.set(SESSION_COOKIE, session_token(user))
        assert client.get("/me").status_code == 200


def test_the_count_is_shared_by_every_web_process(settings) -> None:
    attacker = from_address("203.0.113.67")
    with standalone_client(settings) as first, standalone_client(settings) as second:
        for n in range(ACCOUNT_ADDRESS_FREE):
            client = first if n % 2 else second
            assert log_in(client, USER, f"guess-{n}", headers=attacker).status_code == 401
        assert log_in(first, USER, "again", headers=attacker).status_code == 429
        assert log_in(second, USER, "again", headers=attacker).status_code == 429


def test_one_address_guessing_across_accounts_is_blocked(
    settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    free = 8  # fewer than the shipped ADDRESS_FREE, so the test is quick; same rule
    assert free < ADDRESS_FREE
    monkeypatch.setattr(throttle_module, "ADDRESS_FREE", free)
    sprayer = from_address("203.0.113.68")
    with standalone_client(settings) as client:
        statuses = [
            log_in(client, f"user{n}@city.example", "Winter2027!", headers=sprayer).status_code
            for n in range(free + 1)
        ]
        assert statuses == [401] * free + [429]
        # The real user elsewhere is not affected.
        client.cookies.clear()
        assert log_in(client, USER, headers=from_address("198.51.100.8")).status_code == 303


def test_a_forged_forwarded_for_does_not_reset_the_count(tmp_path: Path) -> None:
    """Without a trusted proxy, X-Forwarded-For is ignored: an attacker cannot claim a new
    address per guess."""
    settings = standalone_settings(tmp_path)
    add_user(settings, USER)
    with standalone_client(settings) as client:
        statuses = [
            log_in(client, USER, "guess", headers=from_address(f"192.0.2.{n}")).status_code
            for n in range(ACCOUNT_ADDRESS_FREE + 1)
        ]
    assert statuses[-1] == 429


def test_many_addresses_slow_down_the_account_but_never_block_it(settings) -> None:
    throttle = LoginThrottle(make_engine(settings.database_url))
    moment = now()
    for n in range(throttle_module.ACCOUNT_FREE + 4):
        throttle.failed(USER, f"203.0.113.{n}", moment)
    verdict = throttle.check(USER, "198.51.100.9", moment)
    assert verdict.wait_s <= 0 and verdict.delay_s > 0
    throttle.succeeded(USER, "198.51.100.9")
    assert throttle.check(USER, "198.51.100.9", moment).delay_s == 0


def test_blocks_grow_with_each_further_failure_and_are_capped() -> None:
    free = ACCOUNT_ADDRESS_FREE
    blocks = [throttle_module.block_for(n, free) for n in range(1, free + 12)]
    assert all(b == timedelta(0) for b in blocks[: free - 1])
    assert blocks[free - 1] == throttle_module.FIRST_BLOCK
    assert blocks[free] == 2 * throttle_module.FIRST_BLOCK
    assert blocks[-1] == throttle_module.MAX_BLOCK


def test_an_idle_session_ends(settings) -> None:
    with standalone_client(settings) as client:
        token = session_token(log_in(client, USER))
        assert client.get("/me", follow_redirects=False).status_code == 200
        engine = make_engine(settings.database_url)
        with session_factory(engine).begin() as s:
            s.execute(
                update(WebSession).values(
                    last_seen_at=now() - timedelta(minutes=settings.session_idle_minutes + 1)
                )
            )
        gone = client.get("/me", follow_redirects=False)
        assert gone.status_code == 303 and gone.headers["location"].startswith("/login")
        with session_factory(engine)() as s:
            assert s.scalar(select(WebSession)) is None  # removed, not just refused
        assert Accounts(engine).session_for(token) is None


def test_a_session_in_use_stays_alive(settings) -> None:
    with standalone_client(settings) as client:
        log_in(client, USER)
        engine = make_engine(settings.database_url)
        almost = now() - timedelta(minutes=settings.session_idle_minutes - 1)
        with session_factory(engine).begin() as s:
            s.execute(update(WebSession).values(last_seen_at=almost))
        assert client.get("/me", follow_redirects=False).status_code == 200
        with session_factory(engine)() as s:
            seen = s.scalar(select(WebSession.last_seen_at))
        assert seen is not None and seen.replace(tzinfo=None) > almost.replace(tzinfo=None)


def test_a_session_ends_after_a_password_change(settings) -> None:
    with standalone_client(settings) as laptop, standalone_client(settings) as stolen:
        log_in(laptop, USER)
        log_in(stolen, USER)
        assert stolen.get("/me", follow_redirects=False).status_code == 200

        changed = change_password(laptop, "a brand new passphrase", follow_redirects=False)
        assert changed.status_code == 303
        laptop.cookies.set(SESSION_COOKIE, session_token(changed))
        shown = laptop.get("/me")
        assert shown.status_code == 200 and "Password changed" in shown.text

        gone = stolen.get("/me", follow_redirects=False)
        assert gone.status_code == 303 and gone.headers["location"].startswith("/login")
        stolen.cookies.clear()
        assert log_in(stolen, USER, PASSWORD).status_code == 401
        assert log_in(stolen, USER, "a brand new passphrase").status_code == 303


def test_a_wrong_current_password_changes_nothing(settings) -> None:
    with standalone_client(settings) as client:
        log_in(client, USER)
        refused = change_password(client, "a brand new passphrase", "not it")
        assert "Password not changed: the current password is not right" in refused.text
        assert client.get("/me", follow_redirects=False).status_code == 200  # still logged in
    with standalone_client(settings) as other:
        assert log_in(other, USER, PASSWORD).status_code == 303


def test_a_reset_ends_every_session(settings) -> None:
    with standalone_client(settings) as client:
        log_in(client, USER)
        Accounts(make_engine(settings.database_url)).reset_password(USER, "reset by the admin")
        assert client.get("/me", follow_redirects=False).status_code == 303


def _set_cookie_headers(response) -> list[str]:
    return response.headers.get_list("set-cookie")


def test_every_cookie_is_secure_over_https(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path, public_url="https://clearance.city.example")
    add_user(settings, USER)
    with standalone_client(settings, base_url="https://testserver") as client:
        page = client.get("/login")
        login = client.post(
            "/login",
            data={"email": USER, "password": PASSWORD, "csrf_token": csrf_of(page.text)},
            follow_redirects=False,
        )
        me = client.get("/me")
        flash = client.post(
            "/me/calendar", data={"csrf_token": csrf_of(me.text)}, follow_redirects=False
        )
    cookies = [*_set_cookie_headers(page), *_set_cookie_headers(login), *_set_cookie_headers(flash)]
    names = {c.split("=", 1)[0] for c in cookies}
    assert {"clearance_login", "clearance_session", "clearance_flash"} <= names
    for cookie in cookies:
        assert "secure" in cookie.lower() and "httponly" in cookie.lower(), cookie


def test_https_through_a_trusted_proxy_makes_cookies_secure(settings) -> None:
    with standalone_client(settings) as client:
        plain = client.get("/login")
        proxied = client.get("/login", headers=from_address("198.51.100.10", "https"))
    assert "secure" not in plain.headers["set-cookie"].lower()
    assert "secure" in proxied.headers["set-cookie"].lower()
