"""Worker and web process settings read from the environment."""

from __future__ import annotations

import os

import pytest

from settings import load_settings


def test_web_processes_default_to_the_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLEARANCE_WEB_WORKERS", raising=False)
    assert load_settings().web_processes == len(os.sched_getaffinity(0))


def test_web_workers_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLEARANCE_WEB_WORKERS", "3")
    assert load_settings().web_processes == 3


def test_sticky_queue_timeout_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS", raising=False)
    # Chosen by bench/sticky_recovery.py (docs/operations.md, "After a worker crash").
    assert load_settings().sticky_queue_timeout_seconds == 60
    monkeypatch.setenv("CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS", "45.5")
    assert load_settings().sticky_queue_timeout_seconds == 45.5


@pytest.mark.parametrize("raw", ["five minutes", "0", "-10"])
def test_a_bad_sticky_queue_timeout_names_the_setting(
    monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS", raw)
    with pytest.raises(ValueError, match=f"CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS .*{raw!r}"):
        load_settings()


def test_activity_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLEARANCE_ACTIVITY_THREADS", raising=False)
    assert load_settings().activity_threads == 8
    monkeypatch.setenv("CLEARANCE_ACTIVITY_THREADS", "4")
    assert load_settings().activity_threads == 4
    for raw in ("0", "many"):
        monkeypatch.setenv("CLEARANCE_ACTIVITY_THREADS", raw)
        with pytest.raises(ValueError, match=f"CLEARANCE_ACTIVITY_THREADS .*{raw!r}"):
            load_settings()


def test_address_settings_are_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLEARANCE_OPERATOR_EMAIL", "Ops@City.EXAMPLE")
    monkeypatch.delenv("CLEARANCE_MAIL_FROM", raising=False)
    settings = load_settings()
    assert settings.operator_email == "Ops@city.example"
    assert settings.mail_from == "Clearance <clearance@localhost>"

    monkeypatch.setenv("CLEARANCE_OPERATOR_EMAIL", "ops@city.example\r\nBcc: x@y.example")
    with pytest.raises(ValueError, match="^CLEARANCE_OPERATOR_EMAIL: .* not a valid e-mail"):
        load_settings()
    monkeypatch.setenv("CLEARANCE_OPERATOR_EMAIL", "")
    monkeypatch.setenv("CLEARANCE_MAIL_FROM", "Clearance <c@city.example>\nBcc: x@y.example")
    with pytest.raises(ValueError, match="^CLEARANCE_MAIL_FROM: .* line break"):
        load_settings()
