"""What a webhook is, shared by the dispatcher (activities/webhooks.py), the API that
manages subscriptions (web/api/routes/webhooks.py) and a receiver: the event types and
the signature."""

from __future__ import annotations

import hashlib
import hmac

EVENT_TYPES = (
    "clock.opened",
    "clock.tolled",
    "clock.at_risk",
    "clock.lapsed",
    "clock.decided",
    "condition.cleared",
    "milestone.signed_off",
)


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """X-Clearance-Signature: `sha256=` + hex HMAC-SHA256 of `<timestamp>.<body>`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(secret: str, timestamp: str, body: bytes, signature: str) -> bool:
    return hmac.compare_digest(sign(secret, timestamp, body), signature)
