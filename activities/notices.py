"""The notice activity: render, deliver and record each notice exactly once by its key."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.mail import Transport, build_message, message_id_for
from activities.rendering import NoticeRenderer, UnknownNoticeKind
from models.database import session_factory
from models.schema import Notice
from models.shot_clock import NoticeReceipt, NoticeRequest
from settings import load_settings

DELIVERED = "delivered"
PENDING = "pending"
FAILED = "failed"


def _addresses(values: list[str]) -> list[str]:
    """Drop blanks and duplicates, keeping order (an empty contact is common)."""
    out: list[str] = []
    for value in values:
        addr = (value or "").strip()
        if addr and addr not in out:
            out.append(addr)
    return out


class NoticeActivities:
    def __init__(
        self,
        engine: Engine,
        renderer: NoticeRenderer,
        transport: Transport,
        after_delivery: Callable[[NoticeRequest], None] | None = None,
        *,
        mail_from: str | None = None,
    ) -> None:
        self._sessions = session_factory(engine)
        self._renderer = renderer
        self._transport = transport
        # Test hook: runs after the delivery is recorded, e.g. to simulate a crash.
        self._after_delivery = after_delivery
        self._mail_from = mail_from or load_settings().mail_from

    @activity.defn
    def send_notice(self, req: NoticeRequest) -> NoticeReceipt:
        key = req.notice_key
        with self._sessions() as session:
            done = session.get(Notice, key)
            if done is not None and done.delivery_state == DELIVERED:
                # A retry after a crash past delivery, or a replayed workflow: never resend.
                return NoticeReceipt(key, True, True, done.transport, done.location)

        to = _addresses(req.to)
        cc = [a for a in _addresses(req.cc) if a not in to]
        if not to and not cc:
            raise ApplicationError(
                f"notice {key} ({req.kind}) for {req.application.application_id} "
                "has no recipient: set the contact e-mail addresses",
                type="NoRecipient",
                non_retryable=True,
            )
        try:
            rendered = self._renderer.render(req)
        except UnknownNoticeKind as err:
            raise ApplicationError(str(err), type="UnknownNoticeKind", non_retryable=True) from err
        msg = build_message(key, rendered, mail_from=self._mail_from, to=to, cc=cc)

        now = datetime.now(UTC)
        with self._sessions.begin() as session:
            row = session.get(Notice, key)
            if row is None:
                row = Notice(notice_key=key, created_at=now, attempts=0, last_error="")
                session.add(row)
            row.application_id = req.application.application_id
            row.kind = req.kind
            row.subject = rendered.subject
            row.to_addrs = to
            row.cc_addrs = cc
            row.message_id = message_id_for(key)
            row.body_text = rendered.text
            row.body_html = rendered.html
            row.delivery_state = PENDING
            row.transport = self._transport.name
            row.attempts = (row.attempts or 0) + 1

        try:
            location = self._transport.deliver(msg)
        except Exception as err:
            with self._sessions.begin() as session:
                row = session.get(Notice, key)
                if row is not None:
                    row.delivery_state = FAILED
                    row.last_error = f"{type(err).__name__}: {err}"
            raise  # Temporal retries with backoff

        # If the process dies between deliver() and this commit, the retry sends again:
        # the one unavoidable duplicate, which the stable Message-ID lets clients fold.
        with self._sessions.begin() as session:
            row = session.get(Notice, key)
            assert row is not None
            row.delivery_state = DELIVERED
            row.delivered_at = datetime.now(UTC)
            row.location = location[:500]
            row.last_error = ""

        if self._after_delivery is not None:
            self._after_delivery(req)
        return NoticeReceipt(key, True, False, self._transport.name, location[:500])
