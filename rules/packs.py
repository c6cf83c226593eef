"""Rule packs and jurisdictions as data: one JSON file per regime, loaded once at import.

A rule pack names each category's period, the rule that sets it, how the first and later
incompleteness notices act on the clock, and whether the date rolls forward. A
jurisdiction names its state calendar, time zone, local closures and rule pack.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.calendars import CalendarLayers, HolidayRegime, jurisdiction_layers, parse_layer

DATA_DIR = Path(__file__).resolve().parent / "data"
FEDERAL_PACK = "federal"


@dataclass(frozen=True)
class NoticeRule:
    effect: str  # "reset" or "toll"
    within_days: int
    rule: str


@dataclass(frozen=True)
class CategoryRule:
    key: str
    label: str
    days: int
    rule: str
    small_wireless: bool
    eligible_facilities_request: bool
    roll_forward: bool
    first_notice: NoticeRule
    later_notice_within_days: int
    later_notice_rule: str
    agreement_rule: str


@dataclass(frozen=True)
class BatchRule:
    categories: frozenset[str]
    rule: str


@dataclass(frozen=True)
class RulePack:
    key: str
    name: str
    effective_from: date
    citation: str
    counting_rule: str
    categories: Mapping[str, CategoryRule]
    batch: BatchRule
    late_first_notice_rule: str
    never_tolls_rule: str
    # The pack's data as read, and a content hash of it: what a clock freezes (8.9).
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    version: str = ""


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
    # The deployment's jurisdiction when no setting names one (one file may say so).
    default: bool = False

    def calendar_layers(self, closures: tuple[str, ...] = ()) -> CalendarLayers:
        """Every calendar layer of the city as the data files say now, with its
        configured closures plus ``closures`` (ISO dates, e.g. from the database)."""
        days = {date.fromisoformat(d) for d in (*self.local_closures, *closures)}
        return jurisdiction_layers(self.state, self.adopted_holidays, days)


def _category(key: str, raw: dict[str, Any]) -> CategoryRule:
    first = raw["first_notice"]
    return CategoryRule(
        key=key,
        label=raw["label"],
        days=int(raw["days"]),
        rule=raw["rule"],
        small_wireless=bool(raw.get("small_wireless", False)),
        eligible_facilities_request=bool(raw.get("eligible_facilities_request", False)),
        roll_forward=bool(raw["roll_forward"]),
        first_notice=NoticeRule(first["effect"], int(first["within_days"]), first["rule"]),
        later_notice_within_days=int(raw["later_notice"]["within_days"]),
        later_notice_rule=raw["later_notice"]["rule"],
        agreement_rule=raw["agreement_rule"],
    )


def pack_version(raw: Mapping[str, Any]) -> str:
    text = json.dumps(raw, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_FROZEN_PACKS: dict[str, RulePack] = {}


def pack_from_data(raw: Mapping[str, Any]) -> RulePack:
    """A rule pack from its data (a file, or the copy a running clock froze); ValueError
    names what is wrong. Parsed once per version."""
    version = pack_version(raw)
    cached = _FROZEN_PACKS.get(version)
    if cached is not None:
        return cached
    try:
        pack = _pack(dict(raw), version)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"rule pack data is not valid: {err!r}") from None
    if len(_FROZEN_PACKS) > 256:
        _FROZEN_PACKS.clear()
    _FROZEN_PACKS[version] = pack
    return pack


def _load_pack(path: Path) -> RulePack:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return _pack(raw, pack_version(raw))


def _pack(raw: dict[str, Any], version: str) -> RulePack:
    return RulePack(
        key=raw["key"],
        name=raw["name"],
        effective_from=date.fromisoformat(raw["effective_from"]),
        citation=raw["citation"],
        counting_rule=raw["counting_rule"],
        categories=MappingProxyType({k: _category(k, v) for k, v in raw["categories"].items()}),
        batch=BatchRule(frozenset(raw["batch"]["categories"]), raw["batch"]["rule"]),
        late_first_notice_rule=raw["late_first_notice_rule"],
        never_tolls_rule=raw["never_tolls_rule"],
        data=MappingProxyType(raw),
        version=version,
    )


def _load_jurisdiction(path: Path) -> Jurisdiction:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Jurisdiction(
        key=raw["key"],
        name=raw["name"],
        state=raw.get("state"),
        time_zone=raw["time_zone"],
        rule_pack=raw["rule_pack"],
        local_closures=tuple(raw.get("local_closures", [])),
        supervisor_email=raw["contacts"]["supervisor_email"],
        attorney_email=raw["contacts"]["attorney_email"],
        departments=MappingProxyType(
            {
                key: (value["reviewer_email"], value["head_email"])
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
        planner_email=raw["contacts"].get("planner_email", ""),
        default=bool(raw.get("default", False)),
    )


# Loaded eagerly so workflow code (which imports this module through the sandbox's
# pass-through) never touches the file system.
RULE_PACKS: Mapping[str, RulePack] = MappingProxyType(
    {p.key: p for p in map(_load_pack, sorted((DATA_DIR / "packs").glob("*.json")))}
)
_JURISDICTIONS: dict[str, Jurisdiction] = {
    j.key: j for j in map(_load_jurisdiction, sorted((DATA_DIR / "jurisdictions").glob("*.json")))
}
JURISDICTIONS: Mapping[str, Jurisdiction] = MappingProxyType(_JURISDICTIONS)
CATEGORY_KEYS: tuple[str, ...] = tuple(RULE_PACKS[FEDERAL_PACK].categories)


def rule_pack(key: str) -> RulePack:
    try:
        return RULE_PACKS[key]
    except KeyError:
        known = ", ".join(sorted(RULE_PACKS))
        raise ValueError(f"unknown rule pack '{key}' (known: {known})") from None


def add_jurisdictions(directory: str | Path) -> list[str]:
    """Load a city's own jurisdiction files (CLEARANCE_JURISDICTIONS_DIR) beside the
    shipped ones; called by the app and the CLI at start, never by workflow code (a clock
    freezes its calendar into its input when opened). Returns the keys loaded."""
    folder = Path(directory)
    if not str(directory) or not folder.is_dir():
        return []
    loaded = [_load_jurisdiction(path) for path in sorted(folder.glob("*.json"))]
    for city in loaded:
        if city.rule_pack not in RULE_PACKS:
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
