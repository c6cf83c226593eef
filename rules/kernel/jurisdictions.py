"""Jurisdictions as data: one JSON file per city (rules/data/jurisdictions, plus a city's
own folder), loaded once at import. A jurisdiction names its state calendar, time zone,
local closures, adopted holidays, contacts, departments and the rule packs its clocks use."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from models.addresses import BadAddress, normalise_address, one_address
from rules.kernel.calendars import CalendarLayers, jurisdiction_layers
from rules.kernel.holidays import HolidayDataError, HolidayRegime, parse_layer

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# The placeholder jurisdiction of federal law alone, and its rule pack.
FEDERAL_PACK = "federal"
# Rule packs shipped as data: a jurisdiction must name one of them.
_PACK_KEYS = frozenset(path.stem for path in (DATA_DIR / "packs").glob("*.json"))
RULE_PACK_KEYS = _PACK_KEYS


class JurisdictionError(ValueError):
    """A jurisdiction document that does not hold up; the one-line message names the field."""


@dataclass(frozen=True)
class Department:
    """A reviewing department: who reviews, who is escalated to, the names a resolution
    may use for it, and its review service level (business days)."""

    key: str
    reviewer_email: str
    head_email: str
    name: str = ""
    aliases: tuple[str, ...] = ()
    review_sla_business_days: int | None = None


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class ReminderLadder:
    """Which reminders reach an applicant, and when: the city's choice, as data
    (`reminder_ladder` in the jurisdiction file). Every rung carries the portal link."""

    # The weekly digest of what is owed: its weekday (0 = Monday), None for none.
    weekly_digest_weekday: int | None = 0
    # Digests this many days before each milestone's target date.
    target_digest_days_before: tuple[int, ...] = (14, 7)
    # Reminders before a condition's own due date; None: each window rule's own.
    condition_due_days_before: tuple[int, ...] | None = None
    # Reminders before a permit's expiry; None: the jurisdiction's reminder_offsets.
    permit_expiry_days_before: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Jurisdiction:
    key: str
    name: str
    state: str | None
    time_zone: str
    rule_pack: str
    local_closures: tuple[str, ...]
    supervisor_email: str
    attorney_email: str
    # department key -> (reviewer e-mail, department head e-mail), for conditions of approval
    departments: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    review_sla_business_days: int = 10
    escalation_after_business_days: int = 5
    # The city's adopted holidays (resolution, ordinance, MOU) with their source.
    adopted_holidays: HolidayRegime | None = None
    # Days before the conservative date a planner is reminded, and who plans by default.
    reminder_offsets: tuple[int, ...] = (30, 14, 7, 3, 1)
    planner_email: str = ""
    # The city's own sending address for its letters ("City of Sebastopol Planning
    # <planning@...>"); "" leaves the deployment's CLEARANCE_MAIL_FROM.
    mail_from: str = ""
    reminder_ladder: ReminderLadder = field(default_factory=ReminderLadder)
    # The deployment's jurisdiction when no setting names one (one file may say so).
    default: bool = False
    # Where replies to letters go, and the letterhead lines.
    reply_to_email: str = ""
    letterhead: tuple[str, ...] = ()
    # The city's local permit pack (None: the state's law only) and the local facts its
    # rules take (rule id -> fact -> value: ordinance months, maximum extensions, terms).
    permit_pack: str | None = None
    fact_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    department_details: tuple[Department, ...] = ()
    # The document the jurisdiction was read from (exported as is, reviewable in git).
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def calendar_layers(self, closures: tuple[str, ...] = ()) -> CalendarLayers:
        """Every calendar layer of the city as the data files say now, with its
        configured closures plus ``closures`` (ISO dates, e.g. from the database)."""
        days = {date.fromisoformat(d) for d in (*self.local_closures, *closures)}
        return jurisdiction_layers(self.state, self.adopted_holidays, days)

    def department_for(self, name: str) -> str | None:
        """The department key a name or alias stands for (case-insensitive), or None."""
        wanted = name.strip().casefold()
        for dept in self.department_details:
            if wanted == dept.key.casefold() or wanted in (a.casefold() for a in dept.aliases):
                return dept.key
        return None


_TOP_FIELDS = frozenset(
    {
        "key", "name", "state", "time_zone", "rule_pack", "permit_pack", "local_closures",
        "adopted_holidays", "contacts", "departments", "review_sla_business_days",
        "escalation_after_business_days", "reminder_offsets", "default", "letterhead",
        "fact_defaults", "reminder_ladder",
    }
)  # fmt: skip
_CONTACTS = ("supervisor_email", "attorney_email", "planner_email", "reply_to_email")
_DEPARTMENT_FIELDS = frozenset(
    {"reviewer_email", "head_email", "name", "aliases", "review_sla_business_days"}
)
_KEY = re.compile(r"^[a-z][a-z0-9_-]{1,39}$")


def _fail(where: str, message: str) -> JurisdictionError:
    return JurisdictionError(f"{where}{message}")


def _text(raw: Mapping[str, Any], name: str, where: str, *, required: bool = True) -> str:
    value = raw.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _fail(where, f"{name}: give a text")
    return value.strip()


def _whole(value: Any, name: str, where: str, low: int = 0, high: int = 3650) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(where, f"{name}: give a whole number from {low} to {high}")
    return value


def _address(where: str, name: str, value: object, required: bool = False) -> str:
    try:
        return normalise_address(value, name, required=required)
    except BadAddress as err:
        raise _fail(where, str(err)) from None


def check_time_zone(value: Any, name: str = "time_zone") -> str:
    """An IANA time zone name that exists (America/Los_Angeles), or JurisdictionError."""
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise JurisdictionError(f"{name}: give an IANA time zone such as America/Los_Angeles")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise JurisdictionError(
            f"{name}: {value!r} is not a time zone (use an IANA name such as America/Chicago)"
        ) from None
    return value


def _departments(raw: Any, where: str) -> tuple[Department, ...]:
    if not isinstance(raw, dict):
        raise _fail(where, "departments: expected an object of departments by key")
    seen: dict[str, str] = {}  # a name or alias, folded -> the field that claimed it
    out: list[Department] = []
    for key, value in raw.items():
        at = f"departments.{key}"
        if not _KEY.match(key):
            raise _fail(where, f"{at}: a key is 2-40 lower-case letters, digits, '-' or '_'")
        if not isinstance(value, dict):
            raise _fail(where, f"{at}: expected an object")
        unknown = set(value) - _DEPARTMENT_FIELDS
        if unknown:
            raise _fail(where, f"{at}.{sorted(unknown)[0]}: unknown field")
        aliases = value.get("aliases", [])
        if not isinstance(aliases, list) or not all(
            isinstance(a, str) and a.strip() for a in aliases
        ):
            raise _fail(where, f"{at}.aliases: expected a list of names")
        for name, field_name in [(key, at), *((a, f"{at}.aliases") for a in aliases)]:
            folded = name.strip().casefold()
            if folded in seen and seen[folded] != at:
                raise _fail(
                    where,
                    f"{field_name}: {name.strip()!r} is already used by {seen[folded]} "
                    "(two departments cannot share a name or alias)",
                )
            seen[folded] = at
        sla = value.get("review_sla_business_days")
        out.append(
            Department(
                key=key,
                reviewer_email=_address(
                    where, f"{at}.reviewer_email", value.get("reviewer_email"), True
                ),
                head_email=_address(where, f"{at}.head_email", value.get("head_email"), True),
                name=str(value.get("name") or ""),
                aliases=tuple(a.strip() for a in aliases),
                review_sla_business_days=(
                    None
                    if sla is None
                    else _whole(sla, f"{at}.review_sla_business_days", where, 1, 365)
                ),
            )
        )
    return tuple(out)


def _holidays(raw: Any, where: str) -> HolidayRegime:
    if not isinstance(raw, dict):
        raise _fail(where, "adopted_holidays: expected a layer object")
    if not str(raw.get("source") or "").strip():
        raise _fail(
            where,
            "adopted_holidays.source: name the resolution or MOU that adopted these holidays",
        )
    for i, entry in enumerate(raw.get("holidays") or []):
        if isinstance(entry, dict) and not str(entry.get("citation") or "").strip():
            name = entry.get("name") or f"holiday {i + 1}"
            raise _fail(
                where,
                f"adopted_holidays.holidays[{i}].citation: {name!r} has no source "
                "(cite the resolution or MOU that adopted it)",
            )
    try:
        return parse_layer(raw, "adopted_holidays")
    except HolidayDataError as err:
        raise _fail(where, str(err).replace("adopted_holidays: ", "adopted_holidays.")) from None


def _closures(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise _fail(where, "local_closures: expected a list of ISO dates")
    out = []
    for i, value in enumerate(raw):
        try:
            out.append(date.fromisoformat(value).isoformat())
        except (TypeError, ValueError):
            raise _fail(
                where, f"local_closures[{i}]: {value!r} is not a date (YYYY-MM-DD)"
            ) from None
    return tuple(sorted(set(out)))


def _fact_defaults(raw: Any, where: str) -> Mapping[str, Mapping[str, Any]]:
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise _fail(where, "fact_defaults: expected rule id -> {fact: value}")
    return MappingProxyType({k: MappingProxyType(dict(v)) for k, v in raw.items()})


def _sender(where: str, value: object) -> str:
    """The city's from-address, display name allowed ("City of Sebastopol Planning <...>")."""
    if value in (None, ""):
        return ""
    try:
        one_address(str(value), "contacts.mail_from")
    except BadAddress as err:
        raise _fail(where, str(err)) from None
    return str(value)


def _days(where: str, field_name: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 0 < d <= 3650 for d in value
    ):
        raise _fail(
            where,
            f"reminder_ladder.{field_name}: must be a list of whole days from 1 to 3650, "
            f"got {value!r}",
        )
    return tuple(sorted(set(value), reverse=True))


def _ladder(where: str, raw: object) -> ReminderLadder:
    if not isinstance(raw, dict):
        raise _fail(where, "reminder_ladder: must be an object")
    known = {
        "weekly_digest",
        "target_digest_days_before",
        "condition_due_days_before",
        "permit_expiry_days_before",
    }
    if unknown := sorted(set(raw) - known):
        raise _fail(where, f"reminder_ladder.{unknown[0]}: unknown field")
    weekly = raw.get("weekly_digest", "monday")
    if weekly is not None and weekly not in WEEKDAYS:
        raise _fail(where, f"reminder_ladder.weekly_digest: a weekday name or null, not {weekly!r}")
    optional = {
        name: (_days(where, name, raw[name]) if raw.get(name) is not None else None)
        for name in ("condition_due_days_before", "permit_expiry_days_before")
    }
    return ReminderLadder(
        weekly_digest_weekday=None if weekly is None else WEEKDAYS.index(weekly),
        target_digest_days_before=_days(
            where, "target_digest_days_before", raw.get("target_digest_days_before", [14, 7])
        ),
        **optional,
    )


def parse_jurisdiction(raw: Any, where: str = "") -> Jurisdiction:
    """A jurisdiction from its document (a file, an import, an administrator's edit);
    JurisdictionError names the field (prefixed by ``where``, e.g. the file)."""
    if not isinstance(raw, dict):
        raise _fail(where, "jurisdiction: expected a JSON object")
    unknown = set(raw) - _TOP_FIELDS
    if unknown:
        raise _fail(where, f"{sorted(unknown)[0]}: unknown field")
    key = _text(raw, "key", where)
    if not _KEY.match(key):
        raise _fail(where, "key: 2-40 lower-case letters, digits, '-' or '_', a letter first")
    try:
        time_zone = check_time_zone(raw.get("time_zone"))
    except JurisdictionError as err:
        raise _fail(where, str(err)) from None
    rule_pack = _text(raw, "rule_pack", where)
    if rule_pack not in _PACK_KEYS:
        raise _fail(
            where, f"rule_pack: {rule_pack!r} is not a rule pack ({', '.join(sorted(_PACK_KEYS))})"
        )
    state = raw.get("state")
    if state is not None and (not isinstance(state, str) or not re.fullmatch(r"[A-Z]{2}", state)):
        raise _fail(where, f"state: {state!r} is not a two-letter state code (or null)")
    contacts = raw.get("contacts", {})
    if not isinstance(contacts, dict):
        raise _fail(where, "contacts: expected an object")
    unknown = set(contacts) - {*_CONTACTS, "mail_from"}
    if unknown:
        raise _fail(where, f"contacts.{sorted(unknown)[0]}: unknown field")
    emails = {
        name: _address(where, f"contacts.{name}", contacts.get(name), name in _CONTACTS[:2])
        for name in _CONTACTS
    }
    letterhead = raw.get("letterhead", [])
    if not isinstance(letterhead, list) or not all(isinstance(x, str) for x in letterhead):
        raise _fail(where, "letterhead: expected a list of lines")
    details = _departments(raw.get("departments", {}), where)
    offsets = raw.get("reminder_offsets", [30, 14, 7, 3, 1])
    if not isinstance(offsets, list):
        raise _fail(where, "reminder_offsets: expected a list of days")
    permit_pack = raw.get("permit_pack")
    if permit_pack is not None and not isinstance(permit_pack, str):
        raise _fail(where, "permit_pack: give a permit pack's key (or null)")
    return Jurisdiction(
        key=key,
        name=_text(raw, "name", where),
        state=state,
        time_zone=time_zone,
        rule_pack=rule_pack,
        local_closures=_closures(raw.get("local_closures", []), where),
        supervisor_email=emails["supervisor_email"],
        attorney_email=emails["attorney_email"],
        departments=MappingProxyType({d.key: (d.reviewer_email, d.head_email) for d in details}),
        review_sla_business_days=_whole(
            raw.get("review_sla_business_days", 10), "review_sla_business_days", where, 1, 365
        ),
        escalation_after_business_days=_whole(
            raw.get("escalation_after_business_days", 5),
            "escalation_after_business_days",
            where,
            1,
            365,
        ),
        adopted_holidays=(
            _holidays(raw["adopted_holidays"], where) if raw.get("adopted_holidays") else None
        ),
        reminder_offsets=tuple(
            sorted(
                {
                    _whole(d, f"reminder_offsets[{i}]", where, 1, 3650)
                    for i, d in enumerate(offsets)
                },
                reverse=True,
            )
        ),
        planner_email=emails["planner_email"],
        mail_from=_sender(where, contacts.get("mail_from")),
        reminder_ladder=_ladder(where, raw.get("reminder_ladder") or {}),
        default=bool(raw.get("default", False)),
        reply_to_email=emails["reply_to_email"],
        letterhead=tuple(line.strip() for line in letterhead if line.strip()),
        permit_pack=permit_pack,
        fact_defaults=_fact_defaults(raw.get("fact_defaults", {}), where),
        department_details=details,
        document=MappingProxyType(json.loads(json.dumps(raw))),
    )


def _load_jurisdiction(path: Path) -> Jurisdiction:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return parse_jurisdiction(raw, f"{path}: ")


# Loaded eagerly so workflow code (which imports this module through the sandbox's
# pass-through) never touches the file system.
_JURISDICTIONS: dict[str, Jurisdiction] = {
    j.key: j for j in map(_load_jurisdiction, sorted((DATA_DIR / "jurisdictions").glob("*.json")))
}
JURISDICTIONS: Mapping[str, Jurisdiction] = MappingProxyType(_JURISDICTIONS)


def add_jurisdictions(directory: str | Path) -> list[str]:
    """Load a city's own jurisdiction files (CLEARANCE_JURISDICTIONS_DIR) beside the
    shipped ones; called by the app and the CLI at start, never by workflow code (a clock
    freezes its calendar into its input when opened). Returns the keys loaded."""
    folder = Path(directory)
    if not str(directory) or not folder.is_dir():
        return []
    loaded = [_load_jurisdiction(path) for path in sorted(folder.glob("*.json"))]
    for city in loaded:
        if city.rule_pack not in _PACK_KEYS:
            raise ValueError(f"{city.key}: unknown rule pack {city.rule_pack!r}")
        _JURISDICTIONS[city.key] = city
    return [c.key for c in loaded]


def default_jurisdiction(setting: str = "") -> Jurisdiction:
    """The jurisdiction named by the setting, else the one whose file says `"default":
    true`, else the only one that is not the federal placeholder."""
    if setting:
        return jurisdiction(setting)
    flagged = [j for j in JURISDICTIONS.values() if j.default]
    if len(flagged) == 1:
        return flagged[0]
    local = [j for j in JURISDICTIONS.values() if j.rule_pack != FEDERAL_PACK]
    if len(local) == 1:
        return local[0]
    raise ValueError(
        "no default jurisdiction: set CLEARANCE_DEFAULT_JURISDICTION to one of "
        + ", ".join(sorted(JURISDICTIONS))
    )


def jurisdiction(key: str) -> Jurisdiction:
    try:
        return JURISDICTIONS[key]
    except KeyError:
        known = ", ".join(sorted(JURISDICTIONS))
        raise ValueError(f"unknown jurisdiction '{key}' (known: {known})") from None
