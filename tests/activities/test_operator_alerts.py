"""A prolonged mail outage raises one operator alert (row, CRITICAL log, outbox e-mail to
the operator); the notice keeps retrying, is delivered once the server returns, and the
alert is then marked resolved."""

from __future__ import annotations

import email
import logging
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from temporalio.testing import ActivityEnvironment

from activities.mail import NOTICE_KEY_HEADER, SmtpTransport
from activities.notices import NoticeActivities
from activities.operator_alerts import OperatorAlerts, alert_key_for
from models.database import session_factory
from models.schema import Notice, OperatorAlert
from notices.render import NoticeRenderer
from stack.ports import free_port
from tests.activities.fixtures import make_request
from tests.activities.smtp_server import start_smtp

OPERATOR = "ops@cotati.example"


def alerts(engine: Engine) -> list[OperatorAlert]:
    with session_factory(engine)() as session:
        return list(session.scalars(select(OperatorAlert)))


def test_prolonged_failure_alerts_the_operator_once_then_resolves(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()  # nothing listens here yet: the mail server is down
    outbox = tmp_path / "outbox"
    acts = NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port, timeout=5),
        mail_from="Clearance <clearance@cotati.example>",
        operator_alerts=OperatorAlerts(
            engine,
            outbox,
            operator_email=OPERATOR,
            mail_from="Clearance <clearance@cotati.example>",
            after_attempts=3,
        ),
    )
    req = make_request("reminder")
    env = ActivityEnvironment()
    caplog.set_level(logging.INFO)

    for attempt in range(1, 6):
        with pytest.raises(OSError):
            env.run(acts.send_notice, req)
        raised = alerts(engine)
        # Below the threshold nothing is raised; from it on, exactly one alert.
        assert len(raised) == (0 if attempt < 3 else 1), attempt

    [alert] = alerts(engine)
    assert alert.alert_key == alert_key_for(req.notice_key)
    assert alert.subject_key == req.notice_key
    assert alert.recipient == OPERATOR and alert.resolved_at is None
    assert "failed delivery 3 times" in alert.message
    critical = [r for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(critical) == 1 and req.notice_key in critical[0].getMessage()

    # The alert e-mail is in the outbox, addressed to the operator (SMTP is down).
    [eml] = list(outbox.glob("*.eml"))
    msg = email.message_from_bytes(eml.read_bytes())
    assert msg["To"] == OPERATOR
    assert msg[NOTICE_KEY_HEADER] == alert.alert_key
    assert req.notice_key in msg.get_payload(decode=True).decode()

    controller, collector = start_smtp(port)
    try:
        receipt = env.run(acts.send_notice, req)
        assert receipt.delivered and not receipt.already_sent
        assert len(collector.for_key(req.notice_key)) == 1
    finally:
        controller.stop()
    [alert] = alerts(engine)
    assert alert.resolved_at is not None
    with session_factory(engine)() as session:
        row = session.get(Notice, req.notice_key)
        assert row is not None and row.delivery_state == "delivered" and row.attempts == 6
    assert len(list(outbox.glob("*.eml"))) == 1


def test_threshold_below_one_is_refused(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="CLEARANCE_MAIL_ALERT_AFTER_ATTEMPTS"):
        OperatorAlerts(engine, tmp_path, operator_email="", mail_from="x@y", after_attempts=0)
