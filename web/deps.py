"""Who is asking, and whether their form carries the right CSRF token."""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import Request
from starlette.datastructures import FormData

from rules.access import Principal
from web.auth.accounts import CurrentUser, SessionInfo
from web.context import SESSION_COOKIE, ctx_of


class LoginRequired(Exception):
    """No valid session: pages redirect to the log-in page, the API answers 401 (with the
    message, when there is one: why a token was refused)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


class ScopeRefused(Exception):
    """A token without the scope the request needs: the API answers 403 naming it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


READ_METHODS = ("GET", "HEAD", "OPTIONS")
# POSTs that only read: a preview renders a notice and records nothing.
READ_POST_SUFFIXES = ("/preview",)


class CsrfRefused(Exception):
    """A form without its CSRF token (or with someone else's): refused with 403."""


def optional_session(request: Request) -> SessionInfo | None:
    token = request.cookies.get(SESSION_COOKIE, "")
    return ctx_of(request).accounts.session_for(token) if token else None


def staff_session(request: Request) -> SessionInfo:
    session = optional_session(request)
    if session is None:
        raise LoginRequired()
    return session


async def checked_form(request: Request, session: SessionInfo) -> FormData:
    """The posted form, after checking its csrf_token against the session's."""
    form = await request.form()
    given = str(form.get("csrf_token") or "")
    if not hmac.compare_digest(given, session.csrf_token):
        raise CsrfRefused()
    return form


def form_dict(form: FormData) -> dict[str, Any]:
    return {k: v for k, v in form.items() if isinstance(v, str)}


def api_user(request: Request) -> CurrentUser:
    """A bearer API token, or the session cookie (with X-CSRF-Token on writes)."""
    ctx = ctx_of(request)
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        use = ctx.accounts.use_api_token(header[7:].strip())
        if use.user is None:
            raise LoginRequired(use.refused)
        if use.scope != "act" and not _reads_only(request):
            raise ScopeRefused(
                f"this token has the {use.scope} scope and cannot act: acting needs a token "
                "with the act scope"
            )
        return use.user
    session = optional_session(request)
    if session is None:
        raise LoginRequired()
    if request.method not in READ_METHODS:
        given = request.headers.get("x-csrf-token", "")
        if not hmac.compare_digest(given, session.csrf_token):
            raise CsrfRefused()
    return session.user


def _reads_only(request: Request) -> bool:
    if request.method in READ_METHODS:
        return True
    return request.method == "POST" and request.url.path.endswith(READ_POST_SUFFIXES)


def principal(user: CurrentUser) -> Principal:
    return user.principal
