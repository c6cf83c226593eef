"""Which cities a staff user works in (and their role in each), and which city the object
a route's path names belongs to. `web.deps.jurisdiction_scope` uses both on every
request; the route-table test (tests/web/test_isolation.py) checks every path parameter
of every route is one of OWNERS or NOT_OBJECTS, so a route added later is not forgotten."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from models.schema import (
    ApplicantLink,
    Application,
    CaseloadImport,
    EvidenceFile,
    Notice,
    PermitClockRow,
    Project,
    User,
    UserJurisdiction,
)
from models.scope import scoped

# A city -> (role, department) there.
Roles = Mapping[str, tuple[str, str]]


def roles_of(sessions: sessionmaker[Session], user_id: int, default_key: str) -> Roles:
    """The user's role in each city; a user given none works in the default city with
    their own role (users.role, users.department)."""
    with scoped(None), sessions() as session:
        rows = session.execute(
            select(
                UserJurisdiction.jurisdiction, UserJurisdiction.role, UserJurisdiction.department
            ).where(UserJurisdiction.user_id == user_id)
        ).all()
        if rows:
            return {key: (role, department or "") for key, role, department in rows}
        user = session.get(User, user_id)
    return {default_key: (user.role, user.department or "")} if user else {}


def held_roles(sessions: sessionmaker[Session], default_key: str) -> dict[int, dict[str, str]]:
    """Every user's role in each city (a user with none: their role in the default)."""
    with scoped(None), sessions() as session:
        users = session.execute(select(User.id, User.role)).all()
        rows = session.execute(
            select(UserJurisdiction.user_id, UserJurisdiction.jurisdiction, UserJurisdiction.role)
        ).all()
    held: dict[int, dict[str, str]] = {}
    for user_id, key, role in rows:
        held.setdefault(user_id, {})[key] = role
    for user_id, role in users:
        held.setdefault(user_id, {default_key: role})
    return held


def grant(
    sessions: sessionmaker[Session], user_id: int, key: str, role: str, department: str = ""
) -> None:
    """Give a user a role in a city (replacing the one they had there)."""
    with scoped(None), sessions.begin() as session:
        row = session.scalar(
            select(UserJurisdiction).where(
                UserJurisdiction.user_id == user_id, UserJurisdiction.jurisdiction == key
            )
        )
        if row is None:
            session.add(
                UserJurisdiction(
                    user_id=user_id, jurisdiction=key, role=role, department=department
                )
            )
        else:
            row.role, row.department = role, department


def _column(model: type, key_column: str, id_column: str) -> Callable[[Session, str], str | None]:
    def owner(session: Session, value: str) -> str | None:
        query = select(getattr(model, key_column)).where(getattr(model, id_column) == value)
        return session.scalar(query)

    return owner


_application = _column(Application, "jurisdiction", "application_id")
_project = _column(Project, "jurisdiction", "project_id")
_permit = _column(PermitClockRow, "jurisdiction", "clock_id")


def _of_parent(scope: str, scope_id: str, session: Session) -> str | None:
    return (_project if scope == "project" else _application)(session, scope_id)


def _link(session: Session, value: str) -> str | None:
    row = session.get(ApplicantLink, value)
    return None if row is None else _of_parent(row.scope, row.scope_id, session)


def _file(session: Session, value: str) -> str | None:
    row = session.get(EvidenceFile, int(value)) if value.isdigit() else None
    return None if row is None else _of_parent(row.scope, row.scope_id, session)


def _notice(session: Session, value: str) -> str | None:
    row = session.get(Notice, value)
    if row is None:
        return None
    for owner in (_application, _project, _permit):
        found = owner(session, row.application_id)
        if found is not None:
            return found
    return None


DEFAULT_CITY = ""  # stands for the deployment's default jurisdiction


def _user(session: Session, value: str) -> str | tuple[str, ...] | None:
    """A user belongs to every city they hold a role in (none: the default city)."""
    if not value.isdigit() or session.get(User, int(value)) is None:
        return None
    keys = session.scalars(
        select(UserJurisdiction.jurisdiction).where(UserJurisdiction.user_id == int(value))
    ).all()
    return tuple(keys) or DEFAULT_CITY


def _run(session: Session, value: str) -> str | tuple[str, ...] | None:
    """A caseload import belongs to the cities of the administrator who made it."""
    row = session.get(CaseloadImport, value)
    if row is None:
        return None
    user = session.scalar(select(User.id).where(User.email == row.created_by))
    return None if user is None else _user(session, str(user))


# A path parameter naming an object of a city -> the city (or cities) it belongs to.
OWNERS: dict[str, Callable[[Session, str], str | tuple[str, ...] | None]] = {
    "application_id": _application,
    "project_id": _project,
    "clock_id": _permit,
    "link_id": _link,
    "file_id": _file,
    "notice_key": _notice,
    "user_id": _user,
    "run_id": _run,
    "key": lambda _session, value: value,  # /admin/jurisdictions/{key}: the city itself
}

# Path parameters that name no object of a city, and why they need no check of their own.
NOT_OBJECTS: dict[str, str] = {
    "number": "a condition number inside the project the route also names",
    "milestone": "a milestone inside the project the route also names",
    "kind": "a report kind of the project the route also names",
    "fmt": "a file format",
    "report": "a report across projects and clocks: its rows are the request's cities'",
    "subscription_id": "a webhook subscription: administrators only (admin.webhooks)",
    "name": "an event or resolution name on the object the route also names",
    "department": "a department's queue: its rows are filtered by the request's cities",
    "job_id": "a resolution import is kept for the user who started it (owner-checked)",
    "token_id": "a personal access token is the signed-in user's own (owner-checked)",
    "token": "an applicant link or calendar feed: the secret is the credential for one "
    "project, application or user, whose cities then apply",
}


def object_cities(
    sessions: sessionmaker[Session], params: Mapping[str, str], default_key: str
) -> list[tuple[str, tuple[str, ...]]]:
    """(parameter, the cities of the object it names) for each path parameter that names
    an existing object; read with no scope, so an object of another city is found."""
    found: list[tuple[str, tuple[str, ...]]] = []
    wanted = [(name, value) for name, value in params.items() if name in OWNERS]
    if not wanted:
        return found
    with scoped(None), sessions() as session:
        for name, value in wanted:
            owner = OWNERS[name](session, str(value))
            if owner == DEFAULT_CITY:
                owner = default_key
            if owner is not None:
                found.append((name, (owner,) if isinstance(owner, str) else owner))
    return found
