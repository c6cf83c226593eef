"""The city a letter is written for, as an administrator last saved it: the newest
version in table jurisdiction_versions in effect today in the city, else its shipped
file (rules/data/jurisdictions). notices/ sits below this layer and is handed the
document; it never reads the database itself.

The saved versions are re-read only when a newer one was saved (one cheap check of the
newest id per letter, on the letter's own connection)."""

from __future__ import annotations

import threading
from datetime import date

import pendulum
from sqlalchemy import Connection, func, select

from models.schema import JurisdictionVersion
from rules.kernel.jurisdictions import JURISDICTIONS, Jurisdiction, JurisdictionError
from rules.kernel.jurisdictions import parse_jurisdiction as _parse

_NEWEST = select(func.max(JurisdictionVersion.id))
_ALL = select(
    JurisdictionVersion.jurisdiction,
    JurisdictionVersion.version,
    JurisdictionVersion.effective_from,
    JurisdictionVersion.document,
).order_by(JurisdictionVersion.effective_from, JurisdictionVersion.version)


class CityDocuments:
    """Each city's current jurisdiction document, for the activities that send."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._newest = -1
        # key -> [(effective from, the jurisdiction)], oldest first
        self._versions: dict[str, list[tuple[str, Jurisdiction]]] = {}

    def _refresh(self, conn: Connection) -> dict[str, list[tuple[str, Jurisdiction]]]:
        newest = conn.execute(_NEWEST).scalar() or 0
        if newest == self._newest:
            return self._versions
        versions: dict[str, list[tuple[str, Jurisdiction]]] = {}
        for key, number, effective, document in conn.execute(_ALL):
            try:
                city = _parse(document, f"{key} v{number}: ")
            except JurisdictionError:
                continue  # checked when saved; a later code change must not stop letters
            versions.setdefault(key, []).append((effective, city))
        with self._lock:
            self._newest, self._versions = newest, versions
        return versions

    def current(self, conn: Connection, key: str, on: date | None = None) -> Jurisdiction | None:
        """The city ``key`` (a key, or a shipped city's name) in effect ``on`` (default:
        today in the city); None for a city nobody knows."""
        history = self._refresh(conn).get(key, [])
        if history:
            day = (on or pendulum.now(history[-1][1].time_zone).date()).isoformat()
            current = [city for effective, city in history if effective <= day]
            if current:
                return current[-1]
        return JURISDICTIONS.get(key) or next(
            (j for j in JURISDICTIONS.values() if j.name == key), None
        )
