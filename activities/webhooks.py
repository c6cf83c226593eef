"""Signed outbound webhooks on deadline events: the activity `dispatch_webhooks`, run over
and over by WebhookDispatchWorkflow.

Each run (1) reads the events that happened since the last run from the read model, by
source and cursor: a clock opened, tolled, at risk, lapsed or decided; a condition
cleared; a milestone signed off; (2) queues one delivery per event per subscription
that wants it, once (unique by subscription and event key); (3) POSTs each delivery that
is due, signed, and logs the attempt; a refused or failed attempt is tried again after
a backoff that doubles (BASE_BACKOFF, 2x, 4x ... up to MAX_BACKOFF), MAX_ATTEMPTS times.

It is idempotent: an event found twice is queued once, a delivered delivery is never
sent again, and a run cut off part-way leaves the rest for the next run. Delivery is at
least once (a receiver that answered 2xx after the connection broke gets it again): the
X-Clearance-Delivery header is the delivery's key for the receiver to dedupe by.

Signature: X-Clearance-Signature is `sha256=` + hex HMAC-SHA256 of
`<X-Clearance-Timestamp>.<body>` with the subscription's secret."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import Engine, func, select, update
from temporalio import activity

from models.database import dialect_insert, session_factory
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    PermitClockRow,
    WebhookCursor,
    WebhookDelivery,
    WebhookSubscription,
)
from models.webhooks import sign

BASE_BACKOFF = timedelta(seconds=5)
MAX_BACKOFF = timedelta(hours=1)
MAX_ATTEMPTS = 10
BATCH = 50
TIMEOUT_S = 10.0
IDLE = timedelta(seconds=15)  # how long the workflow sleeps when nothing is due
SHOT_LAPSED = ("expired", "deemed_granted", "deemed_approved")
PERMIT_DECIDED = ("met", "met_late")
# Rows changed this long before the cursor are read again (a transaction that committed
# late); the unique event key keeps them from being queued twice.
OVERLAP = timedelta(minutes=5)


@dataclass(frozen=True)
class Event:
    key: str
    type: str
    payload: dict[str, Any]


def backoff(attempts: int) -> timedelta:
    return min(BASE_BACKOFF * (2 ** max(attempts - 1, 0)), MAX_BACKOFF)


class WebhookActivities:
    def __init__(
        self,
        engine: Engine,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        post: Callable[..., httpx.Response] | None = None,
    ) -> None:
        self._engine = engine
        self._sessions = session_factory(engine)
        self._now = now
        self._post = post or httpx.post

    @activity.defn
    def dispatch_webhooks(self) -> float:
        """Queue new events, deliver what is due; the seconds until the next is due."""
        with self._sessions.begin() as session:
            subscriptions = list(
                session.scalars(select(WebhookSubscription).where(WebhookSubscription.active))
            )
            session.expunge_all()
        if not subscriptions:
            # Nobody listens: read and write nothing (the cursors start with the first
            # subscription, so it hears what happens from then on).
            return IDLE.total_seconds()
        self._queue(subscriptions)
        return self._deliver()

    # -- finding events -------------------------------------------------------------------

    def _queue(self, subscriptions: list[WebhookSubscription]) -> None:
        with self._sessions.begin() as session:
            events = list(self._events(session))
            now = self._now()
            table = WebhookDelivery.__table__
            for event in events:
                for sub in subscriptions:
                    if sub.events and event.type not in sub.events:
                        continue
                    session.execute(
                        dialect_insert(self._engine, table)
                        .values(
                            subscription_id=sub.id,
                            event_key=event.key,
                            event_type=event.type,
                            payload=event.payload,
                            state="pending",
                            attempts=0,
                            next_attempt_at=now,
                            last_error="",
                            log=[],
                            created_at=now,
                        )
                        .on_conflict_do_nothing(
                            index_elements=[table.c.subscription_id, table.c.event_key]
                        )
                    )

    def _cursor(self, session: Any, source: str, ids: Any = None) -> WebhookCursor:
        cursor = session.get(WebhookCursor, source)
        if cursor is None:
            # The first run with a subscription starts from now: what came before is not
            # news to it.
            last = session.scalar(select(func.max(ids))) if ids is not None else None
            cursor = WebhookCursor(source=source, last_id=last or 0, last_at=self._now())
            session.add(cursor)
        return cursor

    def _events(self, session: Any) -> Iterator[Event]:
        yield from self._clock_events(session)
        yield from self._audit_events(session)
        yield from self._states(session)

    def _clock_events(self, session: Any) -> Iterator[Event]:
        cursor = self._cursor(session, "clock_events", ClockEventRow.id)
        rows = session.scalars(
            select(ClockEventRow)
            .where(ClockEventRow.id > cursor.last_id)
            .order_by(ClockEventRow.id)
        ).all()
        kinds = {"submitted": "clock.opened", "incomplete_notice": "clock.tolled"}
        kinds["decision"] = "clock.decided"
        for row in rows:
            cursor.last_id = max(cursor.last_id, row.id)
            kind = kinds.get(row.type)
            if kind is None:
                continue
            yield Event(
                f"{kind}:shot-clock:{row.application_id}:{row.event_id}",
                kind,
                {
                    "event": kind,
                    "clock": "shot_clock",
                    "id": row.application_id,
                    "date": row.date,
                    "detail": {k: v for k, v in (row.payload or {}).items() if k != "items"},
                },
            )

    def _audit_events(self, session: Any) -> Iterator[Event]:
        cursor = self._cursor(session, "audit_log", AuditRow.id)
        rows = session.scalars(
            select(AuditRow).where(AuditRow.id > cursor.last_id).order_by(AuditRow.id)
        ).all()
        for row in rows:
            cursor.last_id = max(cursor.last_id, row.id)
            details = row.details or {}
            if row.action == "review_cleared" or details.get("to") == "cleared":
                kind = "condition.cleared"
                subject: dict[str, Any] = {"condition": row.condition_number}
            elif row.action == "milestone_signed_off":
                kind = "milestone.signed_off"
                subject = {"milestone": details.get("milestone") or row.reason}
            else:
                continue
            yield Event(
                f"{kind}:{row.project_id}:{row.audit_id}",
                kind,
                {
                    "event": kind,
                    "project": row.project_id,
                    "at": row.at,
                    "by": row.actor,
                    **subject,
                },
            )

    def _states(self, session: Any) -> Iterator[Event]:
        """Clocks whose row changed since the last run: lapsed, at risk, and for permit
        clocks opened, paused (tolled) and met (decided). Keyed by the clock and its date,
        so a clock that moves on and lapses again later is a new event."""
        cursor = self._cursor(session, "clock_rows")
        since = (cursor.last_at or self._now()) - OVERLAP
        cursor.last_at = self._now()
        for app in session.scalars(select(Application).where(Application.updated_at >= since)):
            base = {"clock": "shot_clock", "id": app.application_id, "date": app.conservative_date}
            if app.status in SHOT_LAPSED:
                yield Event(
                    f"clock.lapsed:shot-clock:{app.application_id}:{app.conservative_date}",
                    "clock.lapsed",
                    {"event": "clock.lapsed", "status": app.status, **base},
                )
            elif app.risk_flagged:
                yield Event(
                    f"clock.at_risk:shot-clock:{app.application_id}:{app.conservative_date}",
                    "clock.at_risk",
                    {"event": "clock.at_risk", "status": app.status, **base},
                )
        for row in session.scalars(
            select(PermitClockRow).where(PermitClockRow.updated_at >= since)
        ):
            base = {"clock": "permit_clock", "id": row.clock_id, "rule": row.rule}
            if row.created_at >= since:
                yield Event(
                    f"clock.opened:permit-clock:{row.clock_id}",
                    "clock.opened",
                    {"event": "clock.opened", "date": row.start_date, **base},
                )
            if row.status == "lapsed":
                kind, day = "clock.lapsed", row.conservative_date
            elif row.status in PERMIT_DECIDED:
                kind, day = "clock.decided", (row.clock or {}).get("met_date")
            elif row.status == "paused":
                # Paused (an outside agency's review, a moratorium): the permit clock's
                # tolling, keyed by the date it now runs to.
                kind, day = "clock.tolled", row.conservative_date
            elif row.escalated:
                kind, day = "clock.at_risk", row.conservative_date
            else:
                continue
            yield Event(
                f"{kind}:permit-clock:{row.clock_id}:{day}",
                kind,
                {"event": kind, "status": row.status, "date": day, **base},
            )

    # -- delivering -----------------------------------------------------------------------

    def _deliver(self) -> float:
        now = self._now()
        with self._sessions() as session:
            due = [
                (row[0], row[1])
                for row in session.execute(
                    select(WebhookDelivery, WebhookSubscription)
                    .join(WebhookSubscription)
                    .where(
                        WebhookDelivery.state == "pending", WebhookDelivery.next_attempt_at <= now
                    )
                    .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
                    .limit(BATCH)
                )
            ]
            session.expunge_all()
        for delivery, sub in due:
            self._attempt(delivery, sub)
        with self._sessions() as session:
            upcoming = session.scalar(
                select(WebhookDelivery.next_attempt_at)
                .where(WebhookDelivery.state == "pending")
                .order_by(WebhookDelivery.next_attempt_at)
                .limit(1)
            )
        if upcoming is None:
            return IDLE.total_seconds()
        if upcoming.tzinfo is None:
            upcoming = upcoming.replace(tzinfo=UTC)
        wait = (upcoming - self._now()).total_seconds()
        return max(1.0, min(wait, IDLE.total_seconds()))

    def _attempt(self, delivery: WebhookDelivery, sub: WebhookSubscription) -> None:
        body = json.dumps(
            {"delivery": delivery.event_key, "type": delivery.event_type, **delivery.payload},
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
        timestamp = str(int(self._now().timestamp()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "Clearance-Webhooks/1",
            "X-Clearance-Event": delivery.event_type,
            "X-Clearance-Delivery": delivery.event_key,
            "X-Clearance-Timestamp": timestamp,
            "X-Clearance-Signature": sign(sub.secret, timestamp, body),
        }
        started = time.monotonic()
        try:
            answer = self._post(sub.url, content=body, headers=headers, timeout=TIMEOUT_S)
            status: int | None = answer.status_code
            error = "" if 200 <= answer.status_code < 300 else f"answered {answer.status_code}"
        except httpx.HTTPError as err:
            status, error = None, f"{type(err).__name__}: {err}"[:300]
        attempts = delivery.attempts + 1
        now = self._now()
        entry = {
            "at": now.isoformat(),
            "status": status,
            "error": error,
            "ms": round((time.monotonic() - started) * 1000),
        }
        values: dict[str, Any] = {"attempts": attempts, "log": [*delivery.log, entry]}
        if not error:
            values.update(state="delivered", delivered_at=now, last_error="")
        elif attempts >= MAX_ATTEMPTS:
            values.update(state="failed", last_error=error)
        else:
            values.update(next_attempt_at=now + backoff(attempts), last_error=error)
        with self._sessions.begin() as session:
            # Only the attempt that found it pending records (a second run does nothing).
            session.execute(
                update(WebhookDelivery)
                .where(
                    WebhookDelivery.id == delivery.id,
                    WebhookDelivery.state == "pending",
                    WebhookDelivery.attempts == delivery.attempts,
                )
                .values(values)
            )
