"""Who may be handed a clock or a condition: a person who can log in and works in its
city. One check for the three reassignments (wireless applications, permit clocks,
conditions), so an inbox never fills for someone who will not see it: a deactivated
account, a mistyped address, or a planner of another city (whose scope would hide the
record from them, models/scope.py)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from actions.errors import ActionFailed
from models.schema import User, UserJurisdiction


@dataclass(frozen=True)
class Owner:
    email: str
    role: str  # the role they hold in the record's city
    department: str
    active: bool


def account_in_city(
    sessions: sessionmaker[Session], email: str, city: str, default_city: str
) -> Owner | None:
    """The account of `email` as it works in `city` (a person given no city roles works
    in the default city with their own role); None when there is no such account.
    Refused, naming the field, when they hold no role in that city."""
    email = email.strip()
    with sessions() as session:
        user = session.scalar(select(User).where(User.email == email))
        if user is None:
            return None
        held = {
            key: (role, department or "")
            for key, role, department in session.execute(
                select(
                    UserJurisdiction.jurisdiction,
                    UserJurisdiction.role,
                    UserJurisdiction.department,
                ).where(UserJurisdiction.user_id == user.id)
            )
        }
    if not held:
        held = {default_city: (user.role, user.department or "")}
    if city not in held:
        raise ActionFailed(f"email: {email} holds no role in {city}, where this record is", 400)
    role, department = held[city]
    return Owner(email, role, department, bool(user.active))


def owner_in_city(
    sessions: sessionmaker[Session], email: str, city: str, default_city: str
) -> Owner:
    """As account_in_city, and refused unless the account can log in."""
    owner = account_in_city(sessions, email, city, default_city)
    if owner is None or not owner.active:
        raise ActionFailed(f"email: {email.strip() or '(empty)'} is not a user who can log in", 400)
    return owner
