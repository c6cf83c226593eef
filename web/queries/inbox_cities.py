"""The inbox of a person who works in several cities with different roles (a contract
firm's planner who is a reviewer at home and the planning manager of another city):
each city's share is chosen by their role there, then the shares are merged nearest
first. Most people hold one role everywhere, and get the one-role inbox unchanged. The
dashboard's review queue is chosen the same way: a department reviewer's department in
the cities where they review, every department where they manage."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from models.scope import scoped
from web.queries.inbox import INBOX_CAP, CityLookup, Inbox, inbox_for, rank
from web.queries.readmodel import Page, review_queue
from web.queries.scope import Roles


def inbox_in_cities(
    db: Session,
    roles: Roles,
    home: tuple[str, str],
    email: str,
    today: date,
    time_zone: str,
    cities: CityLookup | None = None,
) -> Inbox:
    """`roles`: the person's (role, department) in each of their cities; `home`: their
    own role, for a person given no city roles."""
    groups: dict[tuple[str, str], list[str]] = {}
    for key, held in sorted(roles.items()):
        groups.setdefault(held, []).append(key)
    if len(groups) <= 1:
        role, department = next(iter(groups), home)
        return inbox_for(db, role, email, department, today, time_zone, cities)
    items, covers, capped = [], [], False
    for (role, department), keys in groups.items():
        with scoped(keys):
            share = inbox_for(db, role, email, department, today, time_zone, cities)
        where = ", ".join(_name(key, cities) for key in keys)
        items += share.items
        covers += [f"{cover} ({where})" for cover in share.sections]
        capped = capped or share.capped
    merged = rank(items)
    return Inbox(merged[:INBOX_CAP], covers, capped or len(merged) > INBOX_CAP)


def _name(key: str, cities: CityLookup | None) -> str:
    found = cities(key) if cities is not None else None
    return found.name if found is not None else key


@dataclass(frozen=True)
class QueueShare:
    """Part of a person's review queue: one department's (None: every department's) in
    the cities named."""

    department: str | None
    cities: list[str]


@dataclass(frozen=True)
class ReviewQueue:
    page: Page
    shares: list[QueueShare]

    @property
    def department(self) -> str | None:
        """The one department the whole queue is about, if it is one."""
        return self.shares[0].department if len(self.shares) == 1 else None


def review_queue_in_cities(
    db: Session,
    roles: Roles,
    home: tuple[str, str],
    page: int,
    size: int,
    cities: CityLookup | None = None,
) -> ReviewQueue:
    """The evidence waiting for this person's review: in each city, their department's
    if they are a department reviewer there, every department's otherwise; oldest
    submission first across the cities."""
    held = roles or {"": home}
    groups: dict[str | None, list[str]] = {}
    for key, (role, own) in sorted(held.items()):
        groups.setdefault(own or None if role == "department_reviewer" else None, []).append(key)
    if len(groups) == 1:
        ((only, keys),) = groups.items()
        found = review_queue(db, only, page, size)
        return ReviewQueue(found, [QueueShare(only, [_name(k, cities) for k in keys])])
    rows: list[dict[str, Any]] = []
    total = 0
    shares = []
    for department, keys in groups.items():
        with scoped(keys):
            # Enough of each share to fill this page once they are merged.
            share = review_queue(db, department, 1, size * max(1, page))
        rows += share.items
        total += share.total
        shares.append(QueueShare(department, [_name(k, cities) for k in keys]))
    rows.sort(key=lambda r: (r["submitted_at"] is None, r["submitted_at"] or 0, r["project_id"]))
    start = (max(1, page) - 1) * size
    return ReviewQueue(Page(rows[start : start + size], max(1, page), size, total), shares)
