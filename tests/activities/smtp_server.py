"""A real SMTP server (aiosmtpd) on loopback for the mail tests, keeping what it accepts."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from activities.mail import NOTICE_KEY_HEADER

MAIL_FROM = "Clearance <clearance@cotati.example>"
# Letters come from the city's own address (rules/data/jurisdictions/cotati.json).
CITY_FROM = "City of Cotati Planning <planning@cotati.example>"


class Collector:
    """aiosmtpd handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        self.messages.append((list(envelope.rcpt_tos), msg))
        return "250 Message accepted for delivery"

    def for_key(self, key: str) -> list[tuple[list[str], EmailMessage]]:
        return [(r, m) for r, m in self.messages if m[NOTICE_KEY_HEADER] == key]


def start_smtp(port: int) -> tuple[Controller, Collector]:
    handler = Collector()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    return controller, handler
