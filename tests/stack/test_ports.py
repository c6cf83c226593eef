"""A server the tests start never loses its port to another process's connection."""

from __future__ import annotations

import socket

from stack.ports import _ephemeral_range, free_port


def test_a_free_port_lies_outside_the_range_outgoing_connections_take() -> None:
    low, high = _ephemeral_range()
    ports = {free_port() for _ in range(50)}
    assert all(not low <= port <= high for port in ports), sorted(ports)
    assert len(ports) > 40  # spread out, so two servers started together do not meet


def test_a_free_port_can_be_bound_and_a_held_one_is_never_offered() -> None:
    held = []
    try:
        for _ in range(20):
            s = socket.socket()
            s.bind(("127.0.0.1", free_port()))
            s.listen()
            held.append(s)
        taken = {s.getsockname()[1] for s in held}
        assert all(free_port() not in taken for _ in range(200))
    finally:
        for s in held:
            s.close()
