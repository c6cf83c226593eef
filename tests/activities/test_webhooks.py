"""Signed outbound webhooks, delivered to a receiver this test starts on a free port: it
refuses the first attempt, the delivery is retried after its backoff and accepted, the
signature checks out with the subscription's secret, every attempt is logged, and a
delivered event is never sent again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select

from activities.webhooks import BASE_BACKOFF, WebhookActivities
from models.database import session_factory
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    PermitClockRow,
    Project,
    WebhookDelivery,
    WebhookSubscription,
)
from models.webhooks import verify
from tests.activities.webhook_receiver import Receiver

SECRET = "s3cret-for-the-test"
START = datetime(2026, 12, 1, 16, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver([503]) as r:
        yield r


def _subscribe(engine: Engine, url: str, events: list[str]) -> None:
    with session_factory(engine).begin() as db:
        db.add(
            WebhookSubscription(
                url=url, secret=SECRET, events=events, active=True, created_at=START
            )
        )


def _open_clock(engine: Engine) -> None:
    with session_factory(engine).begin() as db:
        db.add(
            Application(
                application_id="HOOK-1",
                workflow_id="shot-clock-HOOK-1",
                jurisdiction="cotati",
                category="swf_collocation",
                status="tolled",
                conservative_date="2027-01-30",
                created_at=START,
                updated_at=START,
            )
        )
        db.flush()
        for n, (kind, day) in enumerate(
            (("submitted", "2026-12-01"), ("incomplete_notice", "2026-12-08"))
        ):
            db.add(
                ClockEventRow(
                    application_id="HOOK-1",
                    event_id=f"e{n}",
                    type=kind,
                    date=day,
                    payload={"type": kind, "date": day},
                    recorded_at=START,
                )
            )


def _deliveries(engine: Engine) -> list[WebhookDelivery]:
    with session_factory(engine)() as db:
        return list(db.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def test_refused_once_then_retried_and_signed(engine: Engine, receiver: Receiver) -> None:
    clock = Clock()
    hooks = WebhookActivities(engine, now=clock)
    hooks.dispatch_webhooks()  # nobody subscribed: nothing is read or written
    _subscribe(engine, receiver.url, ["clock.opened", "clock.tolled"])
    hooks.dispatch_webhooks()  # the cursors start here: what came before is not news
    _open_clock(engine)

    wait = hooks.dispatch_webhooks()
    first, second = _deliveries(engine)
    assert (first.event_type, second.event_type) == ("clock.opened", "clock.tolled")
    # The first POST was refused (503): retried after the backoff, not before.
    assert first.state == "pending" and first.attempts == 1
    assert first.last_error == "answered 503" and first.log[0]["status"] == 503
    assert first.next_attempt_at.replace(tzinfo=UTC) == START + BASE_BACKOFF
    assert second.state == "delivered"  # the receiver refuses only once
    assert 1 <= wait <= BASE_BACKOFF.total_seconds()

    clock.now = START + timedelta(seconds=2)
    hooks.dispatch_webhooks()
    assert _deliveries(engine)[0].attempts == 1  # not yet due
    clock.now = START + BASE_BACKOFF + timedelta(seconds=1)
    hooks.dispatch_webhooks()
    first = _deliveries(engine)[0]
    assert first.state == "delivered" and first.attempts == 2
    assert [entry["status"] for entry in first.log] == [503, 204]

    # Three POSTs in all: the refused one, the tolled one, the retry; each signed.
    assert len(receiver.received) == 3
    for post in receiver.received:
        headers = post["headers"]
        assert verify(
            SECRET, headers["X-Clearance-Timestamp"], post["body"], headers["X-Clearance-Signature"]
        )
        assert not verify("another secret", headers["X-Clearance-Timestamp"], post["body"],
                          headers["X-Clearance-Signature"])  # fmt: skip
    body = json.loads(receiver.received[-1]["body"])
    assert body["type"] == "clock.opened" and body["id"] == "HOOK-1"
    assert receiver.received[-1]["headers"]["X-Clearance-Delivery"] == body["delivery"]

    # Idempotent: running again finds nothing new and sends nothing twice.
    clock.now += timedelta(minutes=10)
    hooks.dispatch_webhooks()
    hooks.dispatch_webhooks()
    assert len(receiver.received) == 3 and len(_deliveries(engine)) == 2


def test_conditions_cleared_and_milestones_signed_off(engine: Engine, receiver: Receiver) -> None:
    receiver.answers.clear()
    hooks = WebhookActivities(engine, now=Clock())
    _subscribe(engine, receiver.url, [])  # every event
    hooks.dispatch_webhooks()
    with session_factory(engine).begin() as db:
        db.add(Project(project_id="P-9", workflow_id="project-P-9", name="P", jurisdiction="cotati",
                       created_at=START, updated_at=START))  # fmt: skip
        db.add_all(
            [
                AuditRow(project_id="P-9", audit_id="000001", at=START.isoformat(), actor="pw@c",
                         role="department_reviewer", action="review_cleared", condition_number="7",
                         details={"from": "in_review", "to": "cleared"}),
                AuditRow(project_id="P-9", audit_id="000002", at=START.isoformat(), actor="eng@c",
                         role="engineering", action="milestone_signed_off", condition_number=None,
                         details={"milestone": "grading_permit"}),
                AuditRow(project_id="P-9", audit_id="000003", at=START.isoformat(), actor="pm@c",
                         role="project_manager", action="planned_dates_set", condition_number=None,
                         details={}),
            ]
        )  # fmt: skip
    hooks.dispatch_webhooks()
    types = [json.loads(p["body"])["type"] for p in receiver.received]
    assert types == ["condition.cleared", "milestone.signed_off"]
    assert json.loads(receiver.received[0]["body"])["condition"] == "7"


def test_permit_clocks_opened_paused_and_lapsed(engine: Engine, receiver: Receiver) -> None:
    receiver.answers.clear()
    clock = Clock()
    hooks = WebhookActivities(engine, now=clock)
    _subscribe(engine, receiver.url, [])
    hooks.dispatch_webhooks()
    later = START + timedelta(minutes=1)
    with session_factory(engine).begin() as db:
        for clock_id, status in (("PSA-P", "paused"), ("PSA-L", "lapsed")):
            db.add(
                PermitClockRow(
                    clock_id=clock_id, workflow_id=f"permit-clock-{clock_id}",
                    jurisdiction="cotati", rule="ca_psa_decision", status=status,
                    conservative_date="2027-02-01", created_at=later, updated_at=later,
                )
            )  # fmt: skip
    clock.now = later + timedelta(seconds=30)
    hooks.dispatch_webhooks()
    hooks.dispatch_webhooks()  # found again (the overlap): queued and sent once
    sent = sorted(
        (json.loads(p["body"])["type"], json.loads(p["body"])["id"]) for p in receiver.received
    )
    assert sent == [
        ("clock.lapsed", "PSA-L"),
        ("clock.opened", "PSA-L"),
        ("clock.opened", "PSA-P"),
        ("clock.tolled", "PSA-P"),
    ]
