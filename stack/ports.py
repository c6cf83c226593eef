"""Free local TCP ports for the servers the project starts (Temporal, PostgreSQL, SMTP,
the web app, the test identity provider)."""

from __future__ import annotations

import random
import socket
from pathlib import Path

# Where Linux keeps the range it hands out to outgoing connections and to `bind(0)`.
_EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LINUX_DEFAULT = (32768, 60999)
# Below this sit the well-known and registered services a developer may run.
_LOWEST = 10000
_pick = random.Random()  # never the seeded global generator some tests set


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = (int(part) for part in _EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return _LINUX_DEFAULT
    return low, high


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port nothing holds now, chosen outside the kernel's ephemeral range.

    A port from `bind(0)` lies inside that range, so between choosing it and the server
    binding it any outgoing connection (a Temporal dev server's internal services, a
    database client) may take it as its own local port, and the server fails with
    "Address already in use". Ports outside the range are only ever taken on purpose."""
    low, high = _ephemeral_range()
    outside = [p for p in (*range(_LOWEST, low), *range(high + 1, 65536)) if p >= _LOWEST]
    for port in _pick.sample(outside, min(len(outside), 200)):
        if _bindable(port):
            return port
    with socket.socket() as s:  # a machine that made every port ephemeral
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0
