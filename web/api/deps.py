"""What every /api/v1 route shares: who is asking (a bearer token, or the session cookie
with an X-CSRF-Token header on writes), the error shape, and the read check."""

from __future__ import annotations

from typing import Any

from fastapi import Depends
from pydantic import BaseModel

from rules.access import require
from web.auth.accounts import CurrentUser
from web.deps import api_user

# Who is asking is settled before a body is read: a request without a token or session
# is refused (401) before its body is validated.
User = Depends(api_user)


class Error(BaseModel):
    """One line saying what is wrong. When an action's outcome is unknown (503 or 504,
    never 409) `outcome` is "unknown" and `check` is the object's address: look there
    before retrying, or retry with the same Idempotency-Key, which never acts twice."""

    error: str
    outcome: str | None = None
    check: str | None = None


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error} for code in (400, 401, 403, 404, 409, 503, 504)
}


def require_read(user: CurrentUser) -> None:
    require(user.principal, "read")
