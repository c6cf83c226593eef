"""Build notice e-mails and deliver them to an outbox folder or an SMTP server."""

from __future__ import annotations

import email.policy
import hashlib
import logging
import os
import re
import smtplib
import ssl as ssl_module
import tempfile
import threading
import time
from datetime import UTC, datetime
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Protocol, cast

from models.addresses import recipient, sender
from notices.letter import RenderedNotice
from settings import Settings

logger = logging.getLogger(__name__)

NOTICE_KEY_HEADER = "X-Clearance-Notice-Key"

# Fold headers only past RFC 5322's hard limit: the stdlib folds some 80-character
# subjects onto a continuation line, and its own parser then reads a leading space.
MAIL_POLICY = email.policy.default.clone(max_line_length=998)
# Notices are built with the compat32 MIME classes: the same message as EmailMessage
# builds (the tests compare them), at a third of the CPU. EmailMessage parses every header
# it is given through its header registry, which was a tenth of the worker's time in an
# 08:00 storm (docs/storm.md, "The sixth round").
NOTICE_POLICY = email.policy.compat32.clone(max_line_length=998)
# Bodies that are not plain ASCII go as quoted-printable: still readable in the raw file.
_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP


def message_id_for(notice_key: str) -> str:
    """A Message-ID that is the same on every attempt, so mail clients can dedupe."""
    digest = hashlib.sha256(notice_key.encode("utf-8")).hexdigest()[:32]
    return f"<{digest}@clearance>"


def _needs_encoding(word: str) -> bool:
    # A plain word that looks like an encoded word would be decoded by the reader.
    return not word.isascii() or "=?" in word


def _header_text(value: str) -> str:
    """An unstructured header (the subject) as EmailMessage writes it: plain words stay
    readable in the raw message, and each run of non-ASCII words becomes one RFC 2047
    word (a run, because readers drop the space between two encoded words)."""
    if not any(_needs_encoding(word) for word in value.split(" ")):
        return value
    out: list[str] = []
    run: list[str] = []
    for word in [*value.split(" "), None]:
        if word is not None and _needs_encoding(word):
            run.append(word)
            continue
        if run:
            out.append(Header(" ".join(run), "utf-8").encode(maxlinelen=998))
            run = []
        if word is not None:
            out.append(word)
    return " ".join(out)


def _address_list(values: list[str]) -> str:
    """Addresses as a header, built from parsed (name, address) pairs: display names
    that are not ASCII as RFC 2047 words. Each value must be exactly one valid address
    (models/addresses.recipient, cached): a value with a line break or a second address
    raises BadAddress, so no stored value can add a header or a recipient."""
    return ", ".join(formataddr(recipient(value), "utf-8") for value in values)


def _text_part(body: str, subtype: str) -> MIMEText:
    if not body.endswith("\n"):  # as EmailMessage.set_content ends a body
        body += "\n"
    charset: str | Charset = "us-ascii" if body.isascii() else _UTF8_QP
    # MIMEText takes a Charset too (typeshed names only str): the prebuilt one saves a lookup.
    return MIMEText(body, subtype, cast(str, charset), policy=NOTICE_POLICY)


def build_message(
    notice_key: str,
    rendered: RenderedNotice,
    *,
    mail_from: str,
    to: list[str],
    cc: list[str],
    date: datetime | None = None,
    reply_to: str = "",
) -> Message:
    """The notice's message. Raises BadAddress (one line, naming the value) when a
    recipient or the from-address is not exactly one valid e-mail address."""
    msg = MIMEMultipart("alternative", policy=NOTICE_POLICY)
    msg["From"] = formataddr(sender(mail_from), "utf-8")
    if to:
        msg["To"] = _address_list(to)
    if cc:
        msg["Cc"] = _address_list(cc)
    if reply_to:
        # The responsible planner: an answer reaches someone who can act on it.
        msg["Reply-To"] = _address_list([reply_to])
    msg["Subject"] = _header_text(rendered.subject)
    msg["Date"] = format_datetime(date or datetime.now(UTC))
    msg["Message-ID"] = message_id_for(notice_key)
    msg[NOTICE_KEY_HEADER] = notice_key
    # Text first, HTML last: clients show the last part they can render.
    msg.attach(_text_part(rendered.text, "plain"))
    msg.attach(_text_part(rendered.html, "html"))
    return msg


class Transport(Protocol):
    name: str

    def deliver(self, msg: Message) -> str:
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

    def deliver(self, msg: Message) -> str:
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


class PlainAuthRefused(ValueError):
    """A password would cross the network in the clear: SMTP AUTH without TLS."""


# A connection is reused for the next letter only while it is fresh: used within this
# many seconds (far inside the 5-minute command timeout RFC 5321 asks servers to allow),
# and for at most this many messages (some servers limit messages per connection).
REUSE_IDLE_SECONDS = 10.0
REUSE_MAX_MESSAGES = 20


class SmtpTransport:
    """SMTP with implicit TLS (`ssl`, port 465), STARTTLS (`starttls`, usually 587) or
    neither. The server's certificate is checked (`tls_context`: the system's CAs, plus
    CLEARANCE_SMTP_CA_FILE). A login is refused on a connection without TLS unless
    `allow_plain_auth` says so (a relay on the same host, say). Each activity thread keeps
    its connection open for the next letter while it is fresh (`REUSE_IDLE_SECONDS`,
    `REUSE_MAX_MESSAGES`); `close()` ends them."""

    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int = 25,
        user: str = "",
        password: str = "",
        starttls: bool = False,
        timeout: float = 30.0,
        journal: AcceptedJournal | None = None,
        ssl: bool = False,
        tls_context: ssl_module.SSLContext | None = None,
        allow_plain_auth: bool = False,
    ) -> None:
        if ssl and starttls:
            raise ValueError("choose implicit TLS (SMTP_SSL) or STARTTLS, not both")
        if user and not (ssl or starttls or allow_plain_auth):
            raise PlainAuthRefused(
                f"SMTP login as {user!r} to {host}:{port} would send the password without "
                "TLS: set CLEARANCE_SMTP_SSL=true (port 465) or CLEARANCE_SMTP_STARTTLS=true, "
                "or CLEARANCE_SMTP_ALLOW_PLAIN_AUTH=true for a trusted local relay"
            )
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.starttls = starttls
        self.ssl = ssl
        self.tls_context = tls_context or ssl_module.create_default_context()
        self.allow_plain_auth = allow_plain_auth
        self.timeout = timeout
        self.journal = journal
        # One open connection per activity thread, reused for the next notice: a new
        # connection costs the greeting, EHLO, STARTTLS or TLS, AUTH and QUIT for every
        # letter, which was a third of an 08:00 storm's mail work (docs/storm.md).
        self._local = threading.local()
        self._open: set[smtplib.SMTP] = set()
        self._open_lock = threading.Lock()

    def _connect(self) -> smtplib.SMTP:
        if self.ssl:
            return smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout, context=self.tls_context
            )
        smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            if self.starttls:
                smtp.starttls(context=self.tls_context)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _session(self) -> smtplib.SMTP:
        """This thread's open connection if it is fresh, else a new, logged-in one."""
        smtp: smtplib.SMTP | None = getattr(self._local, "smtp", None)
        if smtp is not None and (
            time.monotonic() - self._local.used_at > REUSE_IDLE_SECONDS
            or self._local.sent >= REUSE_MAX_MESSAGES
        ):
            self._discard(send_quit=True)
            smtp = None
        if smtp is None:
            smtp = self._connect()
            try:
                if self.user:
                    if not (self.ssl or self.starttls or self.allow_plain_auth):
                        raise PlainAuthRefused(f"SMTP login to {self.host} without TLS")
                    smtp.login(self.user, self.password)
            except BaseException:
                smtp.close()
                raise
            self._local.smtp = smtp
            self._local.sent = 0
            with self._open_lock:
                self._open.add(smtp)
        return smtp

    def _discard(self, *, send_quit: bool) -> None:
        smtp: smtplib.SMTP | None = getattr(self._local, "smtp", None)
        self._local.smtp = None
        if smtp is None:
            return
        with self._open_lock:
            self._open.discard(smtp)
        try:
            if send_quit:
                smtp.quit()
        except (smtplib.SMTPException, OSError):
            pass
        finally:
            smtp.close()

    def close(self) -> None:
        """Say QUIT on every open connection (the worker calls this as it stops)."""
        with self._open_lock:
            open_now, self._open = self._open, set()
        for smtp in open_now:
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                pass
            finally:
                smtp.close()

    def deliver(self, msg: Message) -> str:
        key = str(msg[NOTICE_KEY_HEADER] or "")
        if self.journal is not None and key:
            earlier = self.journal.accepted(key)
            if earlier is not None:
                # Accepted before the process died, not yet marked delivered: don't resend.
                return earlier
        location = f"smtp://{self.host}:{self.port}/{msg['Message-ID']}"
        smtp = self._session()
        try:
            # Recipients come from To and Cc. If every one is refused smtplib raises
            # and the activity retries; a partial refusal is logged, not retried, so
            # the accepted recipients don't get the notice twice.
            refused = smtp.send_message(msg)
        except BaseException:
            # Whatever state the session is in, the retry starts on a new connection (a
            # server that closed an idle one fails here, before any data was accepted).
            self._discard(send_quit=False)
            raise
        self._local.used_at = time.monotonic()
        self._local.sent += 1
        if refused:
            location += " refused=" + ",".join(sorted(refused))
        # Noted the moment the server has said 250, before the database write: that
        # leaves microseconds, not a commit, in which a killed worker would send the
        # notice again on retry.
        if self.journal is not None and key:
            self.journal.note(key, location)
        if refused:
            logger.warning("SMTP refused some recipients of %s", location)
        return location


class AcceptedJournal:
    """A local record of messages the SMTP server has accepted: one small file per notice
    key, created atomically. It only narrows the window between the server's acceptance
    and the notices table; that table stays the record. Workers that share retries should
    share this folder (the compose file's data volume)."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    def _path(self, notice_key: str) -> Path:
        return self.folder / hashlib.sha256(notice_key.encode("utf-8")).hexdigest()

    def accepted(self, notice_key: str) -> str | None:
        try:
            return self._path(notice_key).read_text("utf-8") or "smtp (accepted earlier)"
        except FileNotFoundError:
            return None

    def note(self, notice_key: str, location: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._path(notice_key), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, location.encode("utf-8"))
        finally:
            os.close(fd)


def tls_context(ca_file: str = "") -> ssl_module.SSLContext:
    """The system's CAs, plus the PEM certificates in `ca_file` (a city's own CA)."""
    context = ssl_module.create_default_context()
    if ca_file:
        context.load_verify_locations(cafile=ca_file)
    return context


def transport_from_settings(settings: Settings) -> Transport:
    """SMTP when a host is configured, else the outbox folder. Raises PlainAuthRefused
    for a login without TLS that the settings do not allow (so the worker will not start
    with a configuration that would leak the password)."""
    if settings.smtp_host:
        return SmtpTransport(
            settings.smtp_host,
            settings.smtp_port,
            settings.smtp_user,
            settings.smtp_password,
            settings.smtp_starttls,
            journal=AcceptedJournal(settings.data_dir / "smtp-accepted"),
            ssl=settings.smtp_ssl,
            tls_context=tls_context(settings.smtp_ca_file),
            allow_plain_auth=settings.smtp_allow_plain_auth,
        )
    return OutboxTransport(settings.outbox_dir)
