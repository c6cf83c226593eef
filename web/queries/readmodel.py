"""What the pages read: bounded queries on the SQL read model the activities keep current.

No page loops over workflow queries; every list is paged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, union_all
from sqlalchemy.orm import Session, load_only

from models.conditions import IN_REVIEW, SUBMITTED
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    ConditionRow,
    EvidenceFile,
    Notice,
    PermitClockRow,
    Project,
    User,
)
from reports.common import condition_state, milestone_sequence, sort_audit
from rules.conditions.lifecycle import MONITORED_GATES, blocks, owed_by_applicant
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from web.views.present import clock_risk, days_between

PAGE_SIZE = 50


@dataclass
class Page:
    items: list[Any]
    page: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def has_prev(self) -> bool:
        return self.page > 1


# Far past any real list, and small enough that its OFFSET fits the database's integer (a
# page number of 10**20 in a URL made SQLite raise OverflowError: found by the API fuzz).
MAX_PAGE = 1_000_000


def _page(page: int) -> int:
    return min(max(1, page), MAX_PAGE)


# -- wireless clocks --------------------------------------------------------------------------


@dataclass
class ClockLine:
    application_id: str
    site_address: str
    category: str
    status: str
    conservative_date: str | None
    shot_clock_date: str | None
    days_left: int | None
    risk: str
    planner_email: str

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


# "Today" for a clock: a date, or a function of the clock's jurisdiction (each city counts
# its days in its own time zone).
Today = date | Callable[[str], date]


def clock_line(row: Application, today: Today) -> ClockLine:
    if callable(today):
        today = today(row.jurisdiction)
    return ClockLine(
        application_id=row.application_id,
        site_address=row.site_address,
        category=row.category,
        status=row.status,
        conservative_date=row.conservative_date,
        shot_clock_date=row.shot_clock_date,
        days_left=days_between(today, row.conservative_date),
        # Colours follow the earliest reading (shot-clocks.md 8.1).
        # A decision closes the clock on every reading: its literal status decides.
        risk=clock_risk(
            row.status
            if row.status in TERMINAL_STATUSES
            else (row.conservative_status or row.status),
            row.conservative_date,
            row.risk_flagged,
            today,
        ),
        planner_email=row.planner_email,
    )


_CLOCK_COLUMNS = (
    Application.application_id,
    Application.site_address,
    Application.category,
    Application.status,
    Application.conservative_status,
    Application.conservative_date,
    Application.shot_clock_date,
    Application.risk_flagged,
    Application.planner_email,
    Application.jurisdiction,
)


def clocks(
    session: Session, today: Today, page: int = 1, closed: bool = False, size: int = PAGE_SIZE
) -> Page:
    """Open clocks (or closed ones) by conservative date, earliest first."""
    condition = (
        Application.status.in_(TERMINAL_STATUSES)
        if closed
        else Application.status.not_in(TERMINAL_STATUSES)
    )
    total = session.scalar(select(func.count()).select_from(Application).where(condition)) or 0
    page = _page(page)
    rows = session.execute(
        select(*_CLOCK_COLUMNS)
        .where(condition)
        .order_by(Application.conservative_date.asc().nulls_last(), Application.application_id)
        .limit(size)
        .offset((page - 1) * size)
    ).all()
    items = [clock_line(r, today) for r in rows]  # type: ignore[arg-type]
    return Page(items, page, size, total)


def application(session: Session, application_id: str) -> Application | None:
    return session.get(Application, application_id)


def clock_events(session: Session, application_id: str) -> list[ClockEventRow]:
    return list(
        session.scalars(
            select(ClockEventRow)
            .where(ClockEventRow.application_id == application_id)
            .order_by(ClockEventRow.date, ClockEventRow.id)
        )
    )


def notices_for(session: Session, application_id: str) -> list[Notice]:
    return list(
        session.scalars(
            select(Notice)
            .where(Notice.application_id == application_id)
            .order_by(Notice.created_at.desc())
            .limit(PAGE_SIZE)
        )
    )


def outstanding_items(row: Application, events: list[ClockEventRow]) -> list[dict[str, Any]]:
    """The items of the outstanding notice of incompleteness, if one is outstanding."""
    if row.status not in ("tolled", "reset_pending"):
        return []
    notices = [e for e in events if e.type == "incomplete_notice"]
    if not notices:
        return []
    return list((notices[-1].payload or {}).get("items") or [])


# -- projects and conditions --------------------------------------------------------------------


# What a list of projects shows: not their conditions' progress, plans or sign-offs (JSON
# that took most of a dashboard's database time).
_LIST_COLUMNS = (
    Project.project_id,
    Project.name,
    Project.jurisdiction,
    Project.next_milestone,
    Project.next_milestone_blockers,
    Project.urgent_target,
    Project.open_conditions,
)


def projects(
    session: Session, page: int = 1, q: str = "", listing: bool = False, size: int = PAGE_SIZE
) -> Page:
    """A page of projects by id; `listing`: only the columns a list shows (any other
    attribute raises rather than loading it row by row)."""
    where = []
    if q:
        # What was typed, matched literally: `%`, `_` and the escape character `/` are
        # escaped (ESCAPE '/'), so `q=%` finds names holding a percent sign, not all.
        where.append(
            or_(
                Project.project_id.icontains(q, autoescape=True),
                Project.name.icontains(q, autoescape=True),
            )
        )
    total = session.scalar(select(func.count()).select_from(Project).where(*where)) or 0
    page = _page(page)
    rows = list(
        session.scalars(
            select(Project)
            .options(*([load_only(*_LIST_COLUMNS, raiseload=True)] if listing else []))
            .where(*where)
            .order_by(Project.project_id)
            .limit(size)
            .offset((page - 1) * size)
        )
    )
    return Page(rows, page, size, total)


def project(session: Session, project_id: str) -> Project | None:
    return session.get(Project, project_id)


def conditions(session: Session, project_id: str) -> list[ConditionRow]:
    return list(
        session.scalars(
            select(ConditionRow)
            .where(ConditionRow.project_id == project_id)
            .order_by(ConditionRow.position, ConditionRow.id)
        )
    )


def condition(session: Session, project_id: str, number: str) -> ConditionRow | None:
    return session.scalar(
        select(ConditionRow).where(
            ConditionRow.project_id == project_id, ConditionRow.number == number
        )
    )


def condition_owner(session: Session, reviewer_email: str, department_key: str) -> str:
    """Who owns a condition: the reviewer the city's data names for its department when
    that is an active account here, else the department's first active reviewer account;
    '' when nobody who can log in reviews for it (an owner nobody can log in as owns nothing)."""
    if reviewer_email and session.scalar(select(User.active).where(User.email == reviewer_email)):
        return reviewer_email
    return (
        session.scalar(
            select(User.email)
            .where(
                User.active.is_(True),
                User.role == "department_reviewer",
                User.department == department_key,
            )
            .order_by(User.email)
            .limit(1)
        )
        or ""
    )


def condition_owner_choices(session: Session, department_key: str) -> list[str]:
    """Who may own a condition: the active accounts that can review it (its department's
    reviewers and the administrators)."""
    return list(
        session.scalars(
            select(User.email)
            .where(
                User.active.is_(True),
                (User.role == "admin")
                | ((User.role == "department_reviewer") & (User.department == department_key)),
            )
            .order_by(User.email)
        )
    )


def condition_history(session: Session, project_id: str, number: str) -> list[AuditRow]:
    return sort_audit(
        session.scalars(
            select(AuditRow).where(
                AuditRow.project_id == project_id, AuditRow.condition_number == number
            )
        )
    )


def evidence_files(session: Session, scope: str, scope_id: str) -> list[EvidenceFile]:
    return list(
        session.scalars(
            select(EvidenceFile)
            .where(EvidenceFile.scope == scope, EvidenceFile.scope_id == scope_id)
            .order_by(EvidenceFile.uploaded_at)
        )
    )


@dataclass
class ProjectView:
    """A project's conditions grouped by milestone, then department, after filters."""

    milestones: list[str]
    departments: list[str]
    groups: list[tuple[str, list[tuple[str, list[ConditionRow]]]]]
    blocking: dict[str, list[str]]  # milestone -> numbers that block it
    shown: int
    total: int
    signed: dict[str, dict[str, Any]] = field(default_factory=dict)


def project_view(
    project_row: Project,
    rows: list[ConditionRow],
    milestone: str = "",
    department: str = "",
    status: str = "",
    q: str = "",
) -> ProjectView:
    gates_in_use = [g for r in rows for g in (r.gates or ["unspecified"])]
    order = milestone_sequence(gates_in_use)
    departments = sorted({r.department_key for r in rows})
    states = {r.number: condition_state(r) for r in rows}
    blocking = {
        m: [r.number for r in rows if blocks(states[r.number], m)]
        for m in order
        if m not in MONITORED_GATES
    }
    needle = q.strip().lower()

    def keep(r: ConditionRow) -> bool:
        if department and r.department_key != department:
            return False
        if status == "blocking":
            if not any(r.number in numbers for numbers in blocking.values()):
                return False
        elif status and r.status != status:
            return False
        return not (needle and needle not in f"#{r.number} {r.code or ''} {r.text}".lower())

    kept = [r for r in rows if keep(r)]
    groups = []
    for m in order:
        if milestone and m != milestone:
            continue
        in_m = [r for r in kept if m in (r.gates or ["unspecified"])]
        if not in_m:
            continue
        by_dept: dict[str, list[ConditionRow]] = {}
        for r in in_m:
            by_dept.setdefault(r.department_key, []).append(r)
        groups.append((m, sorted(by_dept.items())))
    signed = {s["milestone"]: s for s in (project_row.signoffs or []) if isinstance(s, dict)}
    return ProjectView(order, departments, groups, blocking, len(kept), len(rows), signed)


def milestone_blockers(rows: list[ConditionRow], milestone: str) -> list[ConditionRow]:
    return [r for r in rows if blocks(condition_state(r), milestone)]


def owed(rows: list[ConditionRow]) -> list[ConditionRow]:
    """What the applicant still owes, by the lifecycle rules."""
    states = {r.number: r for r in rows}
    return [states[c.spec.number] for c in owed_by_applicant(condition_state(r) for r in rows)]


QUEUED = (SUBMITTED, IN_REVIEW)


def queued(
    session: Session, columns: list[Any], department: str | None, limit: int, offset: int = 0
) -> list[Any]:
    """Rows of submitted or in-review conditions, oldest submission first.

    One ordered index scan per status, merged: `status IN (...) ORDER BY submitted_at`
    cannot walk an index in order and sorted every queued row of the city (45 ms with
    100,000 conditions), while each `status = ...` part reads only the rows it returns."""
    parts = []
    for status in QUEUED:
        where = [ConditionRow.status == status]
        if department:
            where.append(ConditionRow.department_key == department)
        parts.append(
            select(*columns, ConditionRow.submitted_at.label("_at"), ConditionRow.id.label("_id"))
            .where(*where)
            .order_by(ConditionRow.submitted_at, ConditionRow.id)
            .limit(limit + offset)
            .subquery()
        )
    merged = union_all(*(select(part) for part in parts)).subquery()
    names = [c.key for c in columns]
    return list(
        session.execute(
            select(*(merged.c[n] for n in names))
            .order_by(merged.c._at, merged.c._id)
            .limit(limit)
            .offset(offset)
        ).all()
    )


def review_queue(
    session: Session, department: str | None, page: int = 1, size: int = PAGE_SIZE
) -> Page:
    """Submitted or in-review conditions, oldest submission first (one department, or all)."""
    where: list[ColumnElement[bool]] = [ConditionRow.status.in_(QUEUED)]
    if department:
        where.append(ConditionRow.department_key == department)
    total = session.scalar(select(func.count()).select_from(ConditionRow).where(*where)) or 0
    page = _page(page)
    columns = [
        ConditionRow.project_id,
        ConditionRow.number,
        ConditionRow.code,
        ConditionRow.department_key,
        ConditionRow.status,
        ConditionRow.submitted_at,
        ConditionRow.text,
        ConditionRow.sub_items,  # listed with the text: never dropped
    ]
    rows = queued(session, columns, department, size, (page - 1) * size)
    return Page([r._asdict() for r in rows], page, size, total)


# -- outbox ---------------------------------------------------------------------------------------


def outbox(session: Session, page: int = 1, state: str = "") -> Page:
    where = [Notice.delivery_state == state] if state else []
    total = session.scalar(select(func.count()).select_from(Notice).where(*where)) or 0
    page = _page(page)
    rows = session.execute(
        select(
            Notice.notice_key,
            Notice.application_id,
            Notice.kind,
            Notice.subject,
            Notice.to_addrs,
            Notice.delivery_state,
            Notice.transport,
            Notice.attempts,
            Notice.last_error,
            Notice.created_at,
            Notice.delivered_at,
        )
        .where(*where)
        .order_by(Notice.created_at.desc())
        .limit(PAGE_SIZE)
        .offset((page - 1) * PAGE_SIZE)
    ).all()
    return Page([r._asdict() for r in rows], page, PAGE_SIZE, total)


def notice(session: Session, key: str) -> Notice | None:
    return session.get(Notice, key)


def project_clocks(session: Session, project_id: str) -> list[PermitClockRow]:
    """The clocks of a project (its conditions' time limits), for its pages."""
    return list(
        session.scalars(
            select(PermitClockRow)
            .where(PermitClockRow.project_id == project_id)
            .order_by(PermitClockRow.condition_number, PermitClockRow.clock_id)
        )
    )
