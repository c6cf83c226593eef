"""In production the public URL goes into every applicant's portal link: one that points
at this machine reaches nobody, so the app refuses to start, in one line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from settings import load_settings


@pytest.mark.parametrize(
    "url", ["http://localhost:8000", "http://127.0.0.1", "https://app.localhost", ""]
)
def test_production_refuses_a_local_public_url(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("CLEARANCE_ENVIRONMENT", "production")
    if url:
        monkeypatch.setenv("CLEARANCE_PUBLIC_URL", url)
    else:  # not set at all: the localhost default
        monkeypatch.delenv("CLEARANCE_PUBLIC_URL", raising=False)
    with pytest.raises(ValueError, match="^CLEARANCE_PUBLIC_URL is .*not localhost$"):
        load_settings()


def test_production_takes_the_city_address_and_development_takes_localhost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLEARANCE_ENVIRONMENT", "production")
    monkeypatch.setenv("CLEARANCE_PUBLIC_URL", "https://permits.cotati.example")
    assert load_settings().public_url == "https://permits.cotati.example"
    monkeypatch.setenv("CLEARANCE_ENVIRONMENT", "development")
    monkeypatch.setenv("CLEARANCE_PUBLIC_URL", "http://localhost:8000")
    assert load_settings().public_url == "http://localhost:8000"


def test_the_web_command_stops_with_one_line(tmp_path: object) -> None:
    env = {**os.environ, "CLEARANCE_ENVIRONMENT": "production", "CLEARANCE_PUBLIC_URL": ""}
    env.pop("CLEARANCE_PUBLIC_URL")
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "web"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "CLEARANCE_PUBLIC_URL" in lines[0], done.stderr
