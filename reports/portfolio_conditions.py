"""The conditions of approval across every project: overdue conditions by department,
conditions cleared in a period, and the annual MMRP report."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from typing import Any

from sqlalchemy import Engine, and_, select

from models.conditions import IN_REVIEW, RESOLVED_STATUSES, SUBMITTED
from models.database import session_factory
from models.schema import AuditRow, ConditionRow, Project
from notices.vocabulary import CONDITION_STATUS_LABELS, department_names, milestone_label
from reports.charts import Bar, bar_chart
from reports.common import department_name, jurisdiction_time_zone, local_date, sort_audit
from reports.mmrp import (
    CITATION,
    STATUS_DETAIL_KEYS,
    implementer,
    resolves,
    verification_dates,
)
from reports.portfolio import Period, PortfolioReport, ReportKind, Table, share
from rules.kernel.calendars import calendar_for
from rules.kernel.jurisdictions import JURISDICTIONS


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _projects(db: Any) -> dict[str, Project]:
    return {p.project_id: p for p in db.scalars(select(Project))}


def _department(key: str, project: Project | None, names: dict[str, str]) -> str:
    return department_name(key, project) if project is not None else names.get(key, key)


def overdue_by_department(engine: Engine, period: Period) -> PortfolioReport:
    """Two ways a condition is overdue: its review has run past the city's service level
    (business days from submission), or it is still open after the target date of a
    milestone it gates that is not signed off."""
    today = period.today
    query = select(
        ConditionRow.project_id,
        ConditionRow.number,
        ConditionRow.department_key,
        ConditionRow.status,
        ConditionRow.gates,
        ConditionRow.submitted_at,
        ConditionRow.kind,
    ).where(ConditionRow.status.not_in(RESOLVED_STATUSES), ConditionRow.kind != "advisory")
    names = department_names()
    lines: list[tuple[str, str, str, str, str, int]] = []
    with session_factory(engine)() as db:
        projects = _projects(db)
        calendars: dict[str, Any] = {}
        # Many reviews share a city and a submission day: each due day is counted once.
        review_due: dict[tuple[str, str], date] = {}
        for pid, number, dept, status, gates, submitted_at, _ in db.execute(query):
            project = projects.get(pid)
            city = JURISDICTIONS.get(project.jurisdiction) if project else None
            if status in (SUBMITTED, IN_REVIEW) and submitted_at and city is not None:
                submitted = local_date(submitted_at, city.time_zone)
                due = review_due.get((city.key, submitted))
                if due is None:
                    cal = calendars.get(city.key)
                    if cal is None:
                        cal = calendars[city.key] = calendar_for(city.state)
                    due = review_due[(city.key, submitted)] = cal.add_business_days(
                        date.fromisoformat(submitted), city.review_sla_business_days
                    )
                if due < today:
                    lines.append(
                        (
                            _department(dept, project, names),
                            pid,
                            number,
                            f"review due ({city.review_sla_business_days} business days)",
                            due.isoformat(),
                            (today - due).days,
                        )
                    )
                    continue
            if project is None:
                continue
            targets = (project.planned or {}).get("milestone_targets") or {}
            signed = {s.get("milestone") for s in project.signoffs or [] if isinstance(s, dict)}
            late = [
                (target, gate)
                for gate in gates or []
                if gate not in signed
                and (target := _day(targets.get(gate))) is not None
                and target < today
            ]
            if late:
                target, gate = min(late)
                lines.append(
                    (
                        _department(dept, project, names),
                        pid,
                        number,
                        f"open past the {milestone_label(gate)} target",
                        target.isoformat(),
                        (today - target).days,
                    )
                )
    lines.sort(key=lambda x: (x[0], -x[5], x[1], x[2]))
    by_dept: dict[str, list[int]] = defaultdict(list)
    for dept, *_, days in lines:
        by_dept[dept].append(days)
    summary = [
        (dept, len(days), max(days), round(sum(days) / len(days)))
        for dept, days in sorted(by_dept.items(), key=lambda kv: -len(kv[1]))
    ]
    return PortfolioReport(
        key="overdue-conditions",
        title="Overdue conditions by department",
        question="Which departments hold conditions that are past their review or target date?",
        period_label=f"as of {today.isoformat()}",
        basis="The city's review service level; the project's milestone target dates",
        figures=[
            ("Overdue conditions", str(len(lines))),
            ("Departments with overdue conditions", str(len(by_dept))),
            ("Most days overdue", str(max((x[5] for x in lines), default=0))),
        ],
        charts=[
            bar_chart(
                "overdue-by-department",
                "Overdue conditions by department",
                [Bar(dept, n) for dept, n, _, _ in summary],
            )
        ],
        tables=[
            Table(
                "By department",
                ("Department", "Overdue", "Most days overdue", "Average days overdue"),
                summary,
            ),
            Table(
                "Each overdue condition, most overdue first within its department",
                ("Department", "Project", "Condition", "Why", "Due", "Days overdue"),
                lines,
            ),
        ],
        csv_columns=("department", "project", "condition", "why", "due", "days_overdue"),
        csv_rows=list(lines),
    )


def _audit_in(db: Any, start: date, end: date) -> list[tuple[AuditRow, str]]:
    """The audit events about a condition in the period, each with the condition's
    department. `at` is an ISO instant: a day's margin either side here, then each event
    is judged on the city's calendar day."""
    lo = date.fromordinal(start.toordinal() - 1).isoformat()
    hi = date.fromordinal(end.toordinal() + 2).isoformat()
    query = (
        select(AuditRow, ConditionRow.department_key)
        .outerjoin(
            ConditionRow,
            and_(
                ConditionRow.project_id == AuditRow.project_id,
                ConditionRow.number == AuditRow.condition_number,
            ),
        )
        .where(AuditRow.at >= lo, AuditRow.at < hi, AuditRow.condition_number.is_not(None))
    )
    return [(event, dept or "") for event, dept in db.execute(query)]


def cleared_in_period(engine: Engine, period: Period) -> PortfolioReport:
    names = department_names()
    lines: list[tuple[str, str, str, str, str, str]] = []
    with session_factory(engine)() as db:
        projects = _projects(db)
        for event, dept in _audit_in(db, period.start, period.end):
            if not resolves(event):
                continue
            project = projects.get(event.project_id)
            tz = jurisdiction_time_zone(project.jurisdiction) if project else None
            day = local_date(event.at, tz)
            if not period.start.isoformat() <= day <= period.end.isoformat():
                continue
            details = event.details or {}
            to = next(
                (details[k] for k in STATUS_DETAIL_KEYS if details.get(k) in RESOLVED_STATUSES),
                event.action,
            )
            lines.append(
                (
                    day,
                    event.project_id,
                    event.condition_number or "",
                    _department(dept, project, names),
                    CONDITION_STATUS_LABELS.get(str(to), str(to).replace("_", " ")),
                    event.actor,
                )
            )
    lines.sort()
    by_dept = Counter(line[3] for line in lines)
    how = Counter(line[4] for line in lines)
    return PortfolioReport(
        key="conditions-cleared",
        title="Conditions cleared",
        question="Which conditions of approval were cleared or otherwise resolved?",
        period_label=f"{period.start.isoformat()} to {period.end.isoformat()}",
        basis="Each project's audit trail (who resolved each condition, when)",
        figures=[
            ("Conditions resolved", str(len(lines))),
            *[(label.capitalize(), str(n)) for label, n in how.most_common()],
            ("Projects", str(len({line[1] for line in lines}))),
        ],
        charts=[
            bar_chart(
                "cleared-by-department",
                "Resolved by department",
                [Bar(d, n) for d, n in by_dept.most_common()],
            )
        ],
        tables=[
            Table(
                "By department",
                ("Department", "Resolved"),
                [(d, n) for d, n in by_dept.most_common()],
            ),
            Table(
                "Each condition resolved",
                ("Date", "Project", "Condition", "Department", "Resolved as", "By"),
                lines,
            ),
        ],
        csv_columns=("date", "project", "condition", "department", "resolved_as", "by"),
        csv_rows=list(lines),
    )


MEASURE_COLUMNS = (
    ConditionRow.project_id,
    ConditionRow.number,
    ConditionRow.code,
    ConditionRow.text,
    ConditionRow.gates,
    ConditionRow.kind,
    ConditionRow.department_key,
    ConditionRow.status,
)
EVENT_COLUMNS = (
    AuditRow.id,
    AuditRow.project_id,
    AuditRow.condition_number,
    AuditRow.at,
    AuditRow.action,
    AuditRow.details,
)


def annual_mmrp(engine: Engine, period: Period) -> PortfolioReport:
    """Every mitigation measure (a condition carrying a code such as BIO-3) of every
    project: verified in the year, verified before it, or still to verify."""
    year = str(period.year)
    # Plain rows of the columns used (not whole ORM objects): a city's measures and its
    # audit trail are tens of thousands of rows.
    measures: dict[str, list[Any]] = defaultdict(list)
    audit: dict[str, list[Any]] = defaultdict(list)
    with session_factory(engine)() as db:
        projects = _projects(db)
        for row in db.execute(
            select(*MEASURE_COLUMNS)
            .where(ConditionRow.code.is_not(None), ConditionRow.code != "")
            .order_by(ConditionRow.project_id, ConditionRow.position)
        ):
            measures[row.project_id].append(row)
        numbers = {(pid, r.number) for pid, rows in measures.items() for r in rows}
        if numbers:
            for event in db.execute(
                select(*EVENT_COLUMNS).where(
                    AuditRow.condition_number.is_not(None), AuditRow.at < f"{int(year) + 1}"
                )
            ):
                if (event.project_id, event.condition_number) in numbers:
                    audit[event.project_id].append(event)
    csv_rows: list[tuple[Any, ...]] = []
    per_project: list[tuple[str, str, int, int, int, int]] = []
    totals: Counter[str] = Counter()
    for pid, rows in measures.items():
        project = projects.get(pid)
        # A project approved after the year had no measures to carry out in it.
        if project is None or (project.approved_on or "") > f"{year}-12-31":
            continue
        tz = jurisdiction_time_zone(project.jurisdiction)
        resolved = {r.number: r.status in RESOLVED_STATUSES for r in rows}
        verified = verification_dates(sort_audit(audit.get(pid, [])), resolved, tz)
        counts: Counter[str] = Counter()
        for row in rows:
            when = verified.get(row.number, "") if resolved[row.number] else ""
            standing = (
                "verified this year"
                if when.startswith(year)
                else "verified before"
                if when and when < year
                else "to verify"
            )
            counts[standing] += 1
            csv_rows.append(
                (
                    pid,
                    (row.code or "").strip(),
                    row.number,
                    " ".join((row.text or "").split()),
                    "; ".join(milestone_label(g) for g in row.gates or []),
                    implementer(row),
                    department_name(row.department_key, project),
                    when,
                    standing,
                )
            )
        totals.update(counts)
        per_project.append(
            (
                pid,
                project.name,
                len(rows),
                counts["verified this year"],
                counts["verified before"],
                counts["to verify"],
            )
        )
    total = sum(totals.values())
    return PortfolioReport(
        key="annual-mmrp",
        title=f"Annual MMRP report, {year}",
        question="Were the adopted mitigation measures carried out and verified this year?",
        period_label=f"calendar year {year}",
        basis=f"{CITATION} (mitigation monitoring and reporting program)",
        figures=[
            ("Projects with mitigation measures", str(len(per_project))),
            ("Measures", str(total)),
            (
                "Verified this year",
                f"{totals['verified this year']} ({share(totals['verified this year'], total)})",
            ),
            ("Verified before", str(totals["verified before"])),
            ("Still to verify", str(totals["to verify"])),
        ],
        charts=[
            bar_chart(
                "mmrp-standing",
                "Mitigation measures by standing",
                [
                    Bar(k.capitalize(), totals[k])
                    for k in ("verified this year", "verified before", "to verify")
                ],
            )
        ],
        tables=[
            Table(
                "By project",
                ("Project", "Name", "Measures", "Verified this year", "Before", "To verify"),
                per_project,
            )
        ],
        csv_columns=(
            "project",
            "code",
            "number",
            "measure",
            "timing",
            "implementer",
            "monitoring_department",
            "verification_date",
            "standing",
        ),
        csv_rows=csv_rows,
        notes=[
            "A measure is verified on the city's calendar day its condition was last "
            "resolved (cleared, waived, satisfied by an alternative)."
        ],
    )


KINDS = (
    ReportKind(
        "overdue-conditions",
        "Overdue conditions by department",
        "Reviews past the service level; conditions open past a milestone target",
        "today",
        overdue_by_department,
    ),
    ReportKind(
        "conditions-cleared",
        "Conditions cleared",
        "Conditions resolved in a period, by department",
        "range",
        cleared_in_period,
    ),
    ReportKind(
        "annual-mmrp",
        "Annual MMRP report",
        "Every mitigation measure's verification in a year",
        "year",
        annual_mmrp,
    ),
)
