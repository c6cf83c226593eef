"""Search across projects, condition text, clocks and people (web/queries/search.py)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request

from web.api.deps import User, require_read
from web.auth.accounts import CurrentUser
from web.context import ctx_of
from web.queries import search as searching

router = APIRouter()

Kind = Literal["projects", "conditions", "clocks", "permits", "people"]


@router.get("/search")
def search(
    request: Request,
    q: str = Query(..., max_length=200, description="words; each must match, as a prefix"),
    kind: list[Kind] = Query(default=[], description="only these kinds"),  # noqa: B008
    user: CurrentUser = User,
) -> dict[str, Any]:
    """The best 20 hits of each kind; each excerpt's matched words between \u0002 and
    \u0003."""
    require_read(user)
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        results = searching.search(db, q, tuple(kind), default_city=ctx.actions.city().key)
    return {
        "query": results.query,
        "words": results.words,
        "total": results.total,
        "groups": {
            k: [
                {
                    "ref": h.ref,
                    "title": h.title,
                    "url": h.url,
                    "excerpt": "".join(
                        f"{searching.START}{t}{searching.END}" if m else t for t, m in h.excerpt
                    ),
                }
                for h in hits
            ]
            for k, hits in results.groups.items()
        },
    }
