"""The SMTP server is down while clocks send their reminders and escalations: the notice
activities keep retrying, a prolonged failure raises one operator alert per notice (a row
in `operator_alerts`, a CRITICAL line in the JSON log, an e-mail to the operator in the
outbox), and once the server is back every notice is delivered exactly once and its alert
is resolved."""

from __future__ import annotations

import asyncio
import email
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from models.database import session_factory
from models.schema import Notice, OperatorAlert
from tests.faults.stack import (
    OPERATOR,
    check_exactly_once,
    clock_count,
    fast_forward_all,
    fault_stack,
    open_clocks,
    statuses,
    wait_for,
)

pytestmark = pytest.mark.slow

ALERT_AFTER = 3  # failed attempts (about 3 s with the workflows' 1 s, doubling backoff)


async def test_smtp_down_then_back_delivers_once_and_alerts_the_operator(
    tmp_path: Path,
) -> None:
    count = clock_count(10)
    async with fault_stack(tmp_path, CLEARANCE_MAIL_ALERT_AFTER_ATTEMPTS=str(ALERT_AFTER)) as stack:
        stack.smtp.stop()  # the mail server goes down
        clocks = await open_clocks(stack, count)
        expected = set().union(*(c.expected for c in clocks))
        # A clock sends its notices in order: while the first (the 7-day reminder) keeps
        # failing, the later ones wait behind it. The fast-forward runs meanwhile.
        first = {k for k in expected if k.endswith(":7d")}
        assert len(first) == count
        # All at once: a clock's fast-forward waits while its notice cannot be sent.
        forwarding = stack.spawn(fast_forward_all(stack, clocks, concurrency=count))

        sessions = session_factory(stack.engine)

        async def alerts_raised() -> list[OperatorAlert]:
            with sessions() as session:
                rows = list(session.scalars(select(OperatorAlert)))
            return rows if {r.subject_key for r in rows} >= first else []

        alerts = await wait_for(
            "an operator alert for every failing notice", alerts_raised, 120 + count
        )
        await asyncio.sleep(3.0)  # more failed attempts: still one alert each
        with sessions() as session:
            alerts = list(session.scalars(select(OperatorAlert)))
            failing = list(session.scalars(select(Notice)))
        assert {a.subject_key for a in alerts} == first
        assert len(alerts) == len(first)  # once each, however many attempts failed
        assert all(a.recipient == OPERATOR and a.resolved_at is None for a in alerts)
        assert {n.notice_key for n in failing} == first
        # Failed, or pending while a retry is on its way to the (still down) server.
        assert all(n.delivery_state != "delivered" and n.attempts >= ALERT_AFTER for n in failing)

        # The alert e-mails went to the outbox (SMTP is the thing that is down).
        mails = [
            email.message_from_bytes(p.read_bytes()) for p in (tmp_path / "outbox").glob("*.eml")
        ]
        assert len(mails) == len(first)
        assert {m["To"] for m in mails} == {OPERATOR}
        # And the worker logged each at CRITICAL, one JSON object per line.
        lines = [
            json.loads(x)
            for x in (tmp_path / "worker.log").read_text().splitlines()
            if x.startswith("{")
        ]
        critical = [x for x in lines if x["level"] == "CRITICAL"]
        assert {x["notice_key"] for x in critical} == first
        assert all(x.get("activity_type") == "send_notice" for x in critical)

        stack.smtp.start()  # back, on the same port
        await forwarding

        async def all_accepted() -> bool:
            return expected <= set(stack.smtp.keys())

        await wait_for("every notice at the SMTP server", all_accepted, 120 + count)
        await asyncio.sleep(2.0)
        counts = check_exactly_once(stack, clocks)
        assert counts["resent"] == 0, counts

        async def resolved() -> bool:
            with sessions() as session:
                return all(
                    a.resolved_at is not None for a in session.scalars(select(OperatorAlert))
                )

        await wait_for("every operator alert resolved", resolved, 30)
        failed = {
            k: v
            for k, v in (await statuses(stack.client, clocks)).items()
            if v not in ("RUNNING", "COMPLETED")
        }
        assert not failed, failed
