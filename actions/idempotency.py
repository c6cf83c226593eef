"""The idempotency key of the request being served, as the action layer sees it.

The web app (web/middleware/idempotency.py) stores each key's first outcome and replays
it; that covers a retry after an answer was given. A retry after *no* answer (an update
whose RPC timed out while a worker died) is covered here: every workflow update sent
under a key gets an update id made from the key, and Temporal runs an update id at most
once per workflow run (a second request with that id waits for, or returns, the first
one's result). A workflow start under a key carries the key in its memo, so a retry that
finds the workflow already there knows it was its own first attempt, not someone else's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

MEMO_FIELD = "clearance_idempotency"


@dataclass
class Attempt:
    """One request's key, scoped to who sent it (a user id)."""

    scope: str
    key: str
    # How many updates of each name this request has sent to each workflow, so two
    # updates of one request get two ids, the same two on a retry.
    sent: dict[tuple[str, str], int] = field(default_factory=dict)

    def token(self) -> str:
        return hashlib.sha256(f"{self.scope}\0{self.key}".encode()).hexdigest()[:40]


_current: ContextVar[Attempt | None] = ContextVar("clearance_idempotency", default=None)


@contextmanager
def attempt(scope: str, key: str) -> Iterator[Attempt]:
    """The key of the request served inside this block."""
    current = Attempt(scope, key)
    reset = _current.set(current)
    try:
        yield current
    finally:
        _current.reset(reset)


def update_id(workflow_id: str, update: str) -> str | None:
    """The Temporal update id for this request's next `update` on `workflow_id`: derived
    from the key (never the key itself), or None (Temporal picks one) without a key."""
    current = _current.get()
    if current is None:
        return None
    n = current.sent.get((workflow_id, update), 0)
    current.sent[(workflow_id, update)] = n + 1
    return f"idem-{current.token()}-{update}-{n}"


def start_memo() -> dict[str, str]:
    """The memo a workflow started by this request carries: who started it, by key."""
    current = _current.get()
    return {} if current is None else {MEMO_FIELD: current.token()}


def started_by_this_key(memo: dict[str, object]) -> bool:
    """Whether a workflow's memo says this request's key started it."""
    current = _current.get()
    return current is not None and memo.get(MEMO_FIELD) == current.token()
