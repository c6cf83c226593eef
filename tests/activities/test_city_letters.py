"""A letter from a city an administrator set up or edited in the app goes out with that
city's current version: its From, Reply-To and letterhead, not the deployment's; a city
nobody saved a version of keeps its shipped file; a retry after a new version never
sends a second letter."""

from __future__ import annotations

import dataclasses
import email
from datetime import UTC, date, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert
from temporalio.testing import ActivityEnvironment

from activities.mail import OutboxTransport
from activities.notices import NoticeActivities
from models.schema import JurisdictionVersion
from models.shot_clock import NoticeRequest
from notices.render import NoticeRenderer
from tests.activities.fixtures import make_request
from tests.rules.kernel.test_jurisdiction_documents import sample

DEPLOYMENT_FROM = "clearance@deployment.example"


def save_version(
    engine: Engine, doc: dict[str, Any], version: int, effective: date | None = None
) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(JurisdictionVersion).values(
                jurisdiction=doc["key"],
                version=version,
                effective_from=(effective or date(2020, 1, 1)).isoformat(),
                document=doc,
                changed=[],
                actor="admin@city.example",
                reason="test",
                rebase=False,
                created_at=datetime.now(UTC),
            )
        )


def in_city(req: NoticeRequest, key: str, notice_key: str) -> NoticeRequest:
    app = req.application
    calendar = dataclasses.replace(app.calendar, jurisdiction=key)
    return dataclasses.replace(
        req,
        notice_key=notice_key,
        application=dataclasses.replace(
            app, calendar=calendar, contacts=dataclasses.replace(app.contacts, planner_email="")
        ),
    )


def activities(engine: Engine, tmp_path: Path) -> NoticeActivities:
    """The notice activities of a deployment whose own sender is DEPLOYMENT_FROM."""
    return NoticeActivities(
        engine, NoticeRenderer(), OutboxTransport(tmp_path / "out"), mail_from=DEPLOYMENT_FROM
    )


def sent(acts: NoticeActivities, req: NoticeRequest) -> EmailMessage:
    receipt = ActivityEnvironment().run(acts.send_notice, req)
    msg = email.message_from_bytes(Path(receipt.location).read_bytes(), policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def html_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def letter_from_saved_city(
    engine: Engine, tmp_path: Path, kind: str, notice_key: str
) -> tuple[NoticeActivities, dict[str, Any], EmailMessage]:
    """A letter of `kind` sent by the sample city, saved once by its administrator."""
    acts = activities(engine, tmp_path)
    doc = sample()
    save_version(engine, doc, 1)
    return acts, doc, sent(acts, in_city(make_request(kind), doc["key"], notice_key))


def opens_with_letterhead(text: str, doc: dict[str, Any]) -> bool:
    """A text-only mail reader sees the city's letterhead first."""
    return text.splitlines()[: len(doc["letterhead"])] == list(doc["letterhead"])


def test_a_city_set_up_in_the_app_sends_with_its_own_sender_reply_to_and_letterhead(
    engine: Engine, tmp_path: Path
) -> None:
    acts, doc, msg = letter_from_saved_city(engine, tmp_path, "reminder", "APP-1/reminder:a")
    assert msg["From"] == doc["contacts"]["mail_from"]
    assert msg["Reply-To"] == doc["contacts"]["reply_to_email"]
    html = html_of(msg)
    assert all(line in html for line in doc["letterhead"])
    assert opens_with_letterhead(text_of(msg), doc)

    # The administrator changes the sender: the next letter says so, a version in effect
    # only next month changes nothing yet, and the letter already sent is not sent again.
    doc2 = {**doc, "contacts": {**doc["contacts"], "mail_from": "Sebastopol CDD <cdd@seb.example>"}}
    save_version(engine, doc2, 2)
    later = {**doc, "contacts": {**doc["contacts"], "mail_from": "later@seb.example"}}
    save_version(engine, later, 3, date.today() + timedelta(days=40))
    again = ActivityEnvironment().run(
        acts.send_notice, in_city(make_request("reminder"), doc["key"], "APP-1/reminder:a")
    )
    assert again.already_sent
    assert len(list((tmp_path / "out").iterdir())) == 1
    msg2 = sent(acts, in_city(make_request("reminder"), doc["key"], "APP-1/reminder:b"))
    assert msg2["From"] == "Sebastopol CDD <cdd@seb.example>"


def test_a_shipped_city_with_no_saved_version_keeps_its_file(
    engine: Engine, tmp_path: Path
) -> None:
    acts = activities(engine, tmp_path)
    msg = sent(acts, in_city(make_request("reminder"), "cotati", "APP-1/reminder:c"))
    assert msg["From"] == "City of Cotati Planning <planning@cotati.example>"
    assert msg["Reply-To"] == "planner@cotati.example"


def test_a_formal_letter_opens_with_the_letterhead_once_instead_of_the_plain_heading(
    engine: Engine, tmp_path: Path
) -> None:
    _, doc, msg = letter_from_saved_city(
        engine, tmp_path, "incompleteness_notice", "APP-1/incomplete:a"
    )
    text, html = text_of(msg), html_of(msg)
    assert opens_with_letterhead(text, doc)
    # The letterhead replaces the "<city> / Planning Department" heading, not doubles it.
    assert doc["name"] + "\nPlanning Department" not in text
    assert "<strong>" + doc["name"] + "</strong><br>Planning Department" not in html
