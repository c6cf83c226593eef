"""The CLI's log-in and log-out: a personal access token for an e-mail and password
(throttled like the log-in page), and revoking the token presented."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from actions.errors import ActionFailed
from web.auth.accounts import DEFAULT_TOKEN_DAYS, TOKEN_DAYS, AccountError, now
from web.context import client_address, ctx_of

router = APIRouter()


class TokenRequest(BaseModel):
    email: str
    password: str
    label: str = Field("clearance CLI", max_length=200)
    scope: str = Field("act", description="read (only reads) or act (reads and actions)")
    days: int = Field(
        DEFAULT_TOKEN_DAYS,
        description=f"days until the token expires: one of {', '.join(map(str, TOKEN_DAYS))}",
    )


@router.post("/tokens", status_code=201)
async def token_for_password(request: Request, body: TokenRequest) -> dict[str, str]:
    """`clearance login`: a new personal access token for the account whose e-mail and
    password are given (throttled like the log-in page, with the same shared counts), with
    the scope and expiry asked for (act and 90 days unless told). It appears on
    /me/tokens, where it can be revoked; it is revoked when the password is changed or
    reset or the account disabled."""
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
    try:
        token = ctx.accounts.new_api_token(
            user.email, body.label.strip() or "clearance CLI", body.scope, body.days
        )
    except AccountError as err:
        raise ActionFailed(str(err), 400) from None
    expires = now() + timedelta(days=body.days)
    return {
        "token": token,
        "email": user.email,
        "role": user.role,
        "scope": body.scope,
        "expires_at": expires.isoformat(timespec="seconds"),
    }


@router.post("/tokens/current/revoke")
def revoke_current(request: Request) -> dict[str, str]:
    """`clearance logout`: the token presented stops working."""
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("bearer "):
        raise ActionFailed("send the token to revoke as Authorization: Bearer", 401)
    token = header[7:].strip()
    ctx = ctx_of(request)
    use = ctx.accounts.use_api_token(token)
    if use.user is None:
        raise ActionFailed(use.refused, 401)
    ctx.accounts.revoke_api_token_value(token)
    return {"revoked": "ok"}
