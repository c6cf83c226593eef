"""Skips for a missing real part (PostgreSQL, Chromium, docker-compose): on a developer's
machine such a test skips and says why; under CI=true the run fails instead
(tests/ci_plugin.py), so CI cannot pass on tests that never ran."""

from __future__ import annotations

MISSING = "missing real part"


def missing(part: str, why: str) -> str:
    """The skip reason for a test that needs `part`; tests/ci_plugin.py recognises it."""
    return f"{MISSING} ({part}): {why}"
