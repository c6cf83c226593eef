"""Personal access tokens: each staff user makes and revokes their own on /me/tokens, for
the CLI (`clearance login`) and scripts. A token acts as its account, with the account's
role, within its scope (read or act) until it expires (chosen when made, 90 days unless
told); it is revoked when the password is changed or reset or the account disabled. Only
its hash is stored, so it is shown once, when made."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from actions.errors import ActionFailed
from rules.access import require
from web.auth.accounts import (
    DEFAULT_TOKEN_DAYS,
    TOKEN_DAYS,
    TOKEN_SCOPES,
    AccountError,
    SessionInfo,
)
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session
from web.middleware.idempotency import SHOWN_ONCE_HEADER

router = APIRouter()


def _page(
    request: Request, session: SessionInfo, new_token: str = "", status: int = 200
) -> HTMLResponse:
    ctx = ctx_of(request)
    response = render(
        request,
        "tokens.html.j2",
        status=status,
        session=session,
        tokens=ctx.accounts.api_tokens(session.user.id),
        new_token=new_token,
        token_days=TOKEN_DAYS,
        default_days=DEFAULT_TOKEN_DAYS,
        token_scopes=TOKEN_SCOPES,
        api_url=ctx.settings.public_url.rstrip("/"),
    )
    # A page showing a fresh secret is never cached.
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/me/tokens", response_class=HTMLResponse)
def tokens_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "account.tokens")
    return _page(request, session)


@router.post("/me/tokens", response_class=HTMLResponse)
async def create_token(request: Request) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "account.tokens")
    label = form.get("label", "").strip()[:200] or "personal access token"
    scope = form.get("scope", "act")
    days = form.get("days", str(DEFAULT_TOKEN_DAYS)).strip()
    try:
        if not days.isdigit():
            raise AccountError(f"the expiry must be a number of days, not {days!r}")
        token = ctx_of(request).accounts.new_api_token(session.user.email, label, scope, int(days))
    except AccountError as err:
        return redirect_with_flash(request, "/me/tokens", "error", f"No token made: {err}.")
    response = _page(request, session, new_token=token, status=201)
    response.headers[SHOWN_ONCE_HEADER] = "1"  # never stored for an idempotent replay
    return response


@router.post("/me/tokens/{token_id}/revoke")
async def revoke_token(request: Request, token_id: str) -> Response:
    session = staff_session(request)
    await checked_form(request, session)
    require(session.user.principal, "account.tokens")
    try:
        ctx_of(request).accounts.revoke_api_token(session.user.id, token_id)
    except AccountError as err:
        raise ActionFailed(str(err), 404) from None
    return redirect_with_flash(request, "/me/tokens", "ok", "Revoked: that token no longer works.")
