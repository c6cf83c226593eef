"""What a jurisdiction gives a permit clock: its local pack and its calendar layers.

The jurisdiction file (rules/data/jurisdictions/<key>.json) names its `permit_pack`;
its calendar layers (state, judicial, adopted holidays, closures) come from
rules/kernel/jurisdictions.py's `Jurisdiction.calendar_layers()`. Read once at import, so workflow
code never touches files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.kernel.calendars import CalendarLayers, adopted_layer_from_dates, jurisdiction_layers
from rules.kernel.jurisdictions import JURISDICTIONS
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.packs import PERMIT_PACKS

JURISDICTION_DIR = Path(__file__).resolve().parent.parent / "data" / "jurisdictions"


@dataclass(frozen=True)
class PermitJurisdiction:
    key: str
    state: str | None
    permit_pack: str | None


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
