"""Who is asking, and whether their form carries the right CSRF token."""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import HTTPException, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData

from actions.errors import ActionFailed
from models.scope import set_role_here, set_scope
from rules.access import Principal
from web.auth.accounts import CurrentUser, SessionInfo
from web.context import SESSION_COOKIE, ctx_of
from web.queries.scope import Roles, object_cities, roles_of


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
    # Looked up once per request (the scope dependency and the route both ask).
    if hasattr(request.state, "clearance_session"):
        found: SessionInfo | None = request.state.clearance_session
        return found
    token = request.cookies.get(SESSION_COOKIE, "")
    found = ctx_of(request).accounts.session_for(token) if token else None
    request.state.clearance_session = found
    return found


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


def reader(request: Request) -> CurrentUser:
    """Who reads a report, CSV or export page: a bearer API token (a script, a spreadsheet's
    web query) or the signed-in browser session."""
    if request.headers.get("authorization", "").lower().startswith("bearer "):
        return api_user(request)
    return staff_session(request).user


def _reads_only(request: Request) -> bool:
    if request.method in READ_METHODS:
        return True
    return request.method == "POST" and request.url.path.endswith(READ_POST_SUFFIXES)


def principal(user: CurrentUser) -> Principal:
    return user.principal


# -- jurisdictions: the one place a request is scoped to the requester's cities ------------


def _requester(request: Request) -> CurrentUser | None:
    """The staff user a request comes from, if any: a bearer token, the session cookie, or
    a calendar feed's token. Refusals are left to the route."""
    ctx = ctx_of(request)
    token = request.path_params.get("token")
    if token and request.url.path.startswith("/calendar/"):
        # A feed is its token's user's, whoever's browser fetches it.
        return ctx.accounts.user_for_calendar_token(str(token))
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        # Only looking: the route records the token's use (or refuses it) itself.
        return ctx.accounts.use_api_token(header[7:].strip(), touch=False).user
    session = optional_session(request)
    if session is not None:
        return session.user
    return None


def _scope_of(request: Request) -> tuple[Roles, list[tuple[str, tuple[str, ...]]], int] | None:
    user = _requester(request)
    if user is None:
        return None
    ctx = ctx_of(request)
    default_key = ctx.actions.city().key
    roles = roles_of(ctx.sessions, user.id, default_key)
    return roles, object_cities(ctx.sessions, request.path_params, default_key), user.id


async def jurisdiction_scope(request: Request) -> None:
    """Every route's first dependency (web/app.py): the requester's cities become the
    scope of every read-model query (models/scope.py); a path naming another city's
    object is refused with 404; about an object, the requester's role is their role in
    its city."""
    found = await run_in_threadpool(_scope_of, request)
    # The cities' versions were just checked (in _scope_of): the request keeps that copy.
    ctx_of(request).actions.cities.hold()
    if found is None:
        return
    roles, objects, user_id = found
    set_scope(roles)
    request.state.city_roles = roles
    for _name, cities in objects:
        mine = [key for key in cities if key in roles]
        if not mine:
            # As if it did not exist: another city's objects are not even confirmed.
            raise HTTPException(404, "There is no such record.")
        role, department = roles[mine[0]]
        set_role_here(user_id, role, department)


def city_roles(request: Request, user: CurrentUser) -> Roles:
    """The requester's (role, department) in each of their cities, as the scope found
    them for this request (web/queries/scope.roles_of)."""
    found: Roles | None = getattr(request.state, "city_roles", None)
    if found is None:
        ctx = ctx_of(request)
        found = roles_of(ctx.sessions, user.id, ctx.actions.city().key)
    return found


def _role_in(request: Request, user: CurrentUser, key: str) -> Principal:
    ctx = ctx_of(request)
    try:
        target = ctx.actions.city(key.strip()).key
    except ActionFailed:
        return user.principal  # the action refuses the city itself, naming the field
    roles = roles_of(ctx.sessions, user.id, ctx.actions.city().key)
    if target not in roles:
        return user.principal
    role, department = roles[target]
    return Principal(user.email, role, department)


async def principal_in_city(request: Request, user: CurrentUser, key: str) -> Principal:
    """The requester as they act in city ``key`` ("" names their default city), for what
    is opened there (a clock): their role in that city, as about one of its records
    (jurisdiction_scope), not their role at home. A city they hold no role in keeps their
    own role; the action then refuses it as unknown (models/scope.py)."""
    return await run_in_threadpool(_role_in, request, user, key)
