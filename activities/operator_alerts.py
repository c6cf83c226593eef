"""Operator alerts: when a notice's delivery keeps failing, tell a person.

The notice activity keeps retrying (the workflow's retry policy has no attempt limit), so
nothing is lost; but a mail server down for hours means planners and applicants are not
hearing about their deadlines, which someone must know. Once a notice has failed
`after_attempts` times the alert is raised once by its key: a row in `operator_alerts`,
a CRITICAL line in the log, and an e-mail to the operator written to the outbox folder
(the SMTP server is the thing that is down). When the notice is finally delivered the
alert is marked resolved.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from sqlalchemy import Engine

from activities.mail import MAIL_POLICY, NOTICE_KEY_HEADER, OutboxTransport, message_id_for
from models.database import session_factory
from models.schema import OperatorAlert

log = logging.getLogger("clearance.operator")

MAIL_FAILING = "mail_failing"

MAIL_SERVER_ADVICE = (
    "What to do: check the mail server named by CLEARANCE_SMTP_HOST (reachable, "
    "accepting mail from this host, credentials). Notices are not lost: each one "
    "is retried until it is accepted, and `operator_alerts` shows when it was."
)
BAD_ADDRESS_ADVICE = (
    "What to do: the address was stored before Clearance validated addresses. This "
    "letter was not sent and is not retried: send it by other means if it is still owed, "
    "and correct the stored address. The notices table keeps the addresses as stored and "
    "the reason the letter was refused."
)


def alert_key_for(notice_key: str) -> str:
    return f"{MAIL_FAILING}:{notice_key}"


class OperatorAlerts:
    def __init__(
        self,
        engine: Engine,
        outbox_dir: Path | str,
        *,
        operator_email: str,
        mail_from: str,
        after_attempts: int,
    ) -> None:
        if after_attempts < 1:
            raise ValueError(
                f"CLEARANCE_MAIL_ALERT_AFTER_ATTEMPTS must be at least 1, not {after_attempts}"
            )
        self._sessions = session_factory(engine)
        self._outbox = OutboxTransport(outbox_dir)
        self.operator_email = operator_email
        self._mail_from = mail_from
        self.after_attempts = after_attempts

    def delivery_failed(
        self, *, notice_key: str, kind: str, subject_id: str, attempts: int, error: str
    ) -> bool:
        """Raise the alert if this failure crosses the threshold; True when raised now."""
        if attempts < self.after_attempts:
            return False
        message = (
            f"Notice {notice_key} ({kind}) for {subject_id} has failed delivery "
            f"{attempts} times; last error: {error}. It keeps retrying and will be "
            "delivered once the mail server accepts it."
        )
        return self._raise(notice_key, message, MAIL_SERVER_ADVICE, attempts=attempts)

    def notice_refused(self, *, notice_key: str, kind: str, subject_id: str, error: str) -> bool:
        """A notice that will not be sent as stored (a recipient that is not one valid
        e-mail address): alerted at once, by the notice's key; True when raised now."""
        message = (
            f"Notice {notice_key} ({kind}) for {subject_id} was not sent: {error}. "
            "It is recorded as failed in the notices table."
        )
        return self._raise(notice_key, message, BAD_ADDRESS_ADVICE, attempts=1)

    def _raise(self, notice_key: str, message: str, advice: str, *, attempts: int) -> bool:
        key = alert_key_for(notice_key)
        with self._sessions() as session:
            if session.get(OperatorAlert, key) is not None:
                return False  # raised already, by this or an earlier attempt
        now = datetime.now(UTC)
        location = ""
        if self.operator_email:
            # The outbox file is named after the alert key: a retried write replaces it.
            location = self._outbox.deliver(self._message(key, message, advice, now))
        with self._sessions.begin() as session:
            if session.get(OperatorAlert, key) is not None:
                return False
            session.add(
                OperatorAlert(
                    alert_key=key,
                    kind=MAIL_FAILING,
                    subject_key=notice_key,
                    message=message,
                    recipient=self.operator_email,
                    location=location,
                    raised_at=now,
                )
            )
        log.critical(
            "operator alert: %s",
            message,
            extra={
                "alert_key": key,
                "notice_key": notice_key,
                "attempts": attempts,
                "operator_email": self.operator_email or None,
                "alert_file": location or None,
            },
        )
        return True

    def delivered(self, notice_key: str) -> None:
        """The notice went out: resolve its alert, if one was raised."""
        key = alert_key_for(notice_key)
        with self._sessions.begin() as session:
            row = session.get(OperatorAlert, key)
            if row is None or row.resolved_at is not None:
                return
            row.resolved_at = datetime.now(UTC)
        log.warning(
            "operator alert resolved: notice %s delivered",
            notice_key,
            extra={"alert_key": key, "notice_key": notice_key},
        )

    def _message(self, key: str, text: str, advice: str, now: datetime) -> EmailMessage:
        msg = EmailMessage(policy=MAIL_POLICY)
        msg["From"] = self._mail_from
        msg["To"] = self.operator_email
        msg["Subject"] = "Clearance operator alert: notice delivery failing"
        msg["Date"] = format_datetime(now)
        msg["Message-ID"] = message_id_for(key)
        msg[NOTICE_KEY_HEADER] = key
        msg.set_content(f"{text}\n\n{advice}\n")
        return msg
