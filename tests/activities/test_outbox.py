"""The outbox transport: one .eml per notice key, written atomically, one DB row."""

from __future__ import annotations

import dataclasses
import email
from email import policy
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import Engine, func, select
from temporalio.testing import ActivityEnvironment

from activities.mail import (
    NOTICE_KEY_HEADER,
    OutboxTransport,
    SmtpTransport,
    build_message,
    message_id_for,
    outbox_filename,
    transport_from_settings,
)
from activities.notices import NoticeActivities
from models.database import session_factory
from models.schema import Notice
from models.shot_clock import NoticeRequest
from notices.letter import RenderedNotice
from notices.render import NoticeRenderer
from settings import load_settings
from tests.activities.fixtures import make_clock, make_request


def read_eml(path: Path) -> EmailMessage:
    msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def bodies(msg: EmailMessage) -> tuple[str, str]:
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def test_send_twice_leaves_one_file_and_one_row(engine: Engine, tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    acts = NoticeActivities(
        engine, NoticeRenderer(), OutboxTransport(outbox), mail_from="clearance@cotati.example"
    )
    req = make_request("reminder")
    env = ActivityEnvironment()

    first = env.run(acts.send_notice, req)
    second = env.run(acts.send_notice, req)

    assert first.delivered and not first.already_sent
    assert first.transport == "outbox"
    assert second.already_sent and second.location == first.location
    files = sorted(outbox.iterdir())
    assert [f.name for f in files] == [outbox_filename(req.notice_key)]
    assert str(files[0]) == first.location
    with session_factory(engine)() as session:
        assert session.scalar(select(func.count()).select_from(Notice)) == 1
        row = session.get(Notice, req.notice_key)
        assert row is not None and row.delivery_state == "delivered" and row.attempts == 1

    msg = read_eml(files[0])
    assert msg.get_content_type() == "multipart/alternative"
    assert msg[NOTICE_KEY_HEADER] == req.notice_key
    assert msg["Message-ID"] == message_id_for(req.notice_key)
    assert msg["Subject"].startswith("Shot clock reminder: APP-1 — 7 days left to act, by ")
    text, html = bodies(msg)
    assert "Ledger" in text and "<table" in html


def test_same_key_same_file_and_no_temp_files(tmp_path: Path) -> None:
    transport = OutboxTransport(tmp_path / "outbox")
    key = "APP-1/reminder:2026-04-20:7d"

    def message(body: str) -> EmailMessage:
        rendered = RenderedNotice("subject", body, f"<p>{body}</p>")
        return build_message(key, rendered, mail_from="a@b.example", to=["c@d.example"], cc=[])

    first = transport.deliver(message("first"))
    second = transport.deliver(message("second"))

    assert first == second
    assert [p.name for p in (tmp_path / "outbox").iterdir()] == [Path(first).name]
    assert bodies(read_eml(Path(first)))[0].strip() == "second"


def test_keys_that_look_alike_get_different_files() -> None:
    a, b = outbox_filename("APP-1/x:1"), outbox_filename("APP-1:x/1")
    assert a != b
    assert a.endswith(".eml") and "/" not in a and ":" not in a


def test_transport_from_settings() -> None:
    base = load_settings()
    smtp = transport_from_settings(
        dataclasses.replace(base, smtp_host="mail.example", smtp_port=2525)
    )
    assert isinstance(smtp, SmtpTransport) and smtp.port == 2525
    outbox = transport_from_settings(dataclasses.replace(base, smtp_host=""))
    assert isinstance(outbox, OutboxTransport) and outbox.folder == base.outbox_dir


# What the written notices say, read back from the outbox files.


def send_to_outbox(engine: Engine, tmp_path: Path, req: NoticeRequest) -> tuple[str, str]:
    acts = NoticeActivities(
        engine, NoticeRenderer(), OutboxTransport(tmp_path / "outbox"), mail_from="c@d.example"
    )
    receipt = ActivityEnvironment().run(acts.send_notice, req)
    return bodies(read_eml(Path(receipt.location)))


def test_window_closing_explains_what_a_missed_window_costs(engine: Engine, tmp_path: Path) -> None:
    text, html = send_to_outbox(engine, tmp_path, make_request("window_closing"))
    assert "closes on Thursday, March 12, 2026" in text
    assert "no longer resets the clock" in text and "no longer resets the clock" in html


def test_first_notice_window_text(engine: Engine, tmp_path: Path) -> None:
    req = make_request("window_closing")
    req.details = {
        "window": {"kind": "first_notice", "closes": "2026-02-04", "rule": "47 CFR 1.6003(d)(2)"},
        "offset_days": 1,
    }
    text, _ = send_to_outbox(engine, tmp_path, req)
    assert "a first notice no longer tolls the clock" in text
    assert "in 1 day." in text


def test_letter_without_dates_says_the_clock_waits_for_the_applicant(
    engine: Engine, tmp_path: Path
) -> None:
    req = make_request("incompleteness_notice")
    assert req.clock["shot_clock_date"] is None  # SWF reset, waiting for resubmission
    text, html = send_to_outbox(engine, tmp_path, req)
    assert "The shot clock has been reset" in text and "The shot clock has been reset" in html
    assert "March 10, 2026" in text
    assert "Resets the clock" in text


def test_letter_with_a_late_notice_states_the_dates(engine: Engine, tmp_path: Path) -> None:
    req = make_request("incompleteness_notice")
    event = {
        "type": "incomplete_notice",
        "date": "2026-02-20",
        "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
    }
    req.clock = make_clock(
        "macro_collocation", [{"type": "submitted", "date": "2026-01-05"}, event]
    )
    req.details = {
        "event": event,
        "effect": next(e for e in req.clock["ledger"] if e["event"] == "incomplete_notice"),
    }
    text, _ = send_to_outbox(engine, tmp_path, req)
    assert "No effect on the clock" in text
    assert "Shot clock date (the date by which the City must act): April 6, 2026" in text


def test_late_decision_is_called_late(engine: Engine, tmp_path: Path) -> None:
    req = make_request("decision_confirmation")
    event = {"type": "decision", "date": "2026-04-10", "outcome": "denied"}
    req.clock = make_clock(
        "macro_collocation", [{"type": "submitted", "date": "2026-01-05"}, event]
    )
    req.details = {"event": event}
    assert req.clock["status"] == "decided_late"
    text, html = send_to_outbox(engine, tmp_path, req)
    assert "DENIED" in text and "after the shot clock date" in text
    assert "after the shot clock date" in html
