"""send_project_notice: every project notice kind renders text and HTML with the right
subject and recipients and arrives exactly once at a real SMTP server (aiosmtpd), through
the same delivery path and notices table as the shot-clock notices."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

import activities.rendering as rendering
from activities.mail import SmtpTransport, message_id_for
from activities.notices import NoticeActivities
from activities.rendering import (
    PROJECT_NOTICE_KINDS,
    InvalidNoticeDetails,
    NoticeRenderer,
    UnknownNoticeKind,
    load_milestones,
    milestone_label,
)
from models.conditions import ProjectNoticeRequest
from models.database import make_engine, session_factory
from models.schema import Notice
from tests.activities.fixtures import make_request
from tests.activities.project_fixtures import (
    APPLICANT,
    ENGINEERING_HEAD,
    ENGINEERING_REVIEWER,
    ENVIRONMENTAL_REVIEWER,
    PLANNING_HEAD,
    PLANNING_REVIEWER,
    PM,
    SCRIPT,
    make_project_request,
    recipients,
)
from tests.activities.project_fixtures import (
    PROJECT_NOTICE_KINDS as FIXTURE_KINDS,
)
from tests.activities.test_notices_smtp import (
    MAIL_FROM,
    Collector,
    free_port,
    notice_row,
    parts,
    start_smtp,
)

EXPECTED_SUBJECTS = {
    "review_reminder": (
        "Review reminder — Cotati Village: condition #3 awaiting Planning Division review, "
        "due 2027-01-19"
    ),
    "review_escalation": (
        "Overdue review — Cotati Village: condition #3 5 business days past the 2027-01-19 "
        "review date (Planning Division)"
    ),
    "applicant_digest": (
        "Cotati Village: 4 conditions still owed before Grading permit (target 2027-03-01)"
    ),
    "window_reminder": (
        "Cotati Village: condition #109 (BIO-3) due 2027-02-24 — Pre-construction nesting "
        "bird survey within 7 days before groundbreaking <scr..."
    ),
    "construction_checkin": (
        "Cotati Village: construction check-in, 2 conditions to verify (2027-03-01 to 2027-03-30)"
    ),
    "signoff_confirmation": (
        "Cotati Village: milestone signed off — Grading permit (12 conditions cleared)"
    ),
}


@pytest.fixture(autouse=True)
def canonical_milestones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Labels from the built-in keys, whatever rules/data/milestones/ holds today."""
    monkeypatch.setattr(rendering, "MILESTONES_FILE", tmp_path / "no-milestones.json")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def smtp() -> Iterator[tuple[int, Collector]]:
    port = free_port()
    controller, handler = start_smtp(port)
    yield port, handler
    controller.stop()


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


def test_every_kind_has_a_fixture() -> None:
    assert set(FIXTURE_KINDS) == set(PROJECT_NOTICE_KINDS) == set(EXPECTED_SUBJECTS)


@pytest.mark.parametrize("kind", PROJECT_NOTICE_KINDS)
def test_each_kind_renders_text_and_html(kind: str) -> None:
    req = make_project_request(kind)
    out = NoticeRenderer().render_project(req)

    assert out.subject == EXPECTED_SUBJECTS[kind]
    for body in (out.text, out.html):
        assert "Cotati Village" in body
        assert "PA-21-29" in body
        assert "City of Cotati" in body
        assert req.notice_key in body
    assert "conditions of approval tracker" in out.text
    assert out.html.lstrip().startswith("<!DOCTYPE html>")
    assert f"<title>{out.subject.replace('<', '&lt;')}" in out.html
    # Plain text shows the resolution as printed; HTML shows it inert.
    assert "<script" not in out.html
    # Nothing unrendered.
    assert "{{" not in out.text + out.html and "{%" not in out.text + out.html


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
    assert msg["From"] == MAIL_FROM
    assert msg["Subject"] == EXPECTED_SUBJECTS[kind]
    assert msg["Message-ID"] == message_id_for(req.notice_key)
    assert msg.get_content_type() == "multipart/alternative"
    text, html = parts(msg)
    assert req.notice_key in text and "Cotati Village" in html

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


def test_html_escapes_condition_text_and_text_keeps_it() -> None:
    renderer = NoticeRenderer()
    for kind in ("review_reminder", "review_escalation", "applicant_digest", "window_reminder"):
        out = renderer.render_project(make_project_request(kind))
        assert "<script" not in out.html, kind
        assert "&lt;script&gt;" in out.html, kind
        assert SCRIPT in out.text, kind


def test_review_notices_list_evidence_and_service_level() -> None:
    renderer = NoticeRenderer()
    reminder = renderer.render_project(make_project_request("review_reminder"))
    for body in (reminder.text, reminder.html):
        assert "Recorded inclusionary housing agreement" in body
        assert "agreement.pdf" in body
        assert "10 business days" in body
        assert "January 19, 2027" in body
        # Submission time in the city's time zone.
        assert "January 4, 2027, 9:30 AM PST" in body
    escalation = renderer.render_project(make_project_request("review_escalation"))
    for body in (escalation.text, escalation.html):
        assert "5 business days overdue" in body.replace("</strong>", "").replace("<strong>", "")


def test_digest_groups_by_milestone_and_department_with_comments() -> None:
    out = NoticeRenderer().render_project(make_project_request("applicant_digest"))
    text = out.text
    # The digest's milestone first, then the others in the project's milestone order.
    grading = text.index("Grading permit (1 condition):")
    ipa = text.index("Improvement plan approval (1 condition):")
    building = text.index("Building permit (2 conditions):")
    assert grading < ipa < building
    assert text.index("Public Works / Engineering", grading) < ipa
    assert grading < text.index("#60: open") < ipa
    assert ipa < text.index("#7: returned for changes") < building
    assert building < text.index("Planning Division", building)
    # The reviewer's comment on the returned item, with who and when.
    assert "older than 3 months. Please resubmit." in text
    assert "engineer@cotati.example, January 10, 2027, 8:00 AM PST" in text
    assert "including 1 returned by a reviewer with comments" in text
    assert "You set a target date of Monday, March 1, 2027" in text

    html = out.html
    assert html.index("<h2>Grading permit (1 condition)</h2>") < html.index(
        "<h2>Improvement plan approval (1 condition)</h2>"
    )
    assert "<h3>Public Works / Engineering</h3>" in html
    assert "older than 3 months. Please resubmit." in html
    assert 'class="returned"' in html


def test_weekly_digest_without_target_or_milestone_label() -> None:
    req = make_project_request("applicant_digest")
    req.details = {**req.details, "reason": "weekly", "target_date": None}
    out = NoticeRenderer().render_project(req)
    assert out.subject == "Cotati Village: 4 conditions still owed before Grading permit"
    assert "target date" not in out.text

    req.details = {**req.details, "milestone": None, "owed": []}
    out = NoticeRenderer().render_project(req)
    assert out.subject == "Cotati Village: nothing owed before the next milestone"


def test_milestone_labels_come_from_the_data_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert milestone_label("grading_permit") == "Grading permit"
    assert milestone_label("some_local_gate") == "Some local gate"

    listed = tmp_path / "list.json"
    listed.write_text(
        json.dumps(
            {
                "milestones": [
                    {"key": "grading_permit", "label": "Grading permit issued"},
                    {"key": "building_permit"},
                ]
            }
        )
    )
    assert load_milestones(listed) == [
        ("grading_permit", "Grading permit issued"),
        ("building_permit", "Building permit"),
    ]
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({"grading_permit": {"label": "Grading permit issued"}}))
    assert load_milestones(mapping) == [("grading_permit", "Grading permit issued")]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert load_milestones(broken)[0] == ("final_design_review", "Final design review")

    monkeypatch.setattr(rendering, "MILESTONES_FILE", listed)
    out = NoticeRenderer().render_project(make_project_request("signoff_confirmation"))
    assert out.subject == (
        "Cotati Village: milestone signed off — Grading permit issued (12 conditions cleared)"
    )
    # An explicit label in the details wins.
    req = make_project_request("applicant_digest")
    req.details["milestone_label"] = "Rough grading permit"
    assert "before Rough grading permit (target" in NoticeRenderer().render_project(req).subject


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


def test_renderer_errors_directly() -> None:
    renderer = NoticeRenderer()
    req = make_project_request("construction_checkin")
    req.details["conditions"] = [{"text": "no number"}]
    with pytest.raises(InvalidNoticeDetails, match="needs at least a number"):
        renderer.render_project(req)
    req.kind = "nope"
    with pytest.raises(UnknownNoticeKind):
        renderer.render_project(req)
