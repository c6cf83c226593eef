"""The reports across every project and clock (reports/portfolio.py): each a page, a CSV
and a PDF. The CSV and PDF answer a bearer token as well as the session, so a script or a
council clerk's packet builder can fetch them."""

from __future__ import annotations

import re

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from actions.errors import ActionFailed
from reports import portfolio
from rules.access import require
from web.context import ctx_of, render
from web.deps import reader, staff_session

router = APIRouter()


def period_of(request: Request, key: str) -> portfolio.Period:
    """The period the query string asks for (`from`, `to`, `year`); a report about a
    range defaults to the last quarter."""
    q = request.query_params
    kind = portfolio.kinds()[key]
    try:
        return portfolio.Period.parse(
            portfolio.city_today(),
            start=q.get("from", ""),
            end=q.get("to", ""),
            year=q.get("year", ""),
            default_days=91 if kind.period == "range" else 0,
        )
    except portfolio.BadPeriod as err:
        raise ActionFailed(str(err), 400) from None


def _kind(key: str) -> portfolio.ReportKind:
    kind = portfolio.kinds().get(key)
    if kind is None:
        names = ", ".join(portfolio.kinds())
        raise HTTPException(404, f"There is no report {key!r} (reports: {names}).")
    return kind


@router.get("/reports/all/{report}.{fmt}")
def report_file(request: Request, report: str, fmt: str) -> Response:
    key = report
    require(reader(request).principal, "read")
    kind = _kind(key)
    if fmt not in ("csv", "pdf"):
        raise HTTPException(404, "A report comes as a page, a .csv or a .pdf.")
    built = kind.build(ctx_of(request).engine, period_of(request, key))
    stem = re.sub(r"[^a-z0-9-]+", "-", f"{key}-{built.period_label}".lower()).strip("-")
    if fmt == "csv":
        return Response(
            portfolio.to_csv(built),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{stem}.csv"'},
        )
    return Response(
        portfolio.to_pdf(built),
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{stem}.pdf"'},
    )


@router.get("/reports/all/{report}", response_class=HTMLResponse)
def report_page(request: Request, report: str) -> HTMLResponse:
    key = report
    session = staff_session(request)
    require(session.user.principal, "read")
    kind = _kind(key)
    period = period_of(request, key)
    built = kind.build(ctx_of(request).engine, period)
    query = request.url.query
    return render(
        request,
        "report_portfolio.html.j2",
        session=session,
        kind=kind,
        report=built,
        period=period,
        body=portfolio.render_html(built, standalone=False),
        suffix=f"?{query}" if query else "",
    )
