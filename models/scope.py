"""Which jurisdictions the current request may see, applied to every read of the read model.

A request from a staff user of some cities sets the scope (``scoped(keys)``, done once by
the web app's dependency `web.deps.jurisdiction_scope`); while it is set, every ORM query
on these sessions sees only rows of those cities: the tables with a ``jurisdiction``
column directly, and their child tables (events, conditions, audit, notices, evidence,
applicant links) through their parent. Code with no scope set (the worker, activities,
the CLI's database commands, migrations) sees everything. Putting the filter here, under
every query, means a list or lookup added later is scoped without remembering to be."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from sqlalchemy import event, or_, select
from sqlalchemy.orm import ORMExecuteState, Session, with_loader_criteria

from models.schema import (
    ApplicantLink,
    Application,
    AuditRow,
    ClockEventRow,
    ClosureDay,
    ConditionRow,
    EvidenceFile,
    JurisdictionVersion,
    Notice,
    PermitClockRow,
    PermitEventRow,
    Project,
)

_SCOPE: ContextVar[frozenset[str] | None] = ContextVar("clearance_scope", default=None)


def current_scope() -> frozenset[str] | None:
    """The jurisdictions the request may see; None: no request scope (everything)."""
    return _SCOPE.get()


def in_scope(key: str) -> bool:
    scope = _SCOPE.get()
    return scope is None or key in scope


def set_scope(keys: Iterable[str] | None) -> None:
    """Set for the rest of the current task (a request): its later code and the threads it
    starts see it; a new request starts with none."""
    _SCOPE.set(None if keys is None else frozenset(keys))


@contextmanager
def scoped(keys: Iterable[str] | None) -> Iterator[None]:
    token = _SCOPE.set(None if keys is None else frozenset(keys))
    try:
        yield
    finally:
        _SCOPE.reset(token)


@lru_cache(maxsize=512)
def _criteria(keys: frozenset[str]) -> tuple[Any, ...]:
    """The options for one set of cities, built once: building them per statement was a
    quarter of an inbox's time (the option objects are immutable and reusable)."""
    apps = select(Application.application_id).where(Application.jurisdiction.in_(keys))
    projects = select(Project.project_id).where(Project.jurisdiction.in_(keys))
    permits = select(PermitClockRow.clock_id).where(PermitClockRow.jurisdiction.in_(keys))
    by_scope = {"application": apps, "project": projects}
    options: list[Any] = [
        with_loader_criteria(Application, Application.jurisdiction.in_(keys)),
        with_loader_criteria(Project, Project.jurisdiction.in_(keys)),
        with_loader_criteria(PermitClockRow, PermitClockRow.jurisdiction.in_(keys)),
        with_loader_criteria(ClosureDay, ClosureDay.jurisdiction.in_(keys)),
        with_loader_criteria(JurisdictionVersion, JurisdictionVersion.jurisdiction.in_(keys)),
        with_loader_criteria(ClockEventRow, ClockEventRow.application_id.in_(apps)),
        with_loader_criteria(PermitEventRow, PermitEventRow.clock_id.in_(permits)),
        with_loader_criteria(ConditionRow, ConditionRow.project_id.in_(projects)),
        with_loader_criteria(AuditRow, AuditRow.project_id.in_(projects)),
        # A notice belongs to an application, a project or a permit clock by its id.
        with_loader_criteria(
            Notice,
            or_(
                Notice.application_id.in_(apps),
                Notice.application_id.in_(projects),
                Notice.application_id.in_(permits),
            ),
        ),
    ]
    for model in (EvidenceFile, ApplicantLink):
        options.append(
            with_loader_criteria(
                model,
                or_(
                    *(
                        (model.scope == name) & model.scope_id.in_(ids)
                        for name, ids in by_scope.items()
                    )
                ),
            )
        )
    return tuple(options)


@event.listens_for(Session, "do_orm_execute")
def _apply_scope(state: ORMExecuteState) -> None:
    keys = _SCOPE.get()
    if keys is None or not (state.is_select or state.is_update or state.is_delete):
        return
    if state.is_column_load or state.is_relationship_load:
        return
    state.statement = state.statement.options(*_criteria(keys))


# The requester's role in the city of the object the request is about (a person may hold
# different roles in different cities): (user id, role, department).
_ROLE: ContextVar[tuple[int, str, str] | None] = ContextVar("clearance_role", default=None)


def set_role_here(user_id: int, role: str, department: str) -> None:
    _ROLE.set((user_id, role, department))


def role_here(user_id: int) -> tuple[str, str] | None:
    found = _ROLE.get()
    return (found[1], found[2]) if found is not None and found[0] == user_id else None
