"""Failed log-ins, counted in the database so every web process shares them.

Three counts, so an attacker is slowed without locking the real user out:
- per (account, address): after ACCOUNT_ADDRESS_FREE failures in a row that address may
  not try that account for a while, doubling with each further failure (capped). The
  user's own browser, at another address, is not affected.
- per address, whatever the account: an address guessing across many accounts is blocked
  the same way after ADDRESS_FREE failures.
- per account, from every address: never blocks (that would hand an attacker the power to
  lock anyone out); past ACCOUNT_FREE failures each attempt waits a little longer (capped
  at MAX_DELAY_S), which slows guessing from many addresses.
A count starts again after WINDOW of quiet; a successful log-in clears the account's and
the (account, address) counts.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import Engine, Table, delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from models.database import dialect_insert, session_factory
from models.schema import LoginThrottleRow

ACCOUNT_ADDRESS_FREE = 5
ADDRESS_FREE = 30
ACCOUNT_FREE = 10
FIRST_BLOCK = timedelta(seconds=30)
MAX_BLOCK = timedelta(minutes=15)
MAX_DELAY_S = 3.0
WINDOW = timedelta(minutes=15)


def block_for(failures: int, free: int) -> timedelta:
    """How long a key is blocked after its `failures`-th failure in a row: nothing up to
    `free`, then FIRST_BLOCK doubling per further failure, at most MAX_BLOCK."""
    if failures < free:
        return timedelta(0)
    return min(FIRST_BLOCK * (2 ** min(failures - free, 20)), MAX_BLOCK)


def delay_for(account_failures: int) -> float:
    """Seconds an attempt on an account waits, from its failures from every address."""
    return min(max(account_failures - ACCOUNT_FREE + 1, 0) * 0.5, MAX_DELAY_S)


def _key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Verdict:
    wait_s: float  # > 0: refused, try again in this many seconds
    delay_s: float  # seconds to wait before checking the password


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class LoginThrottle:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions: sessionmaker[Session] = session_factory(engine)

    @staticmethod
    def _keys(email: str, address: str) -> dict[str, str]:
        account = email.strip().lower()
        return {
            "account_address": _key("account_address", account, address),
            "address": _key("address", address),
            "account": _key("account", account),
        }

    def check(self, email: str, address: str, now: datetime) -> Verdict:
        keys = self._keys(email, address)
        with self._sessions() as session:
            rows = {
                r.scope: r
                for r in session.scalars(
                    select(LoginThrottleRow).where(LoginThrottleRow.key_hash.in_(keys.values()))
                )
            }
        wait = 0.0
        for scope in ("account_address", "address"):
            row = rows.get(scope)
            if row is not None and row.blocked_until is not None:
                wait = max(wait, (_aware(row.blocked_until) - now).total_seconds())
        account = rows.get("account")
        recent = account is not None and now - _aware(account.last_failure_at) < WINDOW
        return Verdict(wait, delay_for(account.failures) if account and recent else 0.0)

    def failed(self, email: str, address: str, now: datetime) -> None:
        free = {"account_address": ACCOUNT_ADDRESS_FREE, "address": ADDRESS_FREE}
        # A mapped class's __table__ is typed as a FromClause; this one is a Table.
        table = cast(Table, LoginThrottleRow.__table__)
        with self._sessions.begin() as session:
            # Forget counts nobody has added to for a window (keeps the table small).
            session.execute(delete(table).where(table.c.last_failure_at < now - WINDOW))
            for scope, key in self._keys(email, address).items():
                # One statement adds the failure, so processes counting at once never lose one.
                failures = session.execute(
                    dialect_insert(self._engine, table)
                    .values(key_hash=key, scope=scope, failures=1, last_failure_at=now)
                    .on_conflict_do_update(
                        index_elements=[table.c.key_hash],
                        set_={"failures": table.c.failures + 1, "last_failure_at": now},
                    )
                    .returning(table.c.failures)
                ).scalar_one()
                if scope in free and (blocked := block_for(failures, free[scope])):
                    session.execute(
                        update(table)
                        .where(table.c.key_hash == key)
                        .values(blocked_until=now + blocked)
                    )

    def succeeded(self, email: str, address: str) -> None:
        keys = self._keys(email, address)
        with self._sessions.begin() as session:
            session.execute(
                delete(LoginThrottleRow).where(
                    LoginThrottleRow.key_hash.in_([keys["account_address"], keys["account"]])
                )
            )

    async def pause(self, verdict: Verdict) -> None:
        if verdict.delay_s > 0:
            await asyncio.sleep(verdict.delay_s)
