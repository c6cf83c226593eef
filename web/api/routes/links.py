"""Applicant links: make one for a project or an application, revoke one."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel

from actions.errors import ActionFailed
from rules.access import require
from web.api.deps import ERRORS, User
from web.auth.accounts import AccountError, CurrentUser, aware, link_state
from web.context import ctx_of, require_public_url

router = APIRouter()


class LinkBody(BaseModel):
    scope: Literal["project", "application"]
    scope_id: str
    email: str = ""


def _link_json(request: Request, link: Any) -> dict[str, Any]:
    ctx = ctx_of(request)
    return {
        "link_id": link.link_id,
        "scope": link.scope,
        "scope_id": link.scope_id,
        "email": link.email,
        "state": link_state(link),
        "expires_at": aware(link.expires_at).isoformat(),
        "url": f"{ctx.settings.public_url.rstrip('/')}/a/{ctx.signer.link_token(link.link_id)}",
    }


@router.post("/links", responses=ERRORS, status_code=201)
def create_link(request: Request, body: LinkBody, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "link.create")
    ctx = ctx_of(request)
    require_public_url(ctx.settings)
    try:
        link = ctx.accounts.create_link(
            body.scope, body.scope_id, user.email, ctx.settings.applicant_link_days, body.email
        )
    except AccountError as err:
        raise ActionFailed(str(err), 400) from None
    return _link_json(request, link)


@router.post("/links/{link_id}/revoke", responses=ERRORS)
def revoke_link(request: Request, link_id: str, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "link.revoke")
    try:
        link = ctx_of(request).accounts.revoke_link(link_id, user.email)
    except AccountError as err:
        raise ActionFailed(str(err), 404) from None
    return _link_json(request, link)
