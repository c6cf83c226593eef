"""Permit clocks in the inboxes: the owner sees each clock's next action on the date
/deadlines gives it; a lapse reaches the planning manager and the city attorney, not
the other roles; a clock met is in no inbox."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select, update

from bench.web_seed import PERMIT_STAFF, SeedSize, seed_permits
from models.database import make_engine, session_factory, upgrade_schema
from models.schema import PermitClockRow
from web.queries.deadlines import permit_deadline
from web.queries.inbox import inbox_for


def test_owner_items_lapses_and_the_deadlines_date_agree(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'app.db'}")
    upgrade_schema(engine)
    now = datetime.now(UTC)
    today = now.date()
    seed_permits(engine, SeedSize(permit_clocks=120), random.Random(7), today, now)
    with session_factory(engine)() as db:
        rows = list(db.scalars(select(PermitClockRow)))
        owner = PERMIT_STAFF[0]
        mine = {r.clock_id: r for r in rows if r.staff_email == owner}
        inbox = inbox_for(db, "project_manager", owner, "", today, "America/Los_Angeles")
        items = [i for i in inbox.items if i.kind == "permit"]
        assert items, "the owner's permit clocks reach their inbox"
        for item in items:
            clock_id = item.href.rsplit("/", 1)[1]
            deadline = permit_deadline(mine[clock_id], today)
            assert deadline is not None and item.due == deadline.conservative_date
            assert item.action.startswith("Record ")
        lapsed = {
            r.clock_id for r in rows if r.next_deadline and r.next_deadline < today.isoformat()
        }
        assert lapsed
        for role in ("planning_manager", "city_attorney", "admin"):
            got = inbox_for(db, role, "someone@else.example", "", today, "UTC")
            escalated = {i.href.rsplit("/", 1)[1] for i in got.items if i.kind == "permit_lapse"}
            assert escalated and escalated <= lapsed, role
        reviewer = inbox_for(db, "department_reviewer", "r@x.example", "planning", today, "UTC")
        assert not [i for i in reviewer.items if i.kind == "permit_lapse"]
        # Met: in no inbox.
        first = items[0].href.rsplit("/", 1)[1]
    with engine.begin() as conn:
        conn.execute(
            update(PermitClockRow).where(PermitClockRow.clock_id == first).values(status="met")
        )
    with session_factory(engine)() as db:
        after = inbox_for(db, "project_manager", owner, "", today, "UTC")
        assert first not in {i.href.rsplit("/", 1)[1] for i in after.items}
