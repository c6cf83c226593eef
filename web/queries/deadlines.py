"""One Deadlines list across shot clocks, permit clocks and project milestones, ordered by
conservative date (the earliest reasonable reading), read from the SQL read model.

Permit clocks are listed by `next_deadline`: the earliest conservative date among the
clock and the clocks it chains. Project milestones are the planned target dates of the
milestones not yet signed off (a target date is the project's plan, not a legal limit).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, load_only

from models.schema import Application, PermitClockRow, Project
from rules.kernel.citations import citation_title
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from web.views.present import days_between

PERMIT_DONE = ("met", "met_late", "withdrawn")


@dataclass
class Deadline:
    kind: str  # shot_clock | permit_clock | milestone
    subject_id: str
    title: str
    what: str  # the rule, category or milestone
    conservative_date: str
    due_date: str | None
    status: str
    consequence: str
    days_left: int | None
    risk: str
    url: str
    jurisdiction: str
    provisional: bool = False

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _risk(days_left: int | None, status: str) -> str:
    if status in ("lapsed", "expired") or (days_left is not None and days_left < 0):
        return "expired"
    if days_left is None:
        return "ok"
    if days_left <= 7:
        return "urgent"
    if days_left <= 30:
        return "soon"
    return "ok"


def permit_deadline(row: PermitClockRow, today: date) -> Deadline | None:
    due_on = row.next_deadline or row.conservative_date
    if not due_on:
        return None
    # The chained clock that sets the next deadline (e.g. HAA consistency after completeness).
    clocks = [row.clock or {}]
    for one in clocks:
        clocks.extend(one.get("next") or [])
    current = next((c for c in clocks if c.get("conservative_date") == due_on), row.clock or {})
    left = days_between(today, due_on)
    status = current.get("conservative_status") or current.get("status") or row.status
    return Deadline(
        kind="permit_clock",
        subject_id=row.clock_id,
        title=row.title or row.clock_id,
        what=citation_title(current.get("citation") or row.citation) or row.rule,
        conservative_date=due_on,
        due_date=current.get("due_date"),
        status=status,
        consequence=current.get("consequence") or row.consequence,
        days_left=left,
        risk=_risk(left, status),
        url=f"/permits/{row.clock_id}",
        jurisdiction=row.jurisdiction,
        provisional=bool(current.get("provisional") or row.provisional),
    )


def deadlines(session: Session, today: date, limit: int = 500) -> list[Deadline]:
    out: list[Deadline] = []
    for app in session.scalars(
        select(Application)
        .options(
            # The line, not the computed clock (its JSON was most of the query's time).
            load_only(
                Application.application_id,
                Application.site_address,
                Application.category,
                Application.conservative_date,
                Application.shot_clock_date,
                Application.status,
                Application.jurisdiction,
                raiseload=True,
            )
        )
        .where(Application.status.not_in(TERMINAL_STATUSES))
        .where(Application.conservative_date.is_not(None))
        .order_by(Application.conservative_date)
        .limit(limit)
    ):
        left = days_between(today, app.conservative_date)
        out.append(
            Deadline(
                kind="shot_clock",
                subject_id=app.application_id,
                title=app.site_address or app.application_id,
                what=f"shot clock ({app.category.replace('_', ' ')})",
                conservative_date=str(app.conservative_date),
                due_date=app.shot_clock_date,
                status=app.status,
                consequence="deemed granted or remedy under 47 U.S.C. 332(c)(7)",
                days_left=left,
                risk=_risk(left, app.status),
                url=f"/applications/{app.application_id}",
                jurisdiction=app.jurisdiction,
            )
        )
    for row in session.scalars(
        select(PermitClockRow)
        .where(PermitClockRow.next_deadline.is_not(None))
        .order_by(PermitClockRow.next_deadline)
        .limit(limit)
    ):
        line = permit_deadline(row, today)
        if line is not None:
            out.append(line)
    plans = select(Project).options(
        load_only(
            Project.project_id,
            Project.name,
            Project.planned,
            Project.signoffs,
            Project.jurisdiction,
            raiseload=True,
        )
    )
    for project in session.scalars(plans.order_by(Project.project_id).limit(limit)):
        targets = (project.planned or {}).get("milestone_targets") or {}
        signed = {s.get("milestone") for s in project.signoffs or [] if isinstance(s, dict)}
        for milestone, target in sorted(targets.items(), key=lambda kv: kv[1]):
            if milestone in signed or not target:
                continue
            left = days_between(today, target)
            out.append(
                Deadline(
                    kind="milestone",
                    subject_id=project.project_id,
                    title=project.name,
                    what=f"milestone: {milestone.replace('_', ' ')}",
                    conservative_date=target,
                    due_date=target,
                    status="planned",
                    consequence="",
                    days_left=left,
                    risk=_risk(left, "planned"),
                    url=f"/projects/{project.project_id}",
                    jurisdiction=project.jurisdiction,
                )
            )
    out.sort(key=lambda d: (d.conservative_date, d.kind, d.subject_id))
    return out[:limit]


def permit_calendar_events(
    session: Session,
    base_url: str,
    email: str,
    sees_all_in: Collection[str],
    limit: int = 2000,
) -> list[Any]:
    """ICS entries for open permit clocks (each chained clock's conservative date, with
    the literal date and the consequence in the description): every clock of the cities
    in `sees_all_in`, and elsewhere those where `email` is the staff contact."""
    from web.views.ics import CalendarEvent

    query = select(PermitClockRow).where(
        PermitClockRow.next_deadline.is_not(None),
        or_(PermitClockRow.jurisdiction.in_(sees_all_in), PermitClockRow.staff_email == email),
    )
    events: list[CalendarEvent] = []
    for row in session.scalars(query.order_by(PermitClockRow.next_deadline).limit(limit)):
        clocks = [row.clock or {}]
        for one in clocks:
            clocks.extend(one.get("next") or [])
        for one in clocks:
            day = one.get("conservative_date")
            if not day or one.get("status") in PERMIT_DONE:
                continue
            rule = one.get("rule") or row.rule
            provisional = (
                " PROVISIONAL rule (text not confirmed)." if one.get("provisional") else ""
            )
            events.append(
                CalendarEvent(
                    uid=f"permit-{row.clock_id}-{rule}@clearance",
                    day=date.fromisoformat(day),
                    summary=(
                        f"{citation_title(one.get('citation')) or rule}: "
                        f"{row.title or row.clock_id}"
                    ),
                    description=(
                        f"Conservative date (earliest reading) for {row.clock_id}; literal "
                        f"date {one.get('due_date') or '-'}. If missed: "
                        f"{(one.get('consequence') or '-').replace('_', ' ')}.{provisional}"
                    ),
                    url=f"{base_url}/permits/{row.clock_id}",
                    alarms_days_before=(14, 7, 3, 1),
                )
            )
    return events
