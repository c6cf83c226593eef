"""`clearance web` uses the machine's cores unless told otherwise."""

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
