"""What rendering a notice gives, and why it may refuse to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RenderedNotice:
    subject: str
    text: str
    html: str
    # The city's address and the responsible planner ("" leaves the deployment's).
    sender: str = ""
    reply_to: str = ""


class UnknownNoticeKind(ValueError):
    pass


class InvalidNoticeDetails(ValueError):
    """A project notice's details lack what its letter must state (never send it blank)."""
