"""The SMTP transport keeps a thread's connection open for its next letter while it is
fresh, and never lets one letter's envelope or a broken session leak into the next."""

from __future__ import annotations

import dataclasses
import smtplib
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import Engine
from temporalio.testing import ActivityEnvironment

import activities.mail as mail
from activities.mail import SmtpTransport
from activities.notices import NoticeActivities
from models.database import session_factory
from models.schema import Notice
from models.shot_clock import NoticeRequest
from notices.render import NoticeRenderer
from stack.ports import free_port
from tests.activities.fixtures import PLANNER, SUPERVISOR, make_request
from tests.activities.smtp_server import MAIL_FROM, Collector


class ConnectionCollector(Collector):
    """Also notes which connection (the client's address) carried each message, and the
    QUITs it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.peers: list[tuple[str, int]] = []
        self.envelopes: list[list[str]] = []
        self.quits = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.peers.append(session.peer)
        self.envelopes.append(sorted(envelope.rcpt_tos))
        return await super().handle_DATA(server, session, envelope)

    async def handle_QUIT(self, server: Any, session: Any, envelope: Any) -> str:
        self.quits += 1
        return "221 Bye"

    @property
    def connections(self) -> int:
        return len(set(self.peers))


@pytest.fixture
def server() -> Iterator[tuple[int, ConnectionCollector]]:
    port = free_port()
    handler = ConnectionCollector()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield port, handler
    controller.stop()


def letters(n: int) -> list[NoticeRequest]:
    base = make_request("reminder")
    return [dataclasses.replace(base, notice_key=f"{base.notice_key}:{i}") for i in range(n)]


def notices_for(engine: Engine, port: int) -> tuple[NoticeActivities, SmtpTransport]:
    transport = SmtpTransport("127.0.0.1", port, timeout=5)
    return NoticeActivities(engine, NoticeRenderer(), transport, mail_from=MAIL_FROM), transport


def test_letters_sent_one_after_another_share_one_connection_and_keep_their_envelopes(
    engine: Engine, server: tuple[int, ConnectionCollector]
) -> None:
    port, collector = server
    acts, transport = notices_for(engine, port)
    first, second, third = letters(3)
    second.cc = [SUPERVISOR]  # a different envelope on the same connection
    env = ActivityEnvironment()
    for req in (first, second, third):
        assert env.run(acts.send_notice, req).delivered

    assert len(collector.messages) == 3
    assert collector.connections == 1
    assert first.to == [PLANNER] and not first.cc
    assert collector.envelopes == [[PLANNER], sorted([PLANNER, SUPERVISOR]), [PLANNER]]
    transport.close()
    assert collector.quits == 1


def test_a_connection_carries_a_bounded_number_of_letters(
    engine: Engine, server: tuple[int, ConnectionCollector], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, collector = server
    monkeypatch.setattr(mail, "REUSE_MAX_MESSAGES", 2)
    acts, transport = notices_for(engine, port)
    env = ActivityEnvironment()
    for req in letters(5):
        env.run(acts.send_notice, req)
    assert len(collector.messages) == 5
    assert collector.connections == 3
    assert collector.quits == 2  # each full connection said goodbye before the next


def test_a_connection_idle_past_the_window_is_not_reused(
    engine: Engine, server: tuple[int, ConnectionCollector], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, collector = server
    monkeypatch.setattr(mail, "REUSE_IDLE_SECONDS", 0.0)
    acts, _ = notices_for(engine, port)
    env = ActivityEnvironment()
    for req in letters(3):
        env.run(acts.send_notice, req)
    assert collector.connections == 3


def test_a_server_restart_between_letters_costs_one_retry_and_no_copy(engine: Engine) -> None:
    """The kept connection dies with the server: the next attempt fails before anything
    is accepted, and its retry, on a new connection, delivers the letter once."""
    port = free_port()
    first_run = ConnectionCollector()
    controller = Controller(first_run, hostname="127.0.0.1", port=port)
    controller.start()
    acts, _ = notices_for(engine, port)
    before, after = letters(2)
    env = ActivityEnvironment()
    env.run(acts.send_notice, before)
    controller.stop()

    restarted = ConnectionCollector()
    controller = Controller(restarted, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        with pytest.raises((smtplib.SMTPException, OSError)):
            env.run(acts.send_notice, after)
        with session_factory(engine)() as session:
            row = session.get(Notice, after.notice_key)
            assert row is not None and row.delivery_state == "failed"
        assert env.run(acts.send_notice, after).delivered
        assert len(restarted.for_key(after.notice_key)) == 1
        assert first_run.for_key(after.notice_key) == []
    finally:
        controller.stop()
