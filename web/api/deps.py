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
    """Every refusal and failure of /api/v1, whatever its status: one line saying what is
    wrong (web/api/errors.py turns FastAPI's, Starlette's and the middleware's into it).
    When an action's outcome is unknown (503 or 504, never 409) `outcome` is "unknown"
    and `check` is the object's address: look there before retrying, or retry with the
    same Idempotency-Key, which never acts twice."""

    error: str
    outcome: str | None = None
    check: str | None = None


ERROR_STATUSES = {
    400: "bad input, named",
    401: "no valid token or session",
    403: "not permitted (role, token scope or CSRF)",
    404: "no such record, or no such address",
    405: "the address does not take this method",
    409: "refused by the workflow's rules",
    413: "the request body is too large",
    415: "a file of a type not accepted",
    422: "a parameter or body field that does not fit its schema, named",
    429: "too many failed log-ins: wait the time it names",
    500: "an unexpected failure (logged; nothing half-stored)",
    503: "Temporal or the database unreachable",
    504: "the action's outcome is unknown: check the object, or retry with its Idempotency-Key",
}

# Listed on every /api/v1 operation (web/api/main.py puts them on the router): any route
# can answer any of these, and each answer is {"error": "..."}.
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error, "description": why} for code, why in ERROR_STATUSES.items()
}


def require_read(user: CurrentUser) -> None:
    require(user.principal, "read")
