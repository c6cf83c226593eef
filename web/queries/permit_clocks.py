"""A permit clock as its page and its API read it: the read model's row, events, notices
and the clocks that follow it."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException
from sqlalchemy import select

from models.schema import Notice, PermitClockRow, PermitEventRow, User
from web.context import AppContext
from web.queries.deadlines import permit_deadline
from web.views.permit_events import CHOICES, event_offers
from web.views.permit_timeline import permit_picture


def permit_clock_page(ctx: AppContext, clock_id: str) -> dict[str, Any]:
    """A permit clock with its events, notices and the clocks that follow it; 404 if unknown."""
    with ctx.sessions() as db:
        row = db.get(PermitClockRow, clock_id)
        if row is None:
            raise HTTPException(404, f"There is no permit clock {clock_id!r}.")
        events = list(
            db.scalars(
                select(PermitEventRow)
                .where(PermitEventRow.clock_id == clock_id)
                .order_by(PermitEventRow.date, PermitEventRow.event_id)
            )
        )
        notices = list(
            db.scalars(
                select(Notice)
                .where(Notice.application_id == clock_id)
                .order_by(Notice.created_at.desc())
            )
        )
        followers = list(
            db.scalars(select(PermitClockRow).where(PermitClockRow.companion_id == clock_id))
        )
        # Whom the clock may be handed to: staff who can log in.
        owners = list(
            db.scalars(
                select(User.email)
                .where(User.active.is_(True), User.role != "applicant")
                .order_by(User.email)
                .limit(500)
            )
        )
        db.expunge_all()
    clock = row.clock or {}
    chained: list[dict[str, Any]] = []
    for one in clock.get("next") or []:
        chained.append(one)
        chained.extend(one.get("next") or [])
    return {
        "row": row,
        "jurisdiction_key": row.jurisdiction,  # times on the page in this city's zone
        "clock": clock,
        "chained": chained,
        "events": events,
        "notices": notices,
        "followers": followers,
        "line": permit_deadline(row, ctx.today(row.jurisdiction)),
        "clock_today": ctx.today(row.jurisdiction),
        "owners": owners,
        # Only the events the clock's rules act on, each with its own fields.
        "offers": event_offers(clock),
        "choices": CHOICES,
        # The clock on a timeline: due date, extensions, hard stop, pauses, today.
        "picture": permit_picture(
            clock, [(e.type, e.date) for e in events], ctx.today(row.jurisdiction)
        ),
    }
