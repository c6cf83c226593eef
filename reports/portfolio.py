"""Reports across every project and clock, for managers and councils: each is a page, a
CSV (every line) and a PDF (a cover a council packet can use, the charts, the tables).

A report is built by its module (`portfolio_clocks.py`, `portfolio_conditions.py`) from
the read model in a few bounded queries, into a `PortfolioReport`; this module renders it.
`REPORTS` names them; `build(key, engine, period)` makes one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from reports.common import jurisdiction_name, now_iso, render, write_csv
from rules.kernel.alerts import local_today
from rules.kernel.jurisdictions import default_jurisdiction

# Lines a page or PDF table prints (the most pressing first: each report sorts its lines
# so); the CSV always carries every line. A council packet wants a summary, and a
# longer table would only slow the PDF (WeasyPrint lays out a table row by row).
PRINTED_ROWS = 100


class BadPeriod(ValueError):
    """A period parameter that is not a date, or ends before it starts (one line)."""


@dataclass(frozen=True)
class Period:
    """The dates a report is about: `start`..`end` inclusive, `today` where the city is,
    `year` for the annual reports."""

    today: date
    start: date
    end: date
    year: int

    @classmethod
    def parse(
        cls, today: date, start: str = "", end: str = "", year: str = "", default_days: int = 0
    ) -> Period:
        def day(name: str, value: str, fallback: date) -> date:
            if not value:
                return fallback
            try:
                return date.fromisoformat(value)
            except ValueError:
                raise BadPeriod(f"{name}: {value!r} is not a date (YYYY-MM-DD)") from None

        first = today.replace(day=1) if not default_days else today - timedelta(default_days)
        begin = day("from", start, first)
        finish = day("to", end, today)
        if finish < begin:
            raise BadPeriod(f"to: {finish} is before from: {begin}")
        if (finish - begin).days > 3660:
            raise BadPeriod("from/to: a period is at most ten years")
        try:
            the_year = int(year) if year else today.year
        except ValueError:
            raise BadPeriod(f"year: {year!r} is not a year") from None
        if not 1900 <= the_year <= 2200:
            raise BadPeriod(f"year: {the_year} is out of range")
        return cls(today=today, start=begin, end=finish, year=the_year)


def city_today(now: datetime | None = None) -> date:
    """Today in the default jurisdiction's time zone: what "overdue" and "next 90 days"
    are counted from."""
    return local_today(now or datetime.now(UTC), default_jurisdiction().time_zone)


def quarter(day: date) -> str:
    return f"{day.year} Q{(day.month - 1) // 3 + 1}"


def share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "n/a"


@dataclass
class Table:
    caption: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]

    @property
    def printed(self) -> Sequence[Sequence[Any]]:
        return self.rows[:PRINTED_ROWS]

    @property
    def cut(self) -> int:
        """How many lines the page and PDF leave to the CSV."""
        return max(0, len(self.rows) - PRINTED_ROWS)


@dataclass
class PortfolioReport:
    key: str
    title: str
    question: str  # what it answers, on the cover
    period_label: str
    basis: str  # the law or rule it measures against, on the cover
    figures: list[tuple[str, str]]  # the key figures, on the cover
    charts: list[str]  # SVG markup (reports/charts.py)
    tables: list[Table]
    csv_columns: Sequence[str]
    csv_rows: Sequence[Sequence[Any]]
    notes: list[str] = field(default_factory=list)
    jurisdiction_name: str = field(default_factory=lambda: default_jurisdiction().name)
    generated_at: str = field(default_factory=now_iso)


Builder = Callable[[Engine, Period], PortfolioReport]


@dataclass(frozen=True)
class ReportKind:
    key: str
    title: str
    question: str
    period: str  # "range" (from/to), "year", "ahead" (the next 90 days) or "today"
    build: Builder


def _kinds() -> dict[str, ReportKind]:
    from reports import portfolio_clocks, portfolio_conditions

    return {k.key: k for k in (*portfolio_clocks.KINDS, *portfolio_conditions.KINDS)}


_REPORTS: dict[str, ReportKind] = {}


def kinds() -> dict[str, ReportKind]:
    if not _REPORTS:
        _REPORTS.update(_kinds())
    return _REPORTS


def build(key: str, engine: Engine, period: Period) -> PortfolioReport:
    kind = kinds().get(key)
    if kind is None:
        raise KeyError(f"no report {key!r} (reports: {', '.join(kinds())})")
    return kind.build(engine, period)


def render_html(report: PortfolioReport, *, standalone: bool = True) -> str:
    """The whole document (cover, charts, tables) for the PDF, or the body a page shows."""
    return render("portfolio.html.j2", report=report, standalone=standalone)


def to_csv(report: PortfolioReport) -> str:
    return write_csv(report.csv_columns, report.csv_rows)


def to_pdf(report: PortfolioReport) -> bytes:
    from reports.pdf import html_to_pdf

    return html_to_pdf(render_html(report), title=f"{report.title} — {report.jurisdiction_name}")


def city_name(key: str) -> str:
    return jurisdiction_name(key)
