"""kill -9 the worker in the middle of an action, and retry it with the same key.

A planner sends a notice of incompleteness through the JSON API, then the applicant's
resubmission. Each time the worker takes the update, records the event and starts sending
the letter; the SMTP server holds the letter before taking it (MAIL FROM waits), and the
worker is killed right then. The first attempt's answer is 504, "outcome unknown: check
before retrying", naming the application to check: the event was in fact recorded, and
never a 409. A new worker starts; the planner sends the same request with the same
Idempotency-Key until it gets an answer (as `clearance` does). After each action the
clock holds one such event, the notices table one such letter, and the SMTP server took
that letter once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from models.database import session_factory
from models.schema import Application, ClockEventRow, Notice
from settings import load_settings
from tests.faults.stack import fault_stack, open_clocks, wait_for
from web.app import create_app
from web.auth.accounts import Accounts

pytestmark = pytest.mark.slow

PM = "pm@outcome.test"
ITEM = {"id": "A", "text": "RF emissions report", "rule": "CMC 17.44.070(A)"}


class HeldMail:
    """While armed, holds each SMTP transaction at MAIL FROM until released: a letter on
    its way. Installed once, before the worker connects: aiosmtpd looks a session's hooks
    up when the session starts, and the worker keeps its connections."""

    def __init__(self) -> None:
        self.held = threading.Event()
        self.release = threading.Event()
        self.armed = False

    def arm(self) -> None:
        self.held.clear()
        self.release.clear()
        self.armed = True

    def disarm(self) -> None:
        self.armed = False
        self.release.set()

    async def handle_MAIL(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if self.armed:
            self.held.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"


# Each action: its API route, its body, the event it records and the letter it sends.
ACTIONS = (
    ("notice", {"items": [ITEM]}, "incomplete_notice", "incompleteness_notice"),
    ("resubmission", {}, "resubmitted", "resubmission_confirmation"),
)


async def test_actions_cut_off_by_a_worker_kill_are_retried_once(tmp_path: Path) -> None:
    # A short sticky-queue timeout: the new worker takes the killed one's workflow soon.
    async with fault_stack(tmp_path, CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS="5") as stack:
        mail = HeldMail()
        stack.smtp.handle_MAIL = mail.handle_MAIL  # type: ignore[attr-defined]
        [clock] = await open_clocks(stack, 1)
        aid = clock.application_id
        settings = dataclasses.replace(
            load_settings(),
            temporal_address=stack.server.address,
            task_queue=stack.task_queue,
            database_url=stack.database_url,
            data_dir=tmp_path / "web",
            secret_key="outcome-test",
            public_url="http://testserver",
        )
        accounts = Accounts(stack.engine)
        accounts.add_user(PM, "project_manager", "correct horse battery staple")
        token = accounts.new_api_token(PM, "outcome test")
        app = create_app(settings, stack.client)
        app.state.ctx.gateway.rpc_timeout = timedelta(seconds=5)

        async def row_written() -> bool:
            with session_factory(stack.engine)() as session:
                return session.get(Application, aid) is not None

        await wait_for("the clock's read-model row", row_written, 60)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as api:
            for route, body, event, letter in ACTIONS:
                headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"{route}-1"}
                path = f"/api/v1/applications/{aid}/{route}"
                mail.arm()
                first = asyncio.create_task(api.post(path, json=body, headers=headers, timeout=120))
                held = await asyncio.to_thread(mail.held.wait, 120)
                early = first.result().text if first.done() else "no answer yet"
                assert held, f"{route}: the letter never reached the SMTP server ({early})"
                stack.worker.kill()  # mid-action: event recorded, letter on its way
                mail.disarm()
                answer = await first
                assert answer.status_code == 504, (route, answer.text)
                said = answer.json()
                assert said["error"].startswith("outcome unknown: check before retrying")
                assert said["outcome"] == "unknown"
                assert said["check"] == f"/api/v1/applications/{aid}"

                stack.worker.start()
                await asyncio.to_thread(stack.worker.wait_ready)
                answers = []
                for _ in range(20):  # as the CLI does: the same key until there is an answer
                    retry = await api.post(path, json=body, headers=headers, timeout=120)
                    answers.append(retry.status_code)
                    if retry.status_code not in (503, 504):
                        break
                assert retry.status_code == 200, (route, answers, retry.text)

                # A further retry is the stored answer, and acts on nothing.
                again = await api.post(path, json=body, headers=headers, timeout=120)
                assert again.status_code == 200
                assert again.headers["idempotent-replayed"] == "true"

                assert [e for e in _events(stack, aid) if e == event] == [event], (
                    route,
                    _events(stack, aid),
                )
                letters = await wait_for(
                    f"the {letter} letter delivered", lambda k=letter: _delivered(stack, aid, k), 60
                )
                assert len(letters) == 1, (route, letters)
                copies = stack.smtp.by_key().get(letters[0], [])
                assert len(copies) == 1, f"{route}: the SMTP server took {len(copies)} copies"


async def _delivered(stack: Any, aid: str, kind: str) -> list[str]:
    """The keys of the application's letters of `kind`, once all are delivered."""
    with session_factory(stack.engine)() as session:
        rows = list(
            session.scalars(select(Notice).where(Notice.application_id == aid, Notice.kind == kind))
        )
    return (
        [r.notice_key for r in rows]
        if rows and all(r.delivery_state == "delivered" for r in rows)
        else []
    )


def _events(stack: Any, aid: str) -> list[str]:
    with session_factory(stack.engine)() as session:
        return list(
            session.scalars(
                select(ClockEventRow.type)
                .where(ClockEventRow.application_id == aid)
                .order_by(ClockEventRow.id)
            )
        )
