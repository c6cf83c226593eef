"""send_project_notice: every project notice kind goes to the right recipients with the
right subject and arrives exactly once at a real SMTP server (aiosmtpd), through the same
delivery path and notices table as the shot-clock notices. The letters themselves:
tests/notices/test_project.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.mail import SmtpTransport, message_id_for
from activities.notices import NoticeActivities
from models.conditions import ProjectNoticeRequest
from models.database import session_factory
from models.schema import Notice
from notices.project import PROJECT_NOTICE_KINDS
from notices.render import NoticeRenderer
from stack.ports import free_port
from tests.activities.fixtures import make_request
from tests.activities.project_fixtures import (
    APPLICANT,
    ENGINEERING_HEAD,
    ENGINEERING_REVIEWER,
    ENVIRONMENTAL_REVIEWER,
    PLANNING_HEAD,
    PLANNING_REVIEWER,
    PM,
    make_project_request,
    recipients,
)
from tests.activities.smtp_server import CITY_FROM, MAIL_FROM, Collector, start_smtp
from tests.activities.test_notices_smtp import notice_row, parts
from tests.notices.milestones import use_keys_only_milestones
from tests.notices.test_project import EXPECTED_SUBJECTS


@pytest.fixture(autouse=True)
def canonical_milestones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Labels from the canonical keys, whatever labels rules/data/milestones/ holds today."""
    use_keys_only_milestones(monkeypatch, tmp_path)


def activities_for(
    engine: Engine, port: int, after_delivery: Callable[[object], None] | None = None
) -> NoticeActivities:
    return NoticeActivities(
        engine,
        NoticeRenderer(),
        SmtpTransport("127.0.0.1", port, timeout=5),
        after_delivery=after_delivery,
        mail_from=MAIL_FROM,
    )


@pytest.mark.parametrize("kind", PROJECT_NOTICE_KINDS)
def test_each_kind_sent_exactly_once_to_its_recipients(
    kind: str, engine: Engine, smtp: tuple[int, Collector]
) -> None:
    port, collector = smtp
    acts = activities_for(engine, port)
    req = make_project_request(kind)
    env = ActivityEnvironment()

    receipt = env.run(acts.send_project_notice, req)
    assert receipt.delivered and not receipt.already_sent
    assert receipt.transport == "smtp" and receipt.notice_key == req.notice_key
    again = env.run(acts.send_project_notice, req)
    assert again.already_sent and again.delivered and again.location == receipt.location

    [(rcpt_tos, msg)] = collector.for_key(req.notice_key)
    to, cc = recipients(kind)
    assert rcpt_tos == to + cc
    assert msg["To"] == ", ".join(to)
    assert msg["Cc"] == ", ".join(cc)
    assert msg["From"] == CITY_FROM
    assert msg["Reply-To"] == "pm@cotati.example"  # the project manager answers
    assert msg["Subject"] == EXPECTED_SUBJECTS[kind]
    assert msg["Message-ID"] == message_id_for(req.notice_key)
    assert msg.get_content_type() == "multipart/alternative"
    text, html = parts(msg)
    assert req.notice_key not in text and "Cotati Village" in html

    row = notice_row(engine, req.notice_key)
    assert row is not None
    assert row.application_id == "PA-21-29"  # the project id, in the notice's subject column
    assert row.kind == kind
    assert row.delivery_state == "delivered" and row.attempts == 1
    assert row.to_addrs == to and row.cc_addrs == cc
    assert row.subject == msg["Subject"]


def test_recipients_follow_the_brief() -> None:
    assert recipients("review_reminder") == ([PLANNING_REVIEWER], [PM])
    assert recipients("review_escalation") == ([PLANNING_HEAD], [PLANNING_REVIEWER, PM])
    assert recipients("applicant_digest") == ([APPLICANT], [PM])
    assert recipients("window_reminder") == ([APPLICANT], [PM])
    assert recipients("construction_checkin") == ([PM], [ENVIRONMENTAL_REVIEWER])
    assert recipients("signoff_confirmation") == ([PM, ENGINEERING_REVIEWER], [APPLICANT])
    assert ENGINEERING_HEAD not in recipients("signoff_confirmation")[0]


def test_crash_after_delivery_is_not_resent(engine: Engine, smtp: tuple[int, Collector]) -> None:
    port, collector = smtp
    calls: list[str] = []

    def crash_once(req: object) -> None:
        assert isinstance(req, ProjectNoticeRequest)
        calls.append(req.notice_key)
        if len(calls) == 1:
            raise RuntimeError("worker died after the SMTP server accepted the message")

    acts = activities_for(engine, port, after_delivery=crash_once)
    req = make_project_request("review_escalation")
    env = ActivityEnvironment()

    with pytest.raises(RuntimeError, match="worker died"):
        env.run(acts.send_project_notice, req)
    receipt = env.run(acts.send_project_notice, req)
    assert receipt.already_sent and receipt.delivered

    assert len(collector.for_key(req.notice_key)) == 1
    assert len(collector.messages) == 1
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state == "delivered" and row.attempts == 1


def test_smtp_down_then_up_delivers_exactly_once(engine: Engine) -> None:
    port = free_port()  # nothing listens here yet
    acts = activities_for(engine, port)
    req = make_project_request("applicant_digest")
    env = ActivityEnvironment()

    with pytest.raises(OSError):
        env.run(acts.send_project_notice, req)
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state == "failed" and row.last_error

    controller, collector = start_smtp(port)
    try:
        assert not env.run(acts.send_project_notice, req).already_sent
        assert env.run(acts.send_project_notice, req).already_sent
        assert len(collector.for_key(req.notice_key)) == 1
    finally:
        controller.stop()
    row = notice_row(engine, req.notice_key)
    assert row is not None and row.delivery_state == "delivered" and row.attempts == 2


def test_shot_clock_and_project_notices_share_the_table(
    engine: Engine, smtp: tuple[int, Collector]
) -> None:
    port, collector = smtp
    acts = activities_for(engine, port)
    env = ActivityEnvironment()
    env.run(acts.send_notice, make_request("reminder"))
    env.run(acts.send_project_notice, make_project_request("signoff_confirmation"))
    with session_factory(engine)() as session:
        rows = session.scalars(select(Notice).order_by(Notice.application_id)).all()
        assert [(r.application_id, r.kind) for r in rows] == [
            ("APP-1", "reminder"),
            ("PA-21-29", "signoff_confirmation"),
        ]
    assert len(collector.messages) == 2


def test_bad_requests_are_non_retryable(engine: Engine, smtp: tuple[int, Collector]) -> None:
    port, collector = smtp
    acts = activities_for(engine, port)
    env = ActivityEnvironment()

    unknown = make_project_request("review_reminder")
    unknown.kind = "reminder"  # a shot-clock kind is not a project kind
    with pytest.raises(ApplicationError, match="unknown project notice kind") as info:
        env.run(acts.send_project_notice, unknown)
    assert info.value.non_retryable and info.value.type == "UnknownNoticeKind"

    missing = make_project_request("signoff_confirmation")
    del missing.details["signed_by"]
    with pytest.raises(ApplicationError, match="missing signed_by") as info:
        env.run(acts.send_project_notice, missing)
    assert info.value.non_retryable and info.value.type == "InvalidNoticeDetails"

    nobody = make_project_request("window_reminder")
    nobody.to, nobody.cc = [""], ["  "]
    with pytest.raises(ApplicationError, match="no recipient") as info:
        env.run(acts.send_project_notice, nobody)
    assert info.value.non_retryable

    assert collector.messages == []
    with session_factory(engine)() as session:
        assert session.scalar(select(func.count()).select_from(Notice)) == 0
