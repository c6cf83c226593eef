"""Honest answers when the outcome is not known, and when the database cannot answer.

- `outcome_unknown`: an action that was sent but got no answer (actions.errors.
  OutcomeUnknown) answers 504 or 503, never 409 ("refused on the facts"): "outcome
  unknown: check before retrying", with the object to check (API: `check`; pages: a link).
- `DatabaseUnavailable`: every request, log-in included, that meets a locked or
  unreachable database answers 503 with `Retry-After` instead of a bare 500. A read says
  to try again; a write says its outcome is unknown (an action may have been sent before
  the database failed), with the object to check.
"""

from __future__ import annotations

import logging
from html import escape

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from actions.errors import OutcomeUnknown
from web.views.object_links import object_link

log = logging.getLogger("clearance.web")

# SQLite's busy timeout is 5 s (models/database.py): a lock usually clears by then.
RETRY_AFTER_SECONDS = 5
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Writes that act on nothing of the city's: a failed log-in attempt changed nothing.
NOT_ACTIONS = frozenset({"/login"})


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def database_unavailable(err: BaseException) -> bool:
    """Whether `err` is the database being locked, down or out of connections (not a
    bad value or a bug)."""
    if isinstance(err, OperationalError | InterfaceError | PoolTimeout):
        return True
    return isinstance(err, DBAPIError) and err.connection_invalidated


def outcome_unknown(request: Request, err: OutcomeUnknown) -> Response:
    return unknown_answer(request, err.message, err.status)


def unknown_answer(request: Request, message: str, status: int, retry_after: int = 0) -> Response:
    api = is_api(request)
    link = object_link(request.url.path, api)
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    if api:
        body = {"error": message, "outcome": "unknown", "check": link}
        return JSONResponse(body, status, headers)
    return _page(
        request,
        status,
        "Outcome unknown",
        message,
        f'<p>See <a href="{escape(link)}" data-testid="check-link">{escape(link)}</a> '
        "for what was recorded before you try again. Sending this form again is safe: "
        "it carries its own key, so it is never acted on twice.</p>",
        headers,
    )


def busy_answer(request: Request, reason: str) -> Response:
    message = (
        f"the database is locked or unavailable right now ({reason}); "
        f"try again in {RETRY_AFTER_SECONDS} seconds"
    )
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if is_api(request):
        return JSONResponse({"error": message}, 503, headers)
    return _page(request, 503, "Try again in a moment", message, "", headers)


def _page(
    request: Request,
    status: int,
    title: str,
    message: str,
    more: str,
    headers: dict[str, str] | None,
) -> Response:
    # Plain HTML, not the site's layout: the layout reads the session from the database,
    # which may be the thing that failed.
    body = (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)} - "
        'Clearance</title><link rel="stylesheet" href="/static/app.css"></head><body><main>'
        f"<h1>{escape(title)}</h1>"
        f'<div class="flash error" role="alert" data-testid="flash-error">{escape(message)}'
        f'</div>{more}<p><a href="/">Dashboard</a></p></main></body></html>'
    )
    return HTMLResponse(body, status, headers)


class DatabaseUnavailable:
    """Catches a locked or unreachable database anywhere below it (routes, the session
    lookup, the idempotency store) while no answer has started."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as err:
            if started or not database_unavailable(err):
                raise
            request = Request(scope)
            reason = _reason(err)
            log.warning(
                "database unavailable for %s %s: %s", scope["method"], scope["path"], reason
            )
            if scope["method"] in READ_METHODS or scope["path"] in NOT_ACTIONS:
                answer = busy_answer(request, reason)
            else:
                answer = unknown_answer(
                    request,
                    f"outcome unknown: check before retrying (the database is locked or "
                    f"unavailable: {reason})",
                    503,
                    RETRY_AFTER_SECONDS,
                )
            await answer(scope, receive, send)


def _reason(err: BaseException) -> str:
    orig = getattr(err, "orig", None)
    text = str(orig if orig is not None else err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__
