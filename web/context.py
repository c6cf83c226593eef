"""What every request handler shares: settings, the database, accounts, the Temporal
gateway, the signer and the templates; plus rendering with the session and flash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pendulum
from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from rules.access import ROLE_LABELS, allowed
from settings import PROJECT_ROOT, Settings
from web.accounts import Accounts, SessionInfo
from web.actions import Gateway
from web.login_throttle import LoginThrottle
from web.operations import Operations
from web.present import filters
from web.security import Signer

TEMPLATE_DIR = PROJECT_ROOT / "templates" / "web"
STATIC_DIR = Path(__file__).resolve().parent / "static"
SESSION_COOKIE = "clearance_session"
FLASH_COOKIE = "clearance_flash"
CITY_TIME_ZONE = "America/Los_Angeles"


@dataclass
class AppContext:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    accounts: Accounts
    gateway: Gateway
    operations: Operations
    signer: Signer
    templates: Environment
    flash_signer: URLSafeTimedSerializer
    throttle: LoginThrottle

    def today(self) -> date:
        return pendulum.now(CITY_TIME_ZONE).date()


def template_environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        # Condition texts, notes and names come from users and resolutions: escape all.
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(filters())
    env.globals.update(role_labels=ROLE_LABELS, allowed=allowed)
    return env


def ctx_of(request: Request) -> AppContext:
    return request.app.state.ctx  # type: ignore[no-any-return]


def render(
    request: Request,
    template: str,
    status: int = 200,
    session: SessionInfo | None = None,
    flash: tuple[str, str] | None = None,
    **values: Any,
) -> HTMLResponse:
    """A page with the user, their CSRF token and any flash message from a redirect."""
    ctx = ctx_of(request)
    carried = None
    raw = request.cookies.get(FLASH_COOKIE)
    if raw and flash is None:
        try:
            kind, message = ctx.flash_signer.loads(raw, max_age=60)
            carried = (str(kind), str(message))
        except (BadSignature, ValueError):
            carried = None
    body = ctx.templates.get_template(template).render(
        request=request,
        user=session.user if session else None,
        csrf_token=session.csrf_token if session else "",
        flash=flash or carried,
        today=ctx.today(),
        **values,
    )
    response = HTMLResponse(body, status_code=status)
    if raw:
        delete_cookie(request, response, FLASH_COOKIE)
    return response


def over_https(request: Request) -> bool:
    """Served over HTTPS: the public address says so, or this request came that way (its
    scheme, which a trusted proxy's X-Forwarded-Proto sets: CLEARANCE_TRUSTED_PROXIES)."""
    return (
        ctx_of(request).settings.public_url.startswith("https://") or request.url.scheme == "https"
    )


def set_cookie(
    request: Request, response: Response, name: str, value: str, max_age: int | None = None
) -> None:
    """Every cookie the app sets: HttpOnly, SameSite=Lax, and Secure over HTTPS."""
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="lax",
        secure=over_https(request),
        path="/",
    )


def delete_cookie(request: Request, response: Response, name: str) -> None:
    response.delete_cookie(
        name, path="/", httponly=True, samesite="lax", secure=over_https(request)
    )


def redirect_with_flash(request: Request, url: str, kind: str, message: str) -> RedirectResponse:
    response = RedirectResponse(url, status_code=303)
    set_cookie(
        request, response, FLASH_COOKIE, ctx_of(request).flash_signer.dumps([kind, message]), 60
    )
    return response
