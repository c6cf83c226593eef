"""The reports across every project and clock as JSON: the cover's figures and every line
(the CSV's columns and rows). The PDF and CSV files are at /reports/all/{report}.pdf|.csv,
which take the same bearer token."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request

from actions.errors import ActionFailed
from reports import portfolio
from web.api.deps import User, require_read
from web.auth.accounts import CurrentUser
from web.context import ctx_of

router = APIRouter()

ReportKey = Literal[
    "shot-clock-compliance",
    "permit-clock-performance",
    "lapsing-90-days",
    "overdue-conditions",
    "conditions-cleared",
    "annual-mmrp",
]


@router.get("/reports/{report}")
def cross_project_report(
    request: Request,
    report: ReportKey,
    start: str = Query("", alias="from", description="first day, YYYY-MM-DD"),
    end: str = Query("", alias="to", description="last day, YYYY-MM-DD"),
    year: str = Query("", description="the year of an annual report"),
    user: CurrentUser = User,
) -> dict[str, Any]:
    """A report across every project and clock: its figures and every line."""
    require_read(user)
    kind = portfolio.kinds()[report]
    try:
        period = portfolio.Period.parse(
            portfolio.city_today(),
            start=start,
            end=end,
            year=year,
            default_days=91 if kind.period == "range" else 0,
        )
    except portfolio.BadPeriod as err:
        raise ActionFailed(str(err), 400) from None
    built = kind.build(ctx_of(request).engine, period)
    return {
        "key": built.key,
        "title": built.title,
        "period": built.period_label,
        "figures": [{"label": label, "value": value} for label, value in built.figures],
        "columns": list(built.csv_columns),
        "rows": [list(row) for row in built.csv_rows],
    }
