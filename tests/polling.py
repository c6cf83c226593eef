"""Waiting for what happens asynchronously (a workflow reaching the read model, a run
continuing as new), by the clock: a count of attempts gives up early on a loaded
2-core machine, where a single attempt can take seconds."""

from __future__ import annotations

import time
from collections.abc import Iterator

PATIENCE = 60.0


def polls(seconds: float = PATIENCE) -> Iterator[int]:
    """Attempt numbers, for up to `seconds` of wall time (always at least one)."""
    deadline = time.monotonic() + seconds
    attempt = 0
    while attempt == 0 or time.monotonic() < deadline:
        yield attempt
        attempt += 1
