"""Personal access tokens: each staff user makes and revokes their own on /me/tokens, for
the CLI (`clearance login`) and scripts. A token acts as its account, with the account's
role; only its hash is stored, so it is shown once, when made."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from actions.errors import ActionFailed
from rules.access import require
from web.accounts import AccountError, now
from web.context import client_address, ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session

router = APIRouter()
api_router = APIRouter(prefix="/api/v1", tags=["api"])


def _page(request: Request, session, new_token: str = "", status: int = 200) -> HTMLResponse:  # type: ignore[no-untyped-def]
    ctx = ctx_of(request)
    response = render(
        request,
        "tokens.html.j2",
        status=status,
        session=session,
        tokens=ctx.accounts.api_tokens(session.user.id),
        new_token=new_token,
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
async def create_token(request: Request) -> HTMLResponse:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    require(session.user.principal, "account.tokens")
    label = form.get("label", "").strip()[:200] or "personal access token"
    token = ctx_of(request).accounts.new_api_token(session.user.email, label)
    return _page(request, session, new_token=token, status=201)


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


# -- the CLI's log-in -------------------------------------------------------------------------


class TokenRequest(BaseModel):
    email: str
    password: str
    label: str = Field("clearance CLI", max_length=200)


@api_router.post("/tokens", status_code=201)
async def token_for_password(request: Request, body: TokenRequest) -> dict[str, str]:
    """`clearance login`: a new personal access token for the account whose e-mail and
    password are given (throttled like the log-in page, with the same shared counts). It
    appears on /me/tokens, where it can be revoked."""
    ctx = ctx_of(request)
    address = client_address(request)
    verdict = ctx.throttle.check(body.email, address, now())
    if verdict.wait_s > 0:
        raise ActionFailed(
            "too many failed log-ins for this account from this computer: try again in "
            f"{int(verdict.wait_s // 60) + 1} minute(s)",
            429,
        )
    await ctx.throttle.pause(verdict)
    user = ctx.accounts.authenticate(body.email, body.password)
    if user is None:
        ctx.throttle.failed(body.email, address, now())
        raise ActionFailed("that e-mail address and password do not match", 401)
    ctx.throttle.succeeded(body.email, address)
    token = ctx.accounts.new_api_token(user.email, body.label.strip() or "clearance CLI")
    return {"token": token, "email": user.email, "role": user.role}


@api_router.post("/tokens/current/revoke")
def revoke_current(request: Request) -> dict[str, str]:
    """`clearance logout`: the token presented stops working."""
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("bearer "):
        raise ActionFailed("send the token to revoke as Authorization: Bearer", 401)
    token = header[7:].strip()
    ctx = ctx_of(request)
    if ctx.accounts.user_for_api_token(token) is None:
        raise ActionFailed("that token is not valid (already revoked?)", 401)
    ctx.accounts.revoke_api_token_value(token)
    return {"revoked": "ok"}
