"""The inbox of a person who works in several cities with different roles (a contract
firm's planner who is a reviewer at home and the planning manager of another city):
each city's share is chosen by their role there, then the shares are merged nearest
first. Most people hold one role everywhere, and get the one-role inbox unchanged."""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from models.scope import scoped
from web.queries.inbox import INBOX_CAP, CityLookup, Inbox, inbox_for, rank
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
