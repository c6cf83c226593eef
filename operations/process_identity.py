"""Which process holds a piece of work, so another process can tell at once whether the
holder died (and its work may be taken over) instead of waiting out a lease.

An identity is "<host>:<pid>:<start time>": the start time tells a live process from a
later one given the same pid. A holder on another host cannot be checked from here and
counts as alive (the lease still ends its claim)."""

from __future__ import annotations

import os
import socket
from functools import cache

import psutil


@cache
def this_process() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{psutil.Process(pid).create_time():.2f}"


def holder_alive(holder: str | None) -> bool:
    """False only when the holder is known to be gone: a process of this host that no
    longer runs (or whose pid now belongs to a later process)."""
    parts = (holder or "").rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname():
        return True
    _host, pid_text, started = parts
    try:
        pid = int(pid_text)
        return f"{psutil.Process(pid).create_time():.2f}" == started
    except (ValueError, psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    except psutil.Error:
        return True  # not ours to look at: not known to be gone
