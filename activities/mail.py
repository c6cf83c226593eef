"""Build notice e-mails and deliver them to an outbox folder or an SMTP server."""

from __future__ import annotations

import email.policy
import hashlib
import logging
import os
import re
import smtplib
import ssl
import tempfile
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Protocol

from activities.rendering import RenderedNotice
from settings import Settings

logger = logging.getLogger(__name__)

NOTICE_KEY_HEADER = "X-Clearance-Notice-Key"

# Fold headers only past RFC 5322's hard limit: the stdlib folds some 80-character
# subjects onto a continuation line, and its own parser then reads a leading space.
MAIL_POLICY = email.policy.default.clone(max_line_length=998)


def message_id_for(notice_key: str) -> str:
    """A Message-ID that is the same on every attempt, so mail clients can dedupe."""
    digest = hashlib.sha256(notice_key.encode("utf-8")).hexdigest()[:32]
    return f"<{digest}@clearance>"


def build_message(
    notice_key: str,
    rendered: RenderedNotice,
    *,
    mail_from: str,
    to: list[str],
    cc: list[str],
    date: datetime | None = None,
) -> EmailMessage:
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = mail_from
    if to:
        msg["To"] = ", ".join(to)
    if cc:
        msg["Cc"] = ", ".join(cc)
    msg["Subject"] = rendered.subject
    msg["Date"] = format_datetime(date or datetime.now(UTC))
    msg["Message-ID"] = message_id_for(notice_key)
    msg[NOTICE_KEY_HEADER] = notice_key
    # Text first, HTML last: clients show the last part they can render.
    msg.set_content(rendered.text)
    msg.add_alternative(rendered.html, subtype="html")
    return msg


class Transport(Protocol):
    name: str

    def deliver(self, msg: EmailMessage) -> str:
        """Deliver the message; return where it went (a file path or an SMTP address)."""
        ...


def outbox_filename(notice_key: str) -> str:
    """A safe, stable file name: the readable key plus a hash so distinct keys never clash."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", notice_key).strip("._")[:120]
    digest = hashlib.sha256(notice_key.encode("utf-8")).hexdigest()[:12]
    return f"{safe or 'notice'}-{digest}.eml"


class OutboxTransport:
    """Writes each message to `<folder>/<key>.eml`; the same key always lands in the same file."""

    name = "outbox"

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    def deliver(self, msg: EmailMessage) -> str:
        key = msg[NOTICE_KEY_HEADER]
        if not key:
            raise ValueError(f"message has no {NOTICE_KEY_HEADER} header")
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / outbox_filename(str(key))
        # Write a temp file and rename it over the target: a reader (or a crash)
        # never sees half a message.
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(msg.as_bytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return str(target)


class SmtpTransport:
    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int = 25,
        user: str = "",
        password: str = "",
        starttls: bool = False,
        timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.starttls = starttls
        self.timeout = timeout

    def deliver(self, msg: EmailMessage) -> str:
        with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
            if self.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if self.user:
                smtp.login(self.user, self.password)
            # Recipients come from To and Cc. If every one is refused smtplib raises
            # and the activity retries; a partial refusal is logged, not retried, so
            # the accepted recipients don't get the notice twice.
            refused = smtp.send_message(msg)
        location = f"smtp://{self.host}:{self.port}/{msg['Message-ID']}"
        if refused:
            logger.warning("SMTP refused some recipients of %s: %s", location, refused)
            location += " refused=" + ",".join(sorted(refused))
        return location


def transport_from_settings(settings: Settings) -> Transport:
    """SMTP when a host is configured, else the outbox folder."""
    if settings.smtp_host:
        return SmtpTransport(
            settings.smtp_host,
            settings.smtp_port,
            settings.smtp_user,
            settings.smtp_password,
            settings.smtp_starttls,
        )
    return OutboxTransport(settings.outbox_dir)
