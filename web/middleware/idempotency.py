"""Idempotency keys: a retried action returns its first outcome and never acts twice.

A request that changes something (POST, PUT, PATCH, DELETE) may carry a key: the API's
`Idempotency-Key` header, or a web form's hidden `idempotency_key` field (each form gets a
fresh one when it is rendered). The key belongs to the signed-in user (a token's or a
session's account); a request without a key, or without a user, is served as before.

- The first request with a key is recorded ("running") before it is served, then its
  answer (status, headers, body) is stored ("done"). A later request with that key gets
  the stored answer, marked `Idempotent-Replayed: true`, and nothing is acted on again.
- The same key with a different request (another path or body) is refused, 422.
- While the first is still being served, a second with the key gets 503 with
  `Retry-After` (it is neither refused nor done). A first attempt whose process died
  (seen from the same host) or that is older than RUNNING_LEASE no longer holds the key.
- An answer of 500 or more is not stored: such an answer left the outcome unknown (or
  nothing happened), so the retry runs again. What it sends to Temporal carries update
  ids made from the key (actions/idempotency.py), so even an update the first attempt
  did apply is not applied twice.

Stored answers are kept for KEEP_DAYS, then removed as new keys arrive.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool as run_sync
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from actions.idempotency import attempt
from models.schema import IdempotencyRecord
from operations.process_identity import holder_alive, this_process
from web.context import SESSION_COOKIE, ctx_of
from web.views.object_links import object_link

HEADER = "idempotency-key"
FORM_FIELD = "idempotency_key"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_KEY_LENGTH = 200
KEEP_DAYS = 7
# A first attempt still "running" after this long died with its process: a retry takes
# the key over (a project import may legitimately run a minute). Sooner when the process
# that claimed it is known to be gone (operations/process_identity.py).
RUNNING_LEASE = timedelta(minutes=5)
# Set-Cookie headers replayed with a stored answer: the one-minute flash message only
# (never a session cookie: no credential is stored).
REPLAYED_COOKIES = ("clearance_flash=",)
# Set by a route whose answer shows a secret once (a new token, a calendar address): the
# answer is not stored, only that the action was done, so no credential sits in the table.
SHOWN_ONCE_HEADER = "x-clearance-shown-once"
SHOWN_ONCE = (
    b"Done already: the first request with this idempotency key made it, and what it "
    b"showed is shown only once. Look at your tokens and calendar feed on /me."
)
# Fields that are not the request's content: a retry from a new page load carries the
# same action with another CSRF token.
NOT_CONTENT = frozenset({"csrf_token", FORM_FIELD})


class KeyRefused(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def now() -> datetime:
    return datetime.now(UTC)


class IdempotencyStore:
    """The `idempotency_keys` table."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def begin(
        self, scope: str, key: str, fingerprint: str, method: str, path: str
    ) -> IdempotencyRecord | None:
        """Claim the key for a first attempt (None), or the record of an earlier one."""
        started = now()
        with self.sessions() as session:
            if started.second == 0:  # now and then, forget old keys
                session.execute(
                    delete(IdempotencyRecord).where(
                        IdempotencyRecord.created_at < started - timedelta(days=KEEP_DAYS)
                    )
                )
            session.add(
                IdempotencyRecord(
                    scope=scope,
                    idem_key=key,
                    fingerprint=fingerprint,
                    method=method,
                    path=path[:500],
                    state="running",
                    holder=this_process(),
                    created_at=started,
                )
            )
            try:
                session.commit()
                return None
            except IntegrityError:
                session.rollback()
            record = session.get(IdempotencyRecord, (scope, key))
            if record is None:  # removed in between: claim it again
                return self.begin(scope, key, fingerprint, method, path)
            lapsed = record.state == "running" and (
                _aware(record.created_at) < started - RUNNING_LEASE
                or not holder_alive(record.holder)
            )
            if lapsed and record.fingerprint == fingerprint:
                record.created_at = started
                record.holder = this_process()
                session.commit()
                return None
            session.expunge(record)
            return record

    def finish(
        self, scope: str, key: str, status: int, headers: list[list[str]], body: bytes
    ) -> None:
        with self.sessions() as session:
            record = session.get(IdempotencyRecord, (scope, key))
            if record is None:
                return
            record.state = "done"
            record.status = status
            record.headers = headers
            record.body = body
            record.finished_at = now()
            session.commit()

    def forget(self, scope: str, key: str) -> None:
        """The first attempt's outcome is unknown (or it never acted): let a retry run."""
        with self.sessions() as session:
            session.execute(
                delete(IdempotencyRecord).where(
                    IdempotencyRecord.scope == scope, IdempotencyRecord.idem_key == key
                )
            )
            session.commit()


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Idempotency:
    """The middleware (inside the database-outage one, so a locked database while a key
    is claimed answers 503, not 500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WRITE_METHODS:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if not _may_carry_key(request):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            key = await _key_of(request, scope, body)
            # The database calls run on a thread: a lock wait must not stall other requests.
            who = await run_sync(_user_scope, request) if key else None
            if key is None or who is None:
                await self.app(scope, _replaying(body, receive), send)
                return
            fingerprint = await _fingerprint(request, scope, body)
        except KeyRefused as refused:
            await _refusal(request, refused)(scope, _replaying(body), send)
            return
        store = IdempotencyStore(ctx_of(request).sessions)
        earlier = await run_sync(
            store.begin, who, key, fingerprint, request.method, request.url.path
        )
        if earlier is not None:
            answer = _earlier_answer(request, earlier, fingerprint)
            await answer(scope, _replaying(body), send)
            return
        captured = _Captured(send)
        try:
            with attempt(who, key):
                await self.app(scope, _replaying(body, receive), captured.send)
        except BaseException:
            await run_sync(store.forget, who, key)
            raise
        if captured.status is None or captured.status >= 500:
            await run_sync(store.forget, who, key)
        elif captured.shown_once:
            headers = [["content-type", "text/plain; charset=utf-8"]]
            await run_sync(store.finish, who, key, captured.status, headers, SHOWN_ONCE)
        else:
            kept = captured.kept_headers()
            await run_sync(store.finish, who, key, captured.status, kept, captured.body)


def _may_carry_key(request: Request) -> bool:
    if HEADER in request.headers:
        return True
    kind = request.headers.get("content-type", "")
    return kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data"))


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, then: Receive | None = None) -> Receive:
    """A receive that gives the body read already, then waits on the client's own
    (a disconnect is reported when it happens, not at once)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


async def _key_of(request: Request, scope: Scope, body: bytes) -> str | None:
    replay = _replaying(body)
    key = request.headers.get(HEADER)
    if key is None and FORM_FIELD.encode() in body:
        # Only a form that carries the field is parsed here (an upload without it, such
        # as the applicant portal's, is parsed once, by its route).
        form = await _form(scope, replay)
        value = form.get(FORM_FIELD) if form is not None else None
        key = value if isinstance(value, str) else None
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise KeyRefused(
            f"Idempotency-Key: give 1 to {MAX_KEY_LENGTH} printable ASCII characters "
            "(a fresh UUID per action is best)",
            400,
        )
    return key


async def _form(scope: Scope, receive: Receive) -> Any:
    kind = Request(scope).headers.get("content-type", "")
    if not kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return None
    try:
        return await Request(scope, receive).form()
    except Exception:  # noqa: BLE001 - a malformed form is the route's to refuse
        return None


def _user_scope(request: Request) -> str | None:
    """Whose key this is: the account of the bearer token or of the session cookie."""
    accounts = ctx_of(request).accounts
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        user = accounts.user_for_api_token(header[7:].strip())
        return f"user:{user.id}" if user is not None else None
    cookie = request.cookies.get(SESSION_COOKIE, "")
    session = accounts.session_for(cookie) if cookie else None
    return f"user:{session.user.id}" if session is not None else None


async def _fingerprint(request: Request, scope: Scope, body: bytes) -> str:
    """What makes two requests the same action: method, path, query and content (a
    form's fields, whatever their order or multipart boundary; files by their bytes)."""
    digest = hashlib.sha256()
    digest.update(f"{request.method} {request.url.path}?{request.url.query}\n".encode())
    kind = request.headers.get("content-type", "")
    if kind.startswith("application/x-www-form-urlencoded"):
        fields = parse_qsl(body.decode("latin-1"), keep_blank_values=True)
        digest.update(json.dumps(sorted(f for f in fields if f[0] not in NOT_CONTENT)).encode())
    elif kind.startswith("multipart/form-data"):
        form = await Request(scope, _replaying(body)).form()
        parts: list[tuple[str, str]] = []
        for name, value in form.multi_items():
            if name in NOT_CONTENT:
                continue
            if isinstance(value, UploadFile):
                content = await value.read()
                parts.append((name, f"file:{hashlib.sha256(content).hexdigest()}"))
            else:
                parts.append((name, value))
        await form.close()
        digest.update(json.dumps(sorted(parts)).encode())
    else:
        digest.update(body)
    return digest.hexdigest()


def _earlier_answer(request: Request, earlier: IdempotencyRecord, fingerprint: str) -> Response:
    if earlier.fingerprint != fingerprint:
        return _refusal(
            request,
            KeyRefused(
                f"Idempotency-Key {earlier.idem_key!r} was already used for a different "
                f"request ({earlier.method} {earlier.path}); use a new key for a new action",
                422,
            ),
        )
    if earlier.state != "done" or earlier.status is None:
        message = (
            "outcome unknown: check before retrying (the first request with this "
            "idempotency key is still being served)"
        )
        link = object_link(request.url.path, request.url.path.startswith("/api/"))
        headers = {"Retry-After": "2"}
        if request.url.path.startswith("/api/"):
            return JSONResponse(
                {"error": message, "outcome": "unknown", "check": link}, 503, headers
            )
        return Response(f"{message}: {link}", 503, headers, media_type="text/plain")
    response = Response(earlier.body or b"", status_code=earlier.status)
    for name, value in earlier.headers or []:
        response.headers.append(name, value)
    response.headers["Idempotent-Replayed"] = "true"
    return response


def _refusal(request: Request, refused: KeyRefused) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": refused.message}, refused.status)
    return Response(refused.message, refused.status, media_type="text/plain")


class _Captured:
    """Passes the answer on to the client and keeps a copy."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""
        self.shown_once = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            headers = list(message.get("headers", []))
            self.headers = [h for h in headers if h[0].lower() != SHOWN_ONCE_HEADER.encode()]
            self.shown_once = len(self.headers) != len(headers)
            message = {**message, "headers": self.headers}
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")
        await self._send(message)

    def kept_headers(self) -> list[list[str]]:
        kept: list[list[str]] = []
        for raw_name, raw_value in self.headers:
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            if name == "content-length":
                continue
            if name == "set-cookie" and not value.startswith(REPLAYED_COOKIES):
                continue
            kept.append([name, value])
        return kept
