"""What a jurisdiction gives a permit clock: its local pack and its calendar layers.

The jurisdiction file (rules/data/jurisdictions/<key>.json) names its `permit_pack`;
its calendar layers (state, judicial, adopted holidays, closures) come from
rules/kernel/jurisdictions.py's `Jurisdiction.calendar_layers()`. Read once at import, so workflow
code never touches files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.kernel.calendars import CalendarLayers, adopted_layer_from_dates, jurisdiction_layers
from rules.kernel.jurisdictions import JURISDICTIONS, Jurisdiction
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.packs import PERMIT_PACKS, PERMIT_RULES

JURISDICTION_DIR = Path(__file__).resolve().parent.parent / "data" / "jurisdictions"


@dataclass(frozen=True)
class PermitJurisdiction:
    key: str
    state: str | None
    permit_pack: str | None
    # The city's own values for its rules' facts (rule id -> fact -> value).
    fact_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """What a clock freezes (PermitCalendar.place), so a worker never needs the city."""
        return {
            "state": self.state,
            "permit_pack": self.permit_pack,
            "fact_defaults": {k: dict(v) for k, v in self.fact_defaults.items()},
        }


def place_of(city: Jurisdiction) -> PermitJurisdiction:
    """A jurisdiction's permit side, checked: its permit pack is a local pack of its
    state and its local facts name rules and facts that exist (PermitPlaceError names
    the field)."""
    place = PermitJurisdiction(city.key, city.state, city.permit_pack, city.fact_defaults)
    check_place(place)
    return place


def place_from_dict(key: str, raw: Any) -> PermitJurisdiction:
    if not isinstance(raw, dict):
        raise ValueError("jurisdiction_facts: expected an object")
    place = PermitJurisdiction(
        key,
        raw.get("state"),
        raw.get("permit_pack"),
        MappingProxyType(
            {k: MappingProxyType(dict(v)) for k, v in raw.get("fact_defaults", {}).items()}
        ),
    )
    check_place(place)
    return place


def check_place(place: PermitJurisdiction) -> None:
    pack = place.permit_pack
    if pack is not None:
        if pack not in PERMIT_PACKS or PERMIT_PACKS[pack].kind != "local":
            local = sorted(k for k, p in PERMIT_PACKS.items() if p.kind == "local")
            raise ValueError(
                f"permit_pack: {pack!r} is not a local permit pack (known: {', '.join(local)}; "
                "or none)"
            )
        if PERMIT_PACKS[pack].state not in (None, place.state):
            raise ValueError(f"permit_pack: {pack!r} is {PERMIT_PACKS[pack].state} law")
    for rule_id, facts in place.fact_defaults.items():
        where = f"fact_defaults.{rule_id}"
        rule = PERMIT_RULES.get(rule_id)
        if rule is None:
            raise ValueError(f"{where}: there is no rule {rule_id!r}")
        if PERMIT_PACKS[rule.pack].kind == "local" and rule.pack != pack:
            raise ValueError(f"{where}: a rule of the {rule.pack!r} pack, not this city's")
        for name, value in facts.items():
            spec = rule.facts.get(name)
            if spec is None:
                known = ", ".join(sorted(rule.facts)) or "none"
                raise ValueError(f"{where}.{name}: {rule_id} has no fact {name!r} (known: {known})")
            if spec.kind == "bool":
                if not isinstance(value, bool):
                    raise ValueError(f"{where}.{name}: must be true or false")
                continue
            low = spec.minimum if spec.minimum is not None else 0
            high = spec.maximum if spec.maximum is not None else 10**9
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(
                    f"{where}.{name}: give a whole number from {low} to {high} ({spec.label})"
                )


def _load(path: Path) -> PermitJurisdiction:
    raw = json.loads(path.read_text(encoding="utf-8"))
    pack = raw.get("permit_pack")
    if pack is not None and pack not in PERMIT_PACKS:
        raise ValueError(f"{path.name}: permit_pack {pack!r} is not a permit pack")
    return PermitJurisdiction(key=raw["key"], state=raw.get("state"), permit_pack=pack)


PERMIT_JURISDICTIONS: Mapping[str, PermitJurisdiction] = MappingProxyType(
    {j.key: j for j in map(_load, sorted(JURISDICTION_DIR.glob("*.json")))}
)


def permit_jurisdiction(key: Any) -> PermitJurisdiction:
    if not isinstance(key, str) or key not in PERMIT_JURISDICTIONS:
        known = ", ".join(sorted(PERMIT_JURISDICTIONS))
        raise ValueError(f"unknown jurisdiction {key!r} (known: {known})")
    return PERMIT_JURISDICTIONS[key]


@lru_cache(maxsize=256)
def base_layers(jurisdiction: str | None, state: str | None) -> CalendarLayers:
    """The jurisdiction's layers as the data files say now (read once at import, so
    cached per process); without a jurisdiction, the state's layers (for California,
    the CCP 135 judicial holidays count)."""
    if jurisdiction is not None:
        return JURISDICTIONS[jurisdiction].calendar_layers()
    return jurisdiction_layers(state)


def permit_calendar(
    base: CalendarLayers, adopted: Mapping[date, str], closures: Mapping[date, str]
) -> PermitCalendar:
    """`base` plus a request's own adopted holidays and closures; shared per distinct
    input so the per-year day tables are built once, not once per computation."""
    _BASES.setdefault(base.fingerprint, base)
    return _cached(
        base.fingerprint, tuple(sorted(adopted.items())), tuple(sorted(closures.items()))
    )


_BASES: dict[str, CalendarLayers] = {}


@lru_cache(maxsize=512)
def _cached(
    fingerprint: str,
    adopted: tuple[tuple[date, str], ...],
    closures: tuple[tuple[date, str], ...],
) -> PermitCalendar:
    base = _BASES[fingerprint]
    layers = base.layers
    if adopted:
        source = (
            "; ".join(sorted({note for _, note in adopted if note})) or "the request's calendar"
        )
        layers = (
            *layers,
            adopted_layer_from_dates([d for d, _ in adopted], key="request_adopted", source=source),
        )
    return PermitCalendar(CalendarLayers(layers, (*base.closures, *closures)))
