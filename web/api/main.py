"""The JSON API, /api/v1/: the same actions and reads as the pages, the same roles.

Authenticate with `Authorization: Bearer <token>` (`clearance users token EMAIL`) or the
session cookie plus an `X-CSRF-Token` header on writes. Errors are {"error": "..."}
whatever their status (web/api/errors.py): 400 bad input, 401 not logged in, 403 not
permitted, 404 unknown, 405 wrong method, 409 refused by the workflow's rules, 413 too
large, 415 a file type not accepted, 422 a field that does not fit the schema, 500 an
unexpected failure, 503 Temporal unreachable; every operation lists them all.

One router per capability (web/api/routes/); each write route calls that capability's
object of the action layer, e.g. `actions.shot_clocks.record_from_fields(who, RecordNotice,
...)` (actions/layer.py); the request class names the workflow update.
"""

from __future__ import annotations

from fastapi import APIRouter

from web.api.deps import ERRORS
from web.api.routes import (
    bulk,
    caseload,
    condition_clocks,
    conditions,
    deadlines,
    links,
    me,
    outbox,
    permit_clocks,
    portfolio,
    projects,
    queues,
    reports,
    resolutions,
    search,
    shot_clocks,
    tokens,
    webhooks,
)

api_router = APIRouter(prefix="/api/v1", tags=["api"], responses=ERRORS)
for module in (
    deadlines,
    permit_clocks,
    condition_clocks,
    me,
    shot_clocks,
    projects,
    conditions,
    queues,
    outbox,
    reports,
    portfolio,
    links,
    tokens,
    resolutions,
    caseload,
    search,
    bulk,
    webhooks,
):
    api_router.include_router(module.router)
