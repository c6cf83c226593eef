"""Request bodies bounded while they stream, before any handler (or Starlette's multipart
parser, which spools files to disk) sees them.

A declared Content-Length over the limit is answered 413 at once, without reading a byte
of the body; a body that keeps coming past the limit (chunked, or lying about its length)
is cut off at the limit, and the parser closes whatever it had spooled."""

from __future__ import annotations

import html
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Forms and JSON: far more than any real request (a 133-condition project is ~100 KB).
DEFAULT_OTHER_LIMIT = 2 * 1024 * 1024
# Multipart framing and the form's other fields, beyond the file itself.
MULTIPART_OVERHEAD = 256 * 1024


class BodyTooLarge(Exception):
    """The request body passed its limit while streaming."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request is larger than {limit} bytes")
        self.limit = limit


def too_large_message(limit: int, upload: bool) -> str:
    if upload:
        return f"the file is larger than {max(limit - MULTIPART_OVERHEAD, 0) // (1024 * 1024)} MB"
    return f"the request body is larger than {limit // 1024} KB"


class BodyLimit:
    def __init__(
        self, app: ASGIApp, upload_limit: int, other_limit: int = DEFAULT_OTHER_LIMIT
    ) -> None:
        self.app = app
        self.upload_limit = upload_limit + MULTIPART_OVERHEAD
        self.other_limit = other_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        upload = content_type == b"multipart/form-data"
        limit = self.upload_limit if upload else self.other_limit
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
            except ValueError:
                await _refuse(scope, send, 400, "the Content-Length header is not a number")
                return
            if length > limit:
                await _refuse(scope, send, 413, too_large_message(limit, upload))
                return

        received = 0
        refused = False

        async def bounded_receive() -> Message:
            nonlocal received, refused
            if refused:
                # Asked again after the refusal (a middleware waiting for a disconnect while
                # the 413 is sent): the body is over, as far as the app is concerned.
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    raise BodyTooLarge(limit)
            return message

        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, bounded_receive, tracked_send)
        except Exception as err:
            # Raised inside the handler's form parsing (which closes what it spooled);
            # middleware running tasks may wrap it in an ExceptionGroup.
            if started or not _only_too_large(err):
                raise
            await _refuse(scope, send, 413, too_large_message(limit, upload))


def _only_too_large(err: BaseException) -> bool:
    if isinstance(err, BaseExceptionGroup):
        return all(_only_too_large(e) for e in err.exceptions)
    return isinstance(err, BodyTooLarge)


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    """A short answer in the form the client expects (JSON for the API, else HTML);
    `Connection: close` because the unread body is not drained."""
    path = str(scope.get("path", ""))
    if path.startswith("/api/"):
        body = json.dumps({"error": message}).encode()
        kind = b"application/json"
    else:
        # A page: a small HTML page saying so (the form's page could not be re-shown,
        # its body was not read).
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            "<title>Not received</title></head><body><main><h1>Not received</h1>"
            f"<p>{html.escape(message)}. Go back and send less.</p></main></body></html>"
        ).encode()
        kind = b"text/html; charset=utf-8"
    headers: list[Any] = [
        (b"content-type", kind),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
