"""An administrator's edits to a jurisdiction: each one a new version of its document,
effective from a date, kept with who made it and why (table jurisdiction_versions).

Every edit is checked before anything is stored, with a one-line error naming the field
(the rules core's `parse_jurisdiction`, the permit packs' `place_of`). Running clocks keep
the calendar and facts they froze when they were opened; a closure day in the past is
refused unless the edit is an audited rebase, which then rebases the city's running shot
clocks on the new version (each with a ledger line). A jurisdiction exports and imports
as one JSON document, the same shape as a shipped jurisdiction file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import pendulum
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from actions.cities import Cities
from actions.errors import ActionFailed, bad
from actions.shot_clock_requests import RebaseShotClock
from actions.shot_clocks import ShotClockActions
from models.schema import Application, JurisdictionVersion, User, UserJurisdiction
from rules.access import Principal, require
from rules.kernel.jurisdictions import JURISDICTIONS, Jurisdiction, JurisdictionError
from rules.kernel.jurisdictions import parse_jurisdiction as parse_document
from rules.permit_clocks.jurisdictions import place_of

PERMISSION = "admin.jurisdictions"
# An import is one JSON document; far below the app's body limit.
MAX_DOCUMENT_BYTES = 1_000_000


@dataclass(frozen=True)
class Saved:
    key: str
    version: int
    effective_from: str
    changed: list[str]
    rebased: list[str] = field(default_factory=list)
    rebase_refused: list[str] = field(default_factory=list)


def check_document(raw: Any) -> Jurisdiction:
    """The jurisdiction a document describes, or ActionFailed 400 naming the field."""
    try:
        city = parse_document(raw)
        place_of(city)
    except (JurisdictionError, ValueError) as err:
        raise bad(str(err)) from None
    return city


def read_document(text: str | bytes) -> Any:
    """A document from an uploaded or pasted file: JSON, one object."""
    if len(text) > MAX_DOCUMENT_BYTES:
        raise bad("file: larger than 1 MB; a jurisdiction document is far smaller")
    try:
        raw = json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise bad(f"file: not JSON ({str(err).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise bad("file: expected one JSON object (a jurisdiction document)")
    return raw


def export_text(city: Jurisdiction) -> str:
    """The city's document as a file: sorted keys, two-space indent, a final newline, so
    two exports of the same version are byte for byte equal (a clean diff in git)."""
    return json.dumps(dict(city.document), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class JurisdictionActions:
    def __init__(
        self, sessions: sessionmaker[Session], cities: Cities, shot_clocks: ShotClockActions
    ) -> None:
        self.sessions = sessions
        self.cities = cities
        self.shot_clocks = shot_clocks

    def history(self, who: Principal, key: str) -> list[JurisdictionVersion]:
        """Every saved version of a city, newest first (the audit of its changes)."""
        require(who, PERMISSION)
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(JurisdictionVersion)
                    .where(JurisdictionVersion.jurisdiction == key)
                    .order_by(JurisdictionVersion.version.desc())
                )
            )

    def export(self, who: Principal, key: str) -> str:
        require(who, "read")
        return export_text(self.cities.get(key))

    async def save(
        self,
        who: Principal,
        raw: Any,
        *,
        effective_from: str = "",
        reason: str = "",
        rebase: bool = False,
        new: bool = False,
    ) -> Saved:
        """Store a new version of the city the document names (``new``: refuse a key
        that already exists). Refused, naming the field, before anything is stored."""
        require(who, PERMISSION)
        city = check_document(raw)
        exists = city.key in JURISDICTIONS or city.key in self.cities.versions()
        if new and exists:
            raise bad(f"key: there is already a jurisdiction {city.key!r}; edit it instead")
        before = self.cities.get(city.key) if exists else None
        today = pendulum.now(city.time_zone).date()
        effective = _effective_from(effective_from, today)
        reason = str(reason or "").strip()
        if rebase and not reason:
            raise bad("reason: an audited rebase says why running clocks' dates may move")
        if before is not None and not rebase and self._running(city.key):
            _refuse_past_closures(before, city, today)
        changed = _changed(before, city)
        home = self.cities.get().key  # the requester's city until now
        if before is not None and not changed:
            raise ActionFailed(f"{city.key}: nothing changed; no version was saved", 409)
        with self.sessions.begin() as session:
            last = session.scalar(
                select(func.max(JurisdictionVersion.version)).where(
                    JurisdictionVersion.jurisdiction == city.key
                )
            )
            version = (last or (1 if city.key in JURISDICTIONS else 0)) + 1
            session.add(
                JurisdictionVersion(
                    jurisdiction=city.key,
                    version=version,
                    effective_from=effective.isoformat(),
                    document=dict(city.document),
                    changed=changed,
                    actor=who.email,
                    reason=reason,
                    rebase=rebase,
                    created_at=datetime.now(UTC),
                )
            )
            if before is None:
                _administer(session, who, city.key, home)
        self.cities.versions(fresh=True)  # this request goes on with the new version
        saved = Saved(city.key, version, effective.isoformat(), changed)
        if rebase and effective <= today:
            saved = await self._rebase_running(who, saved, reason)
        return saved

    def _running(self, key: str) -> bool:
        """Whether any clock of the city still runs (a past closure would move it)."""
        from actions.shot_clocks import open_permit_clocks
        from rules.shot_clock.outcomes import TERMINAL_STATUSES

        with self.sessions() as session:
            shot = session.scalar(
                select(Application.application_id)
                .where(
                    Application.jurisdiction == key, Application.status.not_in(TERMINAL_STATUSES)
                )
                .limit(1)
            )
            return shot is not None or bool(open_permit_clocks(session, key))

    async def _rebase_running(self, who: Principal, saved: Saved, reason: str) -> Saved:
        """The audited rebase: every running shot clock of the city takes the new version
        (its own `rebase` update, with a ledger line naming the version and the reason)."""
        from rules.shot_clock.outcomes import TERMINAL_STATUSES

        with self.sessions() as session:
            ids = sorted(
                session.scalars(
                    select(Application.application_id).where(
                        Application.jurisdiction == saved.key,
                        Application.status.not_in(TERMINAL_STATUSES),
                    )
                )
            )
        done: list[str] = []
        refused: list[str] = []
        note = f"jurisdiction {saved.key} version {saved.version}: {reason}"
        for app_id in ids:
            try:
                await self.shot_clocks.record(
                    who, RebaseShotClock(application_id=app_id, reason=note)
                )
                done.append(app_id)
            except ActionFailed as err:
                refused.append(f"{app_id}: {err.message}")
        return Saved(saved.key, saved.version, saved.effective_from, saved.changed, done, refused)


def _administer(session: Session, who: Principal, key: str, default_key: str) -> None:
    """Whoever sets up a city administers it (and so sees it): a role there, beside the
    roles they hold in other cities. A user with no roles yet keeps their default city."""
    user = session.scalar(select(User).where(User.email == who.email))
    if user is None:
        return
    held = session.scalars(
        select(UserJurisdiction.jurisdiction).where(UserJurisdiction.user_id == user.id)
    ).all()
    if not held and default_key:
        session.add(
            UserJurisdiction(
                user_id=user.id,
                jurisdiction=default_key,
                role=user.role,
                department=user.department,
            )
        )
    if key not in held:
        session.add(
            UserJurisdiction(user_id=user.id, jurisdiction=key, role="admin", department="")
        )


def _effective_from(value: str, today: date) -> date:
    if not str(value or "").strip():
        return today
    try:
        day = date.fromisoformat(str(value).strip())
    except ValueError:
        raise bad(f"effective_from: {value!r} is not a date (YYYY-MM-DD)") from None
    if day < today:
        raise bad(
            f"effective_from: {day} is in the past (today is {today}); a change takes "
            "effect today or later"
        )
    return day


def _refuse_past_closures(before: Jurisdiction, after: Jurisdiction, today: date) -> None:
    """A closure added on a day already gone would move running clocks' dates behind
    their backs: refused unless the edit is an audited rebase."""
    added = sorted(set(after.local_closures) - set(before.local_closures))
    for day in added:
        if day < today.isoformat():
            where = after.local_closures.index(day)
            raise bad(
                f"local_closures[{where}]: {day} is in the past; running clocks keep their "
                "dates unless this is an audited rebase (tick rebase and give the reason)"
            )


def _changed(before: Jurisdiction | None, after: Jurisdiction) -> list[str]:
    """The document's top-level fields this version changes (all of them for a new city)."""
    old = dict(before.document) if before is not None else {}
    new = dict(after.document)
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
