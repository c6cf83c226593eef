"""Who is asking, and what needs them: /api/v1/me and /api/v1/inbox."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request

from web.api.deps import ERRORS, User, require_read
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.deps import city_roles
from web.queries.inbox_cities import inbox_in_cities

router = APIRouter()


@router.get("/me")
def me(request: Request, user: CurrentUser = User) -> dict[str, Any]:
    """The account, and its role in each of its cities (`cities`: key -> role and
    department), which is what each city's records are acted on and listed by."""
    cities = {
        key: {"role": role, "department": department}
        for key, (role, department) in sorted(city_roles(request, user).items())
    }
    return {**dataclasses.asdict(user), "cities": cities}


@router.get("/inbox", responses=ERRORS)
def inbox(request: Request, user: CurrentUser = User) -> dict[str, Any]:
    """What needs this user, earliest date first: each item's next action and why."""
    require_read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        result = inbox_in_cities(
            db,
            city_roles(request, user),
            (user.role, user.department),
            user.email,
            ctx.today(),
            ctx.time_zone(),
            ctx.actions.cities.find,
        )
    return result.to_json()
