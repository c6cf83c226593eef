"""Search across projects, condition text, clocks and people (web/queries/search.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from rules.access import require
from web.context import ctx_of, render
from web.deps import staff_session
from web.queries import search as searching

router = APIRouter()


@router.get("/search", response_class=HTMLResponse)
def search_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, "read")
    query = request.query_params.get("q", "")[:200]
    ctx = ctx_of(request)
    with ctx.sessions() as db:
        results = searching.search(db, query, default_city=ctx.actions.city().key)
    return render(
        request, "search.html.j2", session=session, results=results, labels=searching.LABELS
    )
