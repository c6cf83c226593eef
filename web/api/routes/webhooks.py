"""Webhook subscriptions (administrators): an integrator's URL hears deadline events,
each POST signed with the secret answered once at creation (activities/webhooks.py
delivers; models/webhooks.py says how to verify)."""

from __future__ import annotations

import ipaddress
import secrets
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from actions.errors import bad
from models.schema import WebhookDelivery, WebhookSubscription
from rules.access import require
from web.api.deps import User
from web.auth.accounts import CurrentUser
from web.context import ctx_of

router = APIRouter()

EventType = Literal[
    "clock.opened",
    "clock.tolled",
    "clock.at_risk",
    "clock.lapsed",
    "clock.decided",
    "condition.cleared",
    "milestone.signed_off",
]


class NewSubscription(BaseModel):
    url: str = Field(..., max_length=500, description="https:// (or http:// on this machine)")
    events: list[EventType] = Field(default=[], description="none: every event")


LOOPBACK_NAMES = ("localhost",)


def _check_url(url: str) -> str:
    """https to a named host or a public address; plain http only to this machine (a
    receiver beside the app). A private, link-local or reserved address is refused: a
    subscription must not reach into the city's own network."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.scheme not in ("https", "http") or not host:
        raise bad("url: an https address, e.g. https://integrator.example/clearance")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    loopback = host in LOOPBACK_NAMES or (address is not None and address.is_loopback)
    if parts.scheme == "http" and not loopback:
        raise bad("url: use https (plain http only to this machine)")
    if address is not None and not loopback and not address.is_global:
        raise bad(f"url: {host} is not a public address")
    return url.strip()


def _json(sub: WebhookSubscription, deliveries: list[WebhookDelivery]) -> dict[str, Any]:
    return {
        "id": sub.id,
        "url": sub.url,
        "events": list(sub.events or []),
        "active": sub.active,
        "created_by": sub.created_by,
        "deliveries": [
            {
                "delivery": d.event_key,
                "type": d.event_type,
                "state": d.state,
                "attempts": d.attempts,
                "last_error": d.last_error,
                "log": d.log,
            }
            for d in deliveries
        ],
    }


@router.post("/webhooks", status_code=201)
def subscribe(request: Request, body: NewSubscription, user: CurrentUser = User) -> dict[str, Any]:
    """Subscribe a URL; the answer carries the signing secret, shown this once."""
    require(user.principal, "admin.webhooks")
    secret = secrets.token_urlsafe(32)
    with ctx_of(request).sessions.begin() as db:
        sub = WebhookSubscription(
            url=_check_url(body.url),
            secret=secret,
            events=list(dict.fromkeys(body.events)),
            active=True,
            created_by=user.principal.email,
            created_at=datetime.now(UTC),
        )
        db.add(sub)
        db.flush()
        answer = _json(sub, [])
    return {**answer, "secret": secret}


@router.get("/webhooks")
def subscriptions(request: Request, user: CurrentUser = User) -> dict[str, Any]:
    """Every subscription with its latest 20 deliveries and their attempts."""
    require(user.principal, "admin.webhooks")
    with ctx_of(request).sessions() as db:
        subs = list(db.scalars(select(WebhookSubscription).order_by(WebhookSubscription.id)))
        return {
            "items": [
                _json(
                    s,
                    list(
                        db.scalars(
                            select(WebhookDelivery)
                            .where(WebhookDelivery.subscription_id == s.id)
                            .order_by(WebhookDelivery.id.desc())
                            .limit(20)
                        )
                    ),
                )
                for s in subs
            ]
        }


@router.post("/webhooks/{subscription_id}/disable")
def disable(request: Request, subscription_id: int, user: CurrentUser = User) -> dict[str, Any]:
    require(user.principal, "admin.webhooks")
    with ctx_of(request).sessions.begin() as db:
        sub = db.get(WebhookSubscription, subscription_id)
        if sub is None:
            raise HTTPException(404, f"no webhook subscription {subscription_id}")
        sub.active = False
        return _json(sub, [])
