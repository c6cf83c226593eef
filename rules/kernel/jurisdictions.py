"""Jurisdictions as data: one JSON file per city (rules/data/jurisdictions, plus a city's
own folder), loaded once at import. A jurisdiction names its state calendar, time zone,
local closures, adopted holidays, contacts, departments and the rule packs its clocks use."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType

from models.addresses import BadAddress, normalise_address, one_address
from rules.kernel.calendars import CalendarLayers, jurisdiction_layers
from rules.kernel.holidays import HolidayRegime, parse_layer

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# The placeholder jurisdiction of federal law alone, and its rule pack.
FEDERAL_PACK = "federal"
# Rule packs shipped as data: a jurisdiction must name one of them.
_PACK_KEYS = frozenset(path.stem for path in (DATA_DIR / "packs").glob("*.json"))


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
    # The city's own sending address for its letters ("City of Cotati Planning
    # <planning@...>"); "" leaves the deployment's CLEARANCE_MAIL_FROM.
    mail_from: str = ""
    reminder_ladder: ReminderLadder = field(default_factory=ReminderLadder)
    # The deployment's jurisdiction when no setting names one (one file may say so).
    default: bool = False

    def calendar_layers(self, closures: tuple[str, ...] = ()) -> CalendarLayers:
        """Every calendar layer of the city as the data files say now, with its
        configured closures plus ``closures`` (ISO dates, e.g. from the database)."""
        days = {date.fromisoformat(d) for d in (*self.local_closures, *closures)}
        return jurisdiction_layers(self.state, self.adopted_holidays, days)


def _address(path: Path, where: str, value: object) -> str:
    """A contact's address, normalised; a bad one refuses the file with a one-line error
    naming it and the field."""
    try:
        return normalise_address(value, where)
    except BadAddress as err:
        raise ValueError(f"{path}: {err}") from None


def _sender(path: Path, value: object) -> str:
    """The city's from-address, display name allowed; a bad one refuses the file."""
    if value in (None, ""):
        return ""
    try:
        one_address(str(value), "contacts.mail_from")
    except BadAddress as err:
        raise ValueError(f"{path}: {err}") from None
    return str(value)


def _days(path: Path, field_name: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 0 < d <= 3650 for d in value
    ):
        raise ValueError(
            f"{path}: reminder_ladder.{field_name} must be a list of whole days from 1 to "
            f"3650, got {value!r}"
        )
    return tuple(sorted(set(value), reverse=True))


def _ladder(path: Path, raw: object) -> ReminderLadder:
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: reminder_ladder must be an object")
    known = {
        "weekly_digest",
        "target_digest_days_before",
        "condition_due_days_before",
        "permit_expiry_days_before",
    }
    if unknown := sorted(set(raw) - known):
        raise ValueError(f"{path}: reminder_ladder has an unknown field {unknown[0]!r}")
    weekly = raw.get("weekly_digest", "monday")
    if weekly is not None and weekly not in WEEKDAYS:
        raise ValueError(
            f"{path}: reminder_ladder.weekly_digest must be a weekday name or null, got {weekly!r}"
        )
    optional = {
        name: (_days(path, name, raw[name]) if raw.get(name) is not None else None)
        for name in ("condition_due_days_before", "permit_expiry_days_before")
    }
    return ReminderLadder(
        weekly_digest_weekday=None if weekly is None else WEEKDAYS.index(weekly),
        target_digest_days_before=_days(
            path, "target_digest_days_before", raw.get("target_digest_days_before", [14, 7])
        ),
        **optional,
    )


def _load_jurisdiction(path: Path) -> Jurisdiction:
    raw = json.loads(path.read_text(encoding="utf-8"))
    contacts = raw["contacts"]
    return Jurisdiction(
        key=raw["key"],
        name=raw["name"],
        state=raw.get("state"),
        time_zone=raw["time_zone"],
        rule_pack=raw["rule_pack"],
        local_closures=tuple(raw.get("local_closures", [])),
        supervisor_email=_address(path, "contacts.supervisor_email", contacts["supervisor_email"]),
        attorney_email=_address(path, "contacts.attorney_email", contacts["attorney_email"]),
        departments=MappingProxyType(
            {
                key: (
                    _address(path, f"departments.{key}.reviewer_email", value["reviewer_email"]),
                    _address(path, f"departments.{key}.head_email", value["head_email"]),
                )
                for key, value in raw.get("departments", {}).items()
            }
        ),
        review_sla_business_days=int(raw.get("review_sla_business_days", 10)),
        escalation_after_business_days=int(raw.get("escalation_after_business_days", 5)),
        adopted_holidays=(
            parse_layer(raw["adopted_holidays"], f"{path.name}: adopted_holidays")
            if raw.get("adopted_holidays")
            else None
        ),
        reminder_offsets=tuple(
            sorted({int(d) for d in raw.get("reminder_offsets", (30, 14, 7, 3, 1))}, reverse=True)
        ),
        planner_email=_address(path, "contacts.planner_email", contacts.get("planner_email")),
        mail_from=_sender(path, contacts.get("mail_from")),
        reminder_ladder=_ladder(path, raw.get("reminder_ladder") or {}),
        default=bool(raw.get("default", False)),
    )


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
