"""The jurisdictions (cities) actions name: by key, or the deployment's default.

A city's current document is the newest version an administrator saved that is in
effect today in that city (table jurisdiction_versions, actions/jurisdictions.py), else
its shipped file. The versions are read once per change: a cheap check of the newest
version id decides whether the cached ones still hold."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date

import pendulum
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from actions.errors import ActionFailed, bad
from models.schema import JurisdictionVersion
from models.scope import current_scope, in_scope, scoped
from rules.kernel.jurisdictions import (
    JURISDICTIONS,
    Jurisdiction,
    JurisdictionError,
    default_jurisdiction,
    jurisdiction,
    parse_jurisdiction,
)

# (effective from, version, the jurisdiction) per key, oldest first.
Versions = dict[str, list[tuple[str, int, Jurisdiction]]]


# Set for the rest of a web request once its versions were checked (Cities.hold): the
# request's many later calls, some made while a query holds a connection, use that copy
# instead of taking a second connection each.
_HELD: ContextVar[bool] = ContextVar("clearance_cities_held", default=False)


@dataclass
class _Cache:
    newest: int = -1
    versions: Versions = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class Cities:
    default_key: str  # settings.default_jurisdiction
    sessions: sessionmaker[Session] | None = None
    _cache: _Cache = field(default_factory=_Cache, compare=False, repr=False)

    def get(self, key: str = "", on: date | None = None) -> Jurisdiction:
        """A jurisdiction by key (in effect ``on``, default today in the city); empty:
        the deployment's default (a setting)."""
        if key and not in_scope(key):
            # Another city's jurisdiction is refused as an unknown one: not revealed.
            known = ", ".join(sorted(current_scope() or ()))
            raise bad(f"jurisdiction: unknown jurisdiction {key!r} (known: {known})")
        if not key:
            key = self._scoped_default()
        try:
            shipped = jurisdiction(key) if key else default_jurisdiction(self.default_key)
        except ValueError as err:
            if not key or key not in self.versions():
                raise bad(f"jurisdiction: {err}") from None
            shipped = None
        found = self._in_effect(shipped.key if shipped else key, on)
        if found is not None:
            return found
        if shipped is None:
            raise bad(f"jurisdiction: {key!r} has no version in effect yet")
        return shipped

    def home_key(self) -> str:
        """The deployment's default city's key (where a user with no city roles works)."""
        return self.default_key or default_jurisdiction().key

    def find(self, key: str) -> Jurisdiction | None:
        """The city ``key`` in effect today, or None (unknown, none in effect yet, or not
        the request's): for read-only views that fall back on their own."""
        if not key:
            return None
        try:
            return self.get(key)
        except ActionFailed:
            return None

    def _scoped_default(self) -> str:
        """'' (the deployment's default), or for a user who does not work there, the first
        of their cities."""
        scope = current_scope()
        if scope is None or not scope:
            return ""
        default = self.default_key or default_jurisdiction().key
        return "" if default in scope else sorted(scope)[0]

    def all(self) -> Mapping[str, Jurisdiction]:
        """Every jurisdiction the request may see (models/scope.py), shipped and
        administered, as in effect today; by name."""
        keys = {k for k in set(JURISDICTIONS) | set(self.versions()) if in_scope(k)}
        found = {k: self.get(k) for k in keys if self._has_current(k)}
        return dict(sorted(found.items(), key=lambda kv: kv[1].name))

    def _has_current(self, key: str) -> bool:
        return key in JURISDICTIONS or self._in_effect(key, None) is not None

    def _in_effect(self, key: str, on: date | None) -> Jurisdiction | None:
        history = self.versions().get(key, [])
        if not history:
            return None
        zone = history[-1][2].time_zone
        day = (on or pendulum.now(zone).date()).isoformat()
        current = [j for effective, _, j in history if effective <= day]
        return current[-1] if current else None

    def hold(self) -> None:
        """For the rest of this request, use the versions as now checked."""
        self.versions()
        _HELD.set(True)

    def versions(self, fresh: bool = False) -> Versions:
        """Every saved version by key; re-read only when a newer one was saved (checked at
        most once per web request, see `hold`; ``fresh``: check now, e.g. after a save)."""
        if self.sessions is None:
            return {}
        if _HELD.get() and self._cache.newest >= 0 and not fresh:
            return self._cache.versions
        # Read whole (with no request scope): which of them a request sees is decided above.
        with scoped(None), self.sessions() as session:
            newest = session.scalar(select(func.max(JurisdictionVersion.id))) or 0
            if newest == self._cache.newest:
                return self._cache.versions
            rows = session.scalars(
                select(JurisdictionVersion).order_by(
                    JurisdictionVersion.effective_from, JurisdictionVersion.version
                )
            ).all()
            versions: Versions = {}
            for row in rows:
                try:
                    city = parse_jurisdiction(row.document, f"{row.jurisdiction} v{row.version}: ")
                except JurisdictionError:
                    continue  # checked when saved; a later code change must not stop the app
                versions.setdefault(row.jurisdiction, []).append(
                    (row.effective_from, row.version, city)
                )
        with self._cache.lock:
            self._cache.newest, self._cache.versions = newest, versions
        return versions
