"""Signing in with the city's identity provider (web/auth/oidc.py): the button on the
log-in page starts the authorization code flow; the provider sends the browser back to
/login/oidc/callback, where the ID token is checked, the role taken from the groups, and
a session started as for a password. Local passwords keep working beside it."""

from __future__ import annotations

import logging
from dataclasses import asdict

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from web.auth.accounts import AccountError
from web.auth.oidc import OidcLogin, OidcRefused, PendingLogin, role_for
from web.context import ctx_of, delete_cookie, set_cookie
from web.pages.auth import _safe_next, start_session

router = APIRouter()
log = logging.getLogger("clearance.web.oidc")
PENDING_COOKIE = "clearance_oidc"
PENDING_SECONDS = 600  # a sign-in not finished in 10 minutes starts again


def _provider(request: Request) -> OidcLogin:
    oidc = ctx_of(request).oidc
    if oidc is None:
        raise HTTPException(404, "Signing in with the city's accounts is not set up here.")
    return oidc


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(ctx_of(request).secret, salt="oidc-login")


def _refused(request: Request, message: str, status: int = 401) -> Response:
    from web.auth.security import new_token
    from web.pages.auth import _login_page

    response = _login_page(request, new_token(), status, f"Not signed in: {message}")
    delete_cookie(request, response, PENDING_COOKIE)
    return response


@router.get("/login/oidc")
async def start(request: Request) -> Response:
    oidc = _provider(request)
    pending = PendingLogin.new(_safe_next(request.query_params.get("next", "/")))
    try:
        url = await oidc.authorization_url(pending)
    except OidcRefused as err:
        return _refused(request, str(err), 503)
    response = RedirectResponse(url, status_code=303)
    set_cookie(
        request,
        response,
        PENDING_COOKIE,
        _serializer(request).dumps(asdict(pending)),
        max_age=PENDING_SECONDS,
    )
    return response


@router.get("/login/oidc/callback")
async def callback(request: Request) -> Response:
    oidc = _provider(request)
    params = request.query_params
    if params.get("error"):
        return _refused(request, f"the provider said {params.get('error')}")
    try:
        raw = _serializer(request).loads(
            request.cookies.get(PENDING_COOKIE, ""), max_age=PENDING_SECONDS
        )
        pending = PendingLogin(**raw)
    except (BadSignature, TypeError):
        return _refused(request, "this sign-in expired or came from elsewhere: sign in again")
    try:
        identity = await oidc.finish(pending, params.get("state", ""), params.get("code", ""))
        role = role_for(identity.groups, oidc.config.roles)
        user = ctx_of(request).accounts.sign_in_external(
            identity.issuer,
            identity.subject,
            identity.email,
            identity.name,
            role.role,
            role.department,
        )
    except (OidcRefused, AccountError) as err:
        log.warning("sign-in through the identity provider refused: %s", err)
        return _refused(request, str(err))
    response = RedirectResponse(pending.next or "/", status_code=303)
    start_session(request, response, user)
    delete_cookie(request, response, PENDING_COOKIE)
    return response
