"""send_notice against a real SMTP server (aiosmtpd): every kind arrives exactly once,
a crash after delivery does not resend, and an SMTP outage is retried to one delivery."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.mail import NOTICE_KEY_HEADER, AcceptedJournal, SmtpTransport, message_id_for
from activities.notices import NoticeActivities
from models.database import session_factory
from models.schema import Notice
from models.shot_clock import NoticeRequest
from notices.filters import letterdate
from notices.render import NoticeRenderer
from rules.kernel.citations import citation_title
from stack.ports import free_port
from tests.activities.fixtures import NOTICE_KINDS, SCRIPT, make_request
from tests.activities.smtp_server import CITY_FROM, MAIL_FROM, Collector, start_smtp


def notice_row(engine: Engine, key: str) -> Notice | None:
    with session_factory(engine)() as session:
        return session.get(Notice, key)


def expected_subject(req: NoticeRequest) -> str:
    clock, details = req.clock, req.details
    return {
        "reminder": (
            f"Shot clock reminder: APP-1 — 7 days left to act, by "
            f"{letterdate(clock['conservative_date'])}"
        ),
        "window_closing": (
            "Notice window closing: APP-1 — small wireless reset window (day 10) closes "
            f"{letterdate(details.get('window', {}).get('closes'))} (3 days left)"
        ),
        "expiry_escalation": (
            f"Shot clock expired: APP-1 — ran out on {letterdate(details.get('expired_on'))}; "
            "deemed-approval risk"
        ),
        "incompleteness_notice": (
            "City of Cotati: Notice of incomplete application APP-1 — 201 W Sierra Ave, Cotati, CA"
        ),
        "decision_confirmation": (
            "Decision on wireless application APP-1: approved with conditions (March 20, 2026)"
        ),
        "judicial_review_reminder": (
            "Judicial review deadline: APP-1 deemed approved — 14 days to "
            f"{letterdate(clock['judicial_review_deadline'])}"
        ),
        "deemed_status": (
            "Application APP-1 is deemed approved (applicant's notice of April 25, 2026)"
        ),
    }[req.kind]


def parts(msg: EmailMessage) -> tuple[str, str]:
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


@pytest.mark.parametrize("kind", NOTICE_KINDS)
def test_each_kind_arrives_once_with_recipients_subject_and_key(
    kind: str, engine: Engine, smtp: tuple[int, Collector]
) -> None:
    port, collector = smtp
    acts = NoticeActivities(
        engine, NoticeRenderer(), SmtpTransport("127.0.0.1", port), mail_from=MAIL_FROM
    )
    req = make_request(kind)
    env = ActivityEnvironment()

    receipt = env.run(acts.send_notice, req)
    assert receipt.delivered and not receipt.already_sent
    assert receipt.transport == "smtp"
    assert receipt.notice_key == req.notice_key

    # A second call (a replayed or duplicated activity) sends nothing.
    again = env.run(acts.send_notice, req)
    assert again.already_sent and again.delivered

    got = collector.for_key(req.notice_key)
    assert len(got) == 1
    rcpt_tos, msg = got[0]
    assert rcpt_tos == req.to + req.cc
    assert msg["To"] == ", ".join(req.to)
    if req.cc:
        assert msg["Cc"] == ", ".join(req.cc)
    else:
        assert msg["Cc"] is None
    assert msg["From"] == CITY_FROM
    assert msg["Reply-To"] == "planner@cotati.example"
    assert msg["Subject"] == expected_subject(req)
    assert msg["Message-ID"] == message_id_for(req.notice_key)
    assert msg["Date"]
    assert msg.get_content_type() == "multipart/alternative"
    text, html = parts(msg)
    assert "APP-1" in text and "APP-1" in html
    # The key travels in the message's header; the reader sees plain words.
    assert req.notice_key not in text and msg[NOTICE_KEY_HEADER] == req.notice_key

    row = notice_row(engine, req.notice_key)
    assert row is not None
    assert row.delivery_state == "delivered"
    assert row.attempts == 1
    assert row.subject == msg["Subject"]
    assert row.delivered_at is not None
    assert row.transport == "smtp" and row.location == receipt.location


def test_html_part_escapes_item_text(engine: Engine, smtp: tuple[int, Collector]) -> None:
    port, collector = smtp
    acts = NoticeActivities(
        engine, NoticeRenderer(), SmtpTransport("127.0.0.1", port), mail_from=MAIL_FROM
    )
    req = make_request("incompleteness_notice")
    ActivityEnvironment().run(acts.send_notice, req)

    [(_, msg)] = collector.for_key(req.notice_key)
    text, html = parts(msg)
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    # The plain-text letter shows the item exactly as the planner typed it.
    assert SCRIPT in text
    # Each item with its rule.
    for item in req.details["event"]["items"]:
        # Each rule as its title: "CMC 17.44.070(A)" reads "Cotati Municipal Code § 17.44.070(A)".
        title = citation_title(item["rule"])
        assert title.startswith("Cotati Municipal Code § ") and title in text and title in html


def test_crash_after_delivery_is_not_resent(engine: Engine, smtp: tuple[int, Collector]) -> None:
    port, collector = smtp
    calls: list[str] = []

    def crash_once(req: NoticeRequest) -> None:
        calls.append(req.notice_key)
        if len(calls) == 1:
            raise RuntimeError("worker died after the SMTP server accepted the message")

    acts = NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port),
        after_delivery=crash_once,
        mail_from=MAIL_FROM,
    )
    req = make_request("expiry_escalation")
    env = ActivityEnvironment()

    with pytest.raises(RuntimeError, match="worker died"):
        env.run(acts.send_notice, req)
    # Temporal retries the activity: the notice is already recorded as delivered.
    receipt = env.run(acts.send_notice, req)
    assert receipt.already_sent and receipt.delivered

    assert len(collector.for_key(req.notice_key)) == 1
    assert len(collector.messages) == 1
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state == "delivered" and row.attempts == 1


class DiesAfterAcceptance(SmtpTransport):
    """The worker is killed after the server's 250 and before the delivery is recorded."""

    def deliver(self, msg: EmailMessage) -> str:
        super().deliver(msg)
        raise RuntimeError("worker killed before recording the delivery")


def test_killed_between_acceptance_and_record_is_not_resent(
    engine: Engine, smtp: tuple[int, Collector], tmp_path: Any
) -> None:
    port, collector = smtp
    journal = AcceptedJournal(tmp_path / "smtp-accepted")
    req = make_request("reminder")
    env = ActivityEnvironment()
    dying = NoticeActivities(
        engine,
        NoticeRenderer(),
        DiesAfterAcceptance("127.0.0.1", port, journal=journal),
        mail_from=MAIL_FROM,
    )
    with pytest.raises(RuntimeError, match="killed"):
        env.run(dying.send_notice, req)
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state != "delivered"

    # The retry, on a fresh worker sharing the journal, records the delivery and sends nothing.
    fresh = NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port, journal=journal),
        mail_from=MAIL_FROM,
    )
    receipt = env.run(fresh.send_notice, req)
    assert receipt.delivered
    assert len(collector.for_key(req.notice_key)) == 1
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state == "delivered"
    assert row.location.startswith(f"smtp://127.0.0.1:{port}/")


def test_smtp_down_then_up_delivers_exactly_once(engine: Engine) -> None:
    port = free_port()  # nothing listens here yet
    acts = NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port, timeout=5),
        mail_from=MAIL_FROM,
    )
    req = make_request("reminder")
    env = ActivityEnvironment()

    with pytest.raises(OSError):
        env.run(acts.send_notice, req)
    row = notice_row(engine, req.notice_key)
    assert row is not None
    assert row.delivery_state != "delivered"
    assert row.last_error
    assert row.attempts == 1
    assert row.delivered_at is None

    controller, collector = start_smtp(port)
    try:
        receipt = env.run(acts.send_notice, req)
        assert receipt.delivered and not receipt.already_sent
        again = env.run(acts.send_notice, req)
        assert again.already_sent
        assert len(collector.for_key(req.notice_key)) == 1
    finally:
        controller.stop()

    row = notice_row(engine, req.notice_key)
    assert row is not None
    assert row.delivery_state == "delivered"
    assert row.attempts == 2
    assert row.last_error == ""


def test_no_recipient_is_a_non_retryable_error(engine: Engine, smtp: tuple[int, Collector]) -> None:
    port, collector = smtp
    acts = NoticeActivities(
        engine, NoticeRenderer(), SmtpTransport("127.0.0.1", port), mail_from=MAIL_FROM
    )
    req = make_request("decision_confirmation")
    req.to = ["", "  "]
    req.cc = [""]

    with pytest.raises(ApplicationError, match="no recipient") as info:
        ActivityEnvironment().run(acts.send_notice, req)
    assert info.value.non_retryable
    assert collector.messages == []
    with session_factory(engine)() as session:
        assert session.scalar(select(func.count()).select_from(Notice)) == 0


def test_blank_and_duplicate_addresses_are_dropped(
    engine: Engine, smtp: tuple[int, Collector]
) -> None:
    port, collector = smtp
    acts = NoticeActivities(
        engine, NoticeRenderer(), SmtpTransport("127.0.0.1", port), mail_from=MAIL_FROM
    )
    req = make_request("incompleteness_notice")
    planner = req.cc[0]
    req.to = ["", req.to[0]]
    req.cc = [planner, "", req.to[1]]  # the applicant again, already in To

    ActivityEnvironment().run(acts.send_notice, req)
    [(rcpt_tos, msg)] = collector.for_key(req.notice_key)
    assert rcpt_tos == [req.to[1], planner]
    assert msg["Cc"] == planner
