"""A recipient stored before addresses were validated (inserted as it was given, with a
line break and a second header) never reaches the mail server: the letter is not sent,
the notices row keeps the addresses as stored and says why, and the operator is alerted
at once. The clock is answered "not delivered" rather than failed, so it goes on."""

from __future__ import annotations

import email
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from temporalio.testing import ActivityEnvironment

from activities.mail import SmtpTransport, build_message
from activities.notices import NoticeActivities
from activities.operator_alerts import OperatorAlerts, alert_key_for
from models.addresses import BadAddress
from models.database import session_factory
from models.schema import Notice, OperatorAlert
from notices.letter import RenderedNotice
from notices.render import NoticeRenderer
from tests.activities.fixtures import make_request
from tests.activities.smtp_server import Collector

MAIL_FROM = "Clearance <clearance@cotati.example>"
OPERATOR = "ops@cotati.example"
INJECTION = "a@b.example\r\nBcc: x@y.example"


def activities(engine: Engine, port: int, outbox: Path) -> NoticeActivities:
    return NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port, timeout=5),
        mail_from=MAIL_FROM,
        operator_alerts=OperatorAlerts(
            engine, outbox, operator_email=OPERATOR, mail_from=MAIL_FROM, after_attempts=3
        ),
    )


@pytest.mark.parametrize("where", ["to", "cc"], ids=["the applicant's address", "a copied address"])
def test_a_stored_injected_address_never_adds_a_recipient(
    engine: Engine, smtp: tuple[int, Collector], tmp_path: Path, where: str
) -> None:
    port, collector = smtp
    acts = activities(engine, port, tmp_path / "outbox")
    req = make_request("incompleteness_notice")
    if where == "to":
        req.to = [INJECTION]
    else:
        req.cc = [*req.cc, "planner@cotati.example, x@y.example"]

    receipt = ActivityEnvironment().run(acts.send_notice, req)

    assert not receipt.delivered
    assert collector.messages == []  # nothing reached the server: no Bcc, no letter
    with session_factory(engine)() as session:
        row = session.get(Notice, req.notice_key)
        assert row is not None
        assert row.delivery_state == "failed"
        assert row.last_error.startswith("BadAddress: recipient ")
        assert "\n" not in row.last_error and "\r" not in row.last_error
        stored = row.to_addrs if where == "to" else row.cc_addrs
        assert any("x@y.example" in a for a in stored)  # kept as stored, not lost
        alert = session.get(OperatorAlert, alert_key_for(req.notice_key))
        assert alert is not None and "was not sent" in alert.message
    alert_mail = [
        email.message_from_bytes(p.read_bytes()) for p in (tmp_path / "outbox").glob("*.eml")
    ]
    assert [m["To"] for m in alert_mail] == [OPERATOR]
    assert "send it by other means" in str(alert_mail[0].get_payload())

    # A retry of the activity refuses the same way and raises no second alert.
    again = ActivityEnvironment().run(acts.send_notice, req)
    assert not again.delivered and collector.messages == []
    with session_factory(engine)() as session:
        assert len(list(session.scalars(select(OperatorAlert)))) == 1


def test_the_message_is_never_built_with_a_bad_recipient() -> None:
    rendered = RenderedNotice(subject="S", text="t", html="<p>t</p>")
    for to, cc in (([INJECTION], []), (["a@b.example"], ["c@d.example\nBcc: x@y.example"])):
        with pytest.raises(BadAddress):
            build_message("k", rendered, mail_from=MAIL_FROM, to=to, cc=cc)
    with pytest.raises(BadAddress):
        build_message("k", rendered, mail_from=f"{MAIL_FROM}\r\nBcc: x@y.example", to=[], cc=[])
    msg = build_message(
        "k", rendered, mail_from=MAIL_FROM, to=["Ann Applicant <a@b.example>"], cc=[]
    )
    assert msg["To"] == "Ann Applicant <a@b.example>"
