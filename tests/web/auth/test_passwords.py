"""The password policy (ASVS L2) as a user meets it: at least 12 characters, common and
breached passwords refused with zxcvbn's warning and suggestions in one line, uncommon
passphrases accepted with no composition rules, on every form and command that sets a
password; stored passwords are not re-checked, so existing accounts still log in."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import update

from models.database import make_engine, session_factory
from models.schema import User
from settings import Settings
from tests.web.helpers import csrf_of
from tests.web.standalone import (
    PASSWORD,
    add_user,
    change_password,
    log_in,
    standalone_client,
    standalone_settings,
)
from web.auth.accounts import AccountError, Accounts
from web.auth.passwords import WeakPassword, check_password
from web.auth.security import hash_password

USER = "planner@city.example"
ADMIN = "admin@city.example"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = standalone_settings(tmp_path)
    add_user(settings, USER)
    add_user(settings, ADMIN, "admin")
    return settings


def test_short_and_common_passwords_are_refused_with_a_reason() -> None:
    with pytest.raises(WeakPassword) as short:
        check_password("password")
    assert str(short.value) == (
        "a password needs at least 12 characters (this one has 8); a few unrelated words "
        "make a good one"
    )
    with pytest.raises(WeakPassword) as common:
        check_password("password1234")
    assert str(common.value).startswith("that password is too easy to guess: ")
    assert "This is a very common password" in str(common.value)
    with pytest.raises(WeakPassword):
        check_password("qwertyuiop123")
    with pytest.raises(WeakPassword) as own:
        check_password("planner@city.example", ["planner@city.example"])
    assert "too easy to guess" in str(own.value)
    assert "\n" not in str(common.value)


def test_uncommon_passphrases_pass_without_composition_rules() -> None:
    for passphrase in ("lantern quietly over seven bridges", "violet tram ledger", PASSWORD):
        assert check_password(passphrase).score >= 3
    # The demo password (README, stack/demo.py) passes too.
    assert check_password("clearance-demo").score >= 3


def test_changing_to_a_weak_password_shows_feedback_and_changes_nothing(
    settings: Settings,
) -> None:
    with standalone_client(settings) as client:
        log_in(client, USER)
        refused = change_password(client, "password1234")
        assert "Password not changed: that password is too easy to guess: " in refused.text
        assert "This is a very common password" in refused.text
        assert "Add another word or two" in refused.text
        assert "at least 12 characters" in client.get("/me").text
    with standalone_client(settings) as other:
        assert log_in(other, USER, "password1234").status_code == 401
        assert log_in(other, USER, PASSWORD).status_code == 303


def test_an_admin_cannot_set_a_weak_password(settings: Settings) -> None:
    with standalone_client(settings) as client:
        log_in(client, ADMIN)
        page = client.get("/admin/users")
        assert "12 characters or more" in page.text
        refused = client.post(
            "/admin/users",
            data={
                "csrf_token": csrf_of(page.text),
                "email": "new@city.example",
                "role": "project_manager",
                "password": "password",
            },
        )
        assert refused.status_code == 400
        assert "Not added: a password needs at least 12 characters" in refused.text
        accepted = client.post(
            "/admin/users",
            data={
                "csrf_token": csrf_of(page.text),
                "email": "new@city.example",
                "role": "project_manager",
                "password": "lantern quietly over seven bridges",
            },
        )
        assert 'class="flash ok"' in accepted.text


def test_a_reset_to_a_weak_password_is_refused_and_keeps_the_old_one(
    settings: Settings,
) -> None:
    accounts = Accounts(make_engine(settings.database_url))
    with pytest.raises(AccountError, match="too easy to guess"):
        accounts.reset_password(USER, "password1234")
    assert accounts.authenticate(USER, PASSWORD) is not None


def test_an_existing_account_with_an_old_short_password_still_logs_in(
    settings: Settings,
) -> None:
    with session_factory(make_engine(settings.database_url)).begin() as db:
        db.execute(
            update(User).where(User.email == USER).values(password_hash=hash_password("oldpass9"))
        )
    with standalone_client(settings) as client:
        assert log_in(client, USER, "oldpass9").status_code == 303
