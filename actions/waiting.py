"""After an update returns, its activity writes the read model a moment later: an action
waits (briefly) so the page or API answer shown next already has the change."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def wait_for(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.05)
