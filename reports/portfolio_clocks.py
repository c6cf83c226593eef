"""The clocks across every application and permit: shot-clock compliance by category and
quarter, permit-clock performance (PSA and AB 2234 decisions on time), and the clocks
lapsing in the next 90 days."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

from sqlalchemy import Engine, func, select

from models.database import session_factory
from models.schema import Application, ClockEventRow, PermitClockRow
from notices.vocabulary import CATEGORY_LABELS, PERMIT_STATUS_LABELS
from reports.charts import Bar, bar_chart, column_chart
from reports.portfolio import Period, PortfolioReport, ReportKind, Table, quarter, share

DECIDED = ("decided_on_time", "decided_late", "deemed_granted", "deemed_approved")
OPEN_SHOT_CLOCK = ("awaiting_submission", "running", "tolled", "reset_pending", "expired")
# The permit clocks whose decisions the state measures: the Permit Streamlining Act
# (Gov. Code 65943, 65950) and AB 2234's post-entitlement review (Gov. Code 65913.3).
FAMILIES = {
    "ca_psa_completeness": "PSA",
    "ca_psa_decision": "PSA",
    "ca_post_entitlement_completeness": "AB 2234",
    "ca_post_entitlement_review": "AB 2234",
}
PERMIT_DONE = ("met", "met_late", "lapsed")
PERMIT_OPEN = ("running", "paused", "awaiting_start")
AHEAD_DAYS = 90


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _range_label(period: Period) -> str:
    return f"{period.start.isoformat()} to {period.end.isoformat()}"


def shot_clock_compliance(engine: Engine, period: Period) -> PortfolioReport:
    decided = (
        select(ClockEventRow.application_id, func.max(ClockEventRow.date).label("decided_on"))
        .where(ClockEventRow.type == "decision")
        .group_by(ClockEventRow.application_id)
        .subquery()
    )
    query = (
        select(
            Application.application_id,
            Application.category,
            Application.status,
            Application.conservative_date,
            decided.c.decided_on,
        )
        .outerjoin(decided, decided.c.application_id == Application.application_id)
        .where(Application.status.in_(DECIDED))
    )
    lines: list[tuple[str, str, str, str, date, str]] = []
    with session_factory(engine)() as db:
        for app_id, category, status, due, decided_on in db.execute(query):
            # A deemed grant has no decision: it is counted on the date the clock ran out.
            when = _day(decided_on) or _day(due)
            if when is None or not period.start <= when <= period.end:
                continue
            lines.append((app_id, category, status, due or "", when, quarter(when)))
    cells: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for _, category, status, _, _, q in lines:
        cells[(category, q)][status] += 1
        cells[(category, q)]["all"] += 1
    rows = []
    for (category, q), n in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        late = n["decided_late"]
        deemed = n["deemed_granted"] + n["deemed_approved"]
        rows.append(
            (
                q,
                CATEGORY_LABELS.get(category, category),
                n["all"],
                n["decided_on_time"],
                late,
                deemed,
                share(n["decided_on_time"], n["all"]),
            )
        )
    by_quarter: dict[str, Counter[str]] = defaultdict(Counter)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    for _, category, status, _, _, q in lines:
        for bucket in (by_quarter[q], by_category[category]):
            bucket["all"] += 1
            bucket["on_time"] += status == "decided_on_time"
    quarters = [
        Bar(q, 100 * n["on_time"] / n["all"], share(n["on_time"], n["all"]))
        for q, n in sorted(by_quarter.items())
    ]
    categories = [
        Bar(CATEGORY_LABELS.get(c, c), 100 * n["on_time"] / n["all"], share(n["on_time"], n["all"]))
        for c, n in sorted(by_category.items())
    ]
    on_time = sum(1 for line in lines if line[2] == "decided_on_time")
    deemed = sum(1 for line in lines if line[2].startswith("deemed"))
    return PortfolioReport(
        key="shot-clock-compliance",
        title="Shot-clock compliance",
        question="How often did the city act on wireless applications within the shot clock?",
        period_label=_range_label(period),
        basis="47 CFR 1.6003 (FCC shot clocks); Gov. Code 65964.1 (deemed approved)",
        figures=[
            ("Applications decided or deemed", str(len(lines))),
            ("Decided on time", f"{on_time} ({share(on_time, len(lines))})"),
            ("Decided late", str(sum(1 for line in lines if line[2] == "decided_late"))),
            ("Deemed granted or approved", str(deemed)),
        ],
        charts=[
            column_chart(
                "compliance-by-quarter", "On-time share by quarter", quarters, maximum=100
            ),
            bar_chart(
                "compliance-by-category", "On-time share by category", categories, maximum=100
            ),
        ],
        tables=[
            Table(
                "Compliance by quarter and category",
                ("Quarter", "Category", "Decided", "On time", "Late", "Deemed", "On-time share"),
                rows,
            )
        ],
        csv_columns=(
            "application",
            "category",
            "status",
            "shot_clock_date",
            "decided_or_deemed_on",
            "quarter",
        ),
        csv_rows=[
            (a, c, s, due, when.isoformat(), q)
            for a, c, s, due, when, q in sorted(lines, key=lambda x: x[4])
        ],
        notes=[
            "A decision is on time when it is made on or before the conservative shot clock "
            "date (the earliest date any reading of the rules gives). Withdrawn applications "
            "are not counted."
        ],
    )


def _chain(name: str, entry: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A permit clock and the clocks chained after it, depth first, each named by the
    row's id and, for a chained one, its rule."""
    yield name, entry
    for child in entry.get("next") or []:
        if isinstance(child, dict):
            yield from _chain(f"{name} > {child.get('rule', '')}", child)


def permit_performance(engine: Engine, period: Period) -> PortfolioReport:
    # A PSA decision and an AB 2234 review are usually chained after their completeness
    # clock, inside its row's clock["next"]: each row of those laws is walked whole.
    query = select(
        PermitClockRow.clock_id,
        PermitClockRow.rule,
        PermitClockRow.status,
        PermitClockRow.title,
        PermitClockRow.conservative_date,
        PermitClockRow.clock,
    ).where(PermitClockRow.rule.in_(FAMILIES))
    lines: list[tuple[str, str, str, str, str, str, date]] = []
    with session_factory(engine)() as db:
        for clock_id, rule, status, title, due, clock in db.execute(query):
            top = {**(clock or {}), "rule": rule, "status": status, "conservative_date": due}
            for name, entry in _chain(clock_id, top):
                kind = str(entry.get("rule") or "")
                state = str(entry.get("status") or "")
                if kind not in FAMILIES or state not in PERMIT_DONE:
                    continue
                day = entry.get("conservative_date") or entry.get("due_date") or ""
                when = _day(entry.get("met_date")) or _day(day)
                if when is None or not period.start <= when <= period.end:
                    continue
                lines.append((name, FAMILIES[kind], kind, state, title, str(day), when))
    cells: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for _, family, _, status, _, _, when in lines:
        for key in ((family, quarter(when)), (family, "all")):
            cells[key][status] += 1
            cells[key]["all"] += 1
    rows = [
        (
            q if q != "all" else "whole period",
            family,
            n["all"],
            n["met"],
            n["met_late"],
            n["lapsed"],
            share(n["met"], n["all"]),
        )
        for (family, q), n in sorted(cells.items(), key=lambda kv: (kv[0][1] == "all", kv[0]))
    ]
    bars = [
        Bar(family, 100 * n["met"] / n["all"], share(n["met"], n["all"]))
        for (family, q), n in sorted(cells.items())
        if q == "all"
    ]
    per_quarter = [
        Bar(f"{family} {q}", 100 * n["met"] / n["all"], share(n["met"], n["all"]))
        for (family, q), n in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        if q != "all"
    ]
    met = sum(1 for line in lines if line[3] == "met")
    return PortfolioReport(
        key="permit-clock-performance",
        title="Permit-clock performance",
        question="What share of Permit Streamlining Act and AB 2234 decisions were on time?",
        period_label=_range_label(period),
        basis="Gov. Code 65943, 65950 (Permit Streamlining Act); Gov. Code 65913.3 (AB 2234)",
        figures=[
            ("Clocks decided or lapsed", str(len(lines))),
            ("On time", f"{met} ({share(met, len(lines))})"),
            ("Late", str(sum(1 for line in lines if line[3] == "met_late"))),
            ("Lapsed", str(sum(1 for line in lines if line[3] == "lapsed"))),
        ],
        charts=[
            bar_chart("permit-on-time", "On-time share, whole period", bars, maximum=100),
            column_chart("permit-by-quarter", "On-time share by quarter", per_quarter, maximum=100),
        ],
        tables=[
            Table(
                "Decisions by law and quarter",
                ("Quarter", "Law", "Decided", "On time", "Late", "Lapsed", "On-time share"),
                rows,
            )
        ],
        csv_columns=("clock", "law", "rule", "status", "title", "due", "decided_or_lapsed_on"),
        csv_rows=[
            (c, f, r, PERMIT_STATUS_LABELS.get(s, s), t, due, when.isoformat())
            for c, f, r, s, t, due, when in sorted(lines, key=lambda x: x[6])
        ],
        notes=[
            "On time: met on or before the conservative due date. A clock chained after "
            "another (the decision after completeness) is counted on its own line, named "
            "after the clock it follows."
        ],
    )


def lapsing_soon(engine: Engine, period: Period) -> PortfolioReport:
    today = period.today
    until = today + timedelta(days=AHEAD_DAYS)
    first, last = today.isoformat(), until.isoformat()
    apps = select(
        Application.application_id,
        Application.category,
        Application.site_address,
        Application.conservative_date,
        Application.planner_email,
    ).where(
        Application.status.in_(OPEN_SHOT_CLOCK),
        Application.conservative_date >= first,
        Application.conservative_date <= last,
    )
    # next_deadline is the earliest date over a row's clock and the clocks chained after
    # it: the row is walked, and each open clock in it whose date falls in the window is
    # listed (a completeness met, its decision still running).
    permits = select(
        PermitClockRow.clock_id,
        PermitClockRow.rule,
        PermitClockRow.status,
        PermitClockRow.title,
        PermitClockRow.conservative_date,
        PermitClockRow.staff_email,
        PermitClockRow.consequence,
        PermitClockRow.clock,
    ).where(
        PermitClockRow.next_deadline >= first,
        PermitClockRow.next_deadline <= last,
    )
    lines: list[tuple[str, int, str, str, str, str, str]] = []
    with session_factory(engine)() as db:
        for app_id, category, address, due, planner in db.execute(apps):
            day = date.fromisoformat(str(due))
            lines.append(
                (
                    day.isoformat(),
                    (day - today).days,
                    "shot clock",
                    app_id,
                    address or CATEGORY_LABELS.get(category, category),
                    "deemed granted or approved",
                    planner,
                )
            )
        for clock_id, rule, status, title, due, staff, consequence, clock in db.execute(permits):
            top = {
                **(clock or {}),
                "rule": rule,
                "status": status,
                "conservative_date": due,
                "consequence": consequence,
            }
            for name, entry in _chain(clock_id, top):
                ends = _day(entry.get("conservative_date"))
                if str(entry.get("status")) not in PERMIT_OPEN or ends is None:
                    continue
                if not today <= ends <= until:
                    continue
                lines.append(
                    (
                        ends.isoformat(),
                        (ends - today).days,
                        f"permit clock ({entry.get('rule')})",
                        name,
                        title,
                        str(entry.get("consequence") or "").replace("_", " "),
                        staff,
                    )
                )
    lines.sort()
    weeks: Counter[int] = Counter(days // 7 for _, days, *_ in lines)
    columns = [
        Bar((today + timedelta(weeks=w)).strftime("%d %b"), weeks[w], str(weeks[w]))
        for w in range(AHEAD_DAYS // 7 + 1)
    ]
    kinds = Counter("shot clock" if k == "shot clock" else "permit clock" for _, _, k, *_ in lines)
    within = sum(1 for _, days, *_ in lines if days <= 14)
    return PortfolioReport(
        key="lapsing-90-days",
        title="Clocks lapsing in the next 90 days",
        question="Which deadlines run out in the next 90 days, and what happens if they do?",
        period_label=f"{first} to {last}",
        basis="Each clock's own rule (47 CFR 1.6003; the Government Code sections cited)",
        figures=[
            ("Clocks lapsing", str(len(lines))),
            ("Within 14 days", str(within)),
            ("Shot clocks", str(kinds["shot clock"])),
            ("Permit clocks", str(kinds["permit clock"])),
        ],
        charts=[column_chart("lapsing-by-week", "Clocks lapsing, by week starting", columns)],
        tables=[
            Table(
                "Every clock lapsing, soonest first",
                ("Date", "Days left", "Clock", "Id", "Site or title", "If it lapses", "Staff"),
                lines,
            )
        ],
        csv_columns=("date", "days_left", "clock", "id", "site_or_title", "if_it_lapses", "staff"),
        csv_rows=list(lines),
        notes=[
            "Dates are the conservative dates: the earliest any reading of the rules gives. "
            "A clock that is decided or met drops off. A wireless application whose shot "
            "clock lapses may be deemed granted (47 CFR 1.6100(c)) or deemed approved "
            "(Gov. Code 65964.1)."
        ],
    )


KINDS = (
    ReportKind(
        "shot-clock-compliance",
        "Shot-clock compliance",
        "On-time wireless decisions by category and quarter",
        "range",
        shot_clock_compliance,
    ),
    ReportKind(
        "permit-clock-performance",
        "Permit-clock performance",
        "On-time share of PSA and AB 2234 decisions",
        "range",
        permit_performance,
    ),
    ReportKind(
        "lapsing-90-days",
        "Clocks lapsing in the next 90 days",
        "Shot clocks and permit clocks that run out soon",
        "ahead",
        lapsing_soon,
    ),
)
