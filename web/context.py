"""What every request handler shares: settings, the database, accounts, the Temporal
gateway, the signer and the templates; plus rendering with the session and flash."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from actions.errors import ActionFailed
from actions.layer import Actions
from actions.temporal import Gateway
from rules.access import ROLE_LABELS, allowed
from settings import PROJECT_ROOT, Settings
from web.auth.accounts import Accounts, SessionInfo
from web.auth.login_throttle import LoginThrottle
from web.auth.oidc import OidcLogin
from web.auth.security import Signer
from web.uploads.resolution_import import ImportJobs
from web.views.form_errors import fields_named
from web.views.present import filters, human_datetime

TEMPLATE_DIR = PROJECT_ROOT / "templates" / "web"
STATIC_DIR = Path(__file__).resolve().parent / "static"
SESSION_COOKIE = "clearance_session"
FLASH_COOKIE = "clearance_flash"


@dataclass
class AppContext:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    accounts: Accounts
    gateway: Gateway
    actions: Actions
    signer: Signer
    templates: Environment
    flash_signer: URLSafeTimedSerializer
    throttle: LoginThrottle
    imports: ImportJobs = field(default_factory=ImportJobs)  # resolutions being reviewed
    # Signing in with the city's identity provider (web/auth/oidc.py), when set up.
    oidc: OidcLogin | None = None
    secret: str = ""  # the app's key, for the cookies it signs

    def today(self, jurisdiction_key: str = "") -> date:
        """Today in a jurisdiction's time zone (default: the deployment's jurisdiction)."""
        # zoneinfo caches its zones; pendulum.now(name) builds one per call (~0.3 ms).
        return datetime.now(ZoneInfo(self.time_zone(jurisdiction_key))).date()

    def time_zone(self, jurisdiction_key: str = "") -> str:
        """A jurisdiction's time zone; one no longer configured falls back to the default's."""
        try:
            return self.actions.city(jurisdiction_key).time_zone
        except ActionFailed:
            return self.actions.city().time_zone


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
    env.filters["fields_named"] = fields_named
    # An instant in the city's time: the page's jurisdiction (render() passes time_zone).
    env.filters["human_datetime"] = pass_context(
        lambda context, value: human_datetime(value, context.get("time_zone") or "UTC")
    )
    # Each form rendered gets its own idempotency key (web/middleware/idempotency.py):
    # sending it twice (a double click, a retry after "outcome unknown") acts once.
    env.globals.update(
        role_labels=ROLE_LABELS, allowed=allowed, idempotency_key=lambda: uuid.uuid4().hex
    )
    return env


def ctx_of(request: Request) -> AppContext:
    return request.app.state.ctx


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
    # A page about one record passes its jurisdiction: dates and "today" are that city's.
    jurisdiction_key = str(values.pop("jurisdiction_key", "") or "")
    body = ctx.templates.get_template(template).render(
        request=request,
        user=session.user if session else None,
        csrf_token=session.csrf_token if session else "",
        flash=flash or carried,
        today=ctx.today(jurisdiction_key),
        time_zone=ctx.time_zone(jurisdiction_key),
        **values,
    )
    response = HTMLResponse(body, status_code=status)
    if raw:
        delete_cookie(request, response, FLASH_COOKIE)
    return response


def client_address(request: Request) -> str:
    """The client's address (a trusted proxy's X-Forwarded-For already applied)."""
    return request.client.host if request.client else "unknown"


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


async def hand_over(
    request: Request,
    session: SessionInfo,
    reassign: Callable[[str, str], Awaitable[Any]],
    record: str,
    page: tuple[str, str, Callable[[], dict[str, Any]]],
) -> Response:
    """A record's owner form (a wireless application, a permit clock): `reassign(email,
    reason)` through the action layer; on a refusal the record's page again (`page`: its
    address, its template and its context), its reason in one line."""
    from web.deps import checked_form, form_dict

    fields = form_dict(await checked_form(request, session))
    email = fields.get("email", "").strip()
    url, template, context = page
    try:
        await reassign(email, fields.get("reason", ""))
    except ActionFailed as err:
        return render(
            request,
            template,
            status=err.status,
            session=session,
            flash=("error", f"Not handed over: {err.message}"),
            **context(),
        )
    return redirect_with_flash(request, url, "ok", f"{record} is now with {email}.")


def require_public_url(settings: Settings) -> None:
    """Applicant links are e-mailed: outside development, refuse to make one that would
    point at localhost because CLEARANCE_PUBLIC_URL was never set."""
    if settings.environment != "development" and not settings.public_url_configured:
        raise ActionFailed(
            "applicant links need the public address applicants can reach: set "
            "CLEARANCE_PUBLIC_URL (e.g. https://permits.example.gov) and restart",
            400,
        )
