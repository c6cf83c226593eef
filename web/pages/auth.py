"""Log-in, log-out, and the health checks."""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from models.database import write_probe
from rules.access import require
from web.auth.accounts import SESSION_DAYS, AccountError, CurrentUser, now
from web.context import (
    SESSION_COOKIE,
    client_address,
    ctx_of,
    delete_cookie,
    redirect_with_flash,
    render,
    set_cookie,
)
from web.deps import CsrfRefused, checked_form, optional_session, staff_session

router = APIRouter()
LOGIN_CSRF_COOKIE = "clearance_login"


def _safe_next(value: str) -> str:
    """Only a path on this site (no open redirect)."""
    parsed = urlparse(value or "/")
    if parsed.scheme or parsed.netloc or not (parsed.path or "/").startswith("/"):
        return "/"
    if value.startswith("//"):
        return "/"
    return value or "/"


def _login_page(request: Request, nonce: str, status: int = 200, error: str = "", email: str = ""):
    ctx = ctx_of(request)
    response = render(
        request,
        "login.html.j2",
        status=status,
        login_csrf=ctx.signer.form_token("login", nonce),
        next=_safe_next(request.query_params.get("next", "/")),
        error=error,
        email=email,
        # Signing in with the city's identity provider, when set up (web/pages/oidc.py).
        sign_in_with=ctx.oidc.config.name if ctx.oidc is not None else "",
    )
    set_cookie(request, response, LOGIN_CSRF_COOKIE, nonce)
    return response


@router.get("/login")
def login_form(request: Request) -> Response:
    if optional_session(request) is not None:
        return RedirectResponse(_safe_next(request.query_params.get("next", "/")), 303)
    from web.auth.security import new_token

    return _login_page(request, request.cookies.get(LOGIN_CSRF_COOKIE) or new_token())


@router.post("/login")
async def login(request: Request) -> Response:
    ctx = ctx_of(request)
    form = await request.form()
    nonce = request.cookies.get(LOGIN_CSRF_COOKIE, "")
    if not nonce or not ctx.signer.check_form_token(
        "login", nonce, str(form.get("csrf_token") or "")
    ):
        raise CsrfRefused()
    email = str(form.get("email") or "").strip()
    password = str(form.get("password") or "")
    address = client_address(request)
    verdict = ctx.throttle.check(email, address, now())
    if verdict.wait_s > 0:
        response = _login_page(
            request,
            nonce,
            429,
            "Too many failed log-ins for this account from this computer: try again in "
            f"{int(verdict.wait_s // 60) + 1} minute(s), or ask an administrator to reset "
            "your password.",
            email,
        )
        response.headers["Retry-After"] = str(int(verdict.wait_s) + 1)
        return response
    await ctx.throttle.pause(verdict)
    user = ctx.accounts.authenticate(email, password)
    if user is None:
        ctx.throttle.failed(email, address, now())
        return _login_page(
            request, nonce, 401, "That e-mail address and password do not match.", email
        )
    ctx.throttle.succeeded(email, address)
    response = RedirectResponse(_safe_next(str(form.get("next") or "/")), status_code=303)
    start_session(request, response, user)
    delete_cookie(request, response, LOGIN_CSRF_COOKIE)
    return response


def start_session(request: Request, response: Response, user: CurrentUser) -> None:
    token = ctx_of(request).accounts.start_session(user)
    set_cookie(request, response, SESSION_COOKIE, token, max_age=SESSION_DAYS * 24 * 3600)


@router.post("/logout")
async def logout(request: Request) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    ctx_of(request).accounts.end_session(request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/login", status_code=303)
    delete_cookie(request, response, SESSION_COOKIE)
    return response


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    ctx = ctx_of(request)
    checks: dict[str, str] = {}
    checks["database"] = await asyncio.to_thread(database_takes_a_write, ctx.engine)
    checks["temporal"] = "ok" if await ctx.gateway.reachable() else "unreachable"
    ready = all(v == "ok" for v in checks.values())
    return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)


def database_takes_a_write(engine: Engine) -> str:
    """ "ok" when the database takes a write now (models.database.write_probe)."""
    try:
        write_probe(engine)
        return "ok"
    except OperationalError as err:
        reason = str(err.orig).splitlines()[0] if err.orig else type(err).__name__
        return f"cannot write: {reason}"
    except Exception as err:  # noqa: BLE001 - report, don't crash
        return f"unreachable: {type(err).__name__}"


@router.post("/me/password")
async def change_password(request: Request) -> Response:
    """Change one's own password: every session of the user ends (a stolen cookie stops
    working), and this browser gets a fresh one."""
    session = staff_session(request)
    form = await checked_form(request, session)
    require(session.user.principal, "read")
    ctx = ctx_of(request)
    new = str(form.get("new_password") or "")
    try:
        if new != str(form.get("new_password_again") or ""):
            raise AccountError("the two new passwords differ")
        ctx.accounts.change_password(session.user.id, str(form.get("current_password") or ""), new)
    except AccountError as err:
        return redirect_with_flash(request, "/me", "error", f"Password not changed: {err}.")
    response = redirect_with_flash(
        request,
        "/me",
        "ok",
        "Password changed. Every other session of yours has ended and your personal access "
        "tokens were revoked.",
    )
    start_session(request, response, session.user)
    return response
