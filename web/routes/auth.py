"""Log-in, log-out, and the health checks."""

from __future__ import annotations

import time
from urllib.parse import urlparse

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy import text

from web.context import SESSION_COOKIE, ctx_of, render
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
    )
    response.set_cookie(LOGIN_CSRF_COOKIE, nonce, httponly=True, samesite="lax", path="/")
    return response


@router.get("/login")
def login_form(request: Request) -> Response:
    if optional_session(request) is not None:
        return RedirectResponse(_safe_next(request.query_params.get("next", "/")), 303)
    from web.security import new_token

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
    wait = ctx.throttle.blocked_for(email, time.monotonic())
    if wait > 0:
        return _login_page(
            request,
            nonce,
            429,
            f"Too many failed log-ins for this address: try again in {int(wait // 60) + 1} "
            "minute(s), or ask an administrator to reset your password.",
            email,
        )
    user = ctx.accounts.authenticate(email, password)
    if user is None:
        ctx.throttle.failed(email, time.monotonic())
        return _login_page(
            request, nonce, 401, "That e-mail address and password do not match.", email
        )
    ctx.throttle.succeeded(email)
    token = ctx.accounts.start_session(user)
    response = RedirectResponse(_safe_next(str(form.get("next") or "/")), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="lax",
        secure=ctx.settings.public_url.startswith("https://"),
        max_age=7 * 24 * 3600,
        path="/",
    )
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    ctx_of(request).accounts.end_session(request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    ctx = ctx_of(request)
    checks: dict[str, str] = {}
    try:
        with ctx.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as err:  # noqa: BLE001 - report, don't crash
        checks["database"] = f"unreachable: {type(err).__name__}"
    checks["temporal"] = "ok" if await ctx.gateway.reachable() else "unreachable"
    ready = all(v == "ok" for v in checks.values())
    return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)
