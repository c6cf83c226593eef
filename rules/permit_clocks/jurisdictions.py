"""What a jurisdiction file gives a permit clock: its local pack and its calendar.

Read once at import from rules/data/jurisdictions/<key>.json (keys `permit_pack`,
`state`, adopted holidays and closures), so workflow code never touches files.
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

from rules.permit_clocks.calendar import PermitCalendar, make_calendar
from rules.permit_clocks.packs import PERMIT_PACKS

JURISDICTION_DIR = Path(__file__).resolve().parent.parent / "data" / "jurisdictions"


@dataclass(frozen=True)
class PermitJurisdiction:
    key: str
    state: str | None
    permit_pack: str | None
    adopted: Mapping[date, str]
    closures: Mapping[date, str]


def judicial_holidays(year: int) -> Mapping[date, str]:
    """California judicial holidays (CCP 135) observed in `year`."""
    return {}


def _dates(raw: Any, source: str) -> dict[date, str]:
    out: dict[date, str] = {}
    for entry in raw or []:
        if isinstance(entry, str):
            out[date.fromisoformat(entry)] = ""
        else:
            note = " ".join(str(entry[k]) for k in ("name", "source") if entry.get(k))
            out[date.fromisoformat(entry["date"])] = note
    return out


def _load(path: Path) -> PermitJurisdiction:
    raw = json.loads(path.read_text(encoding="utf-8"))
    pack = raw.get("permit_pack")
    if pack is not None and pack not in PERMIT_PACKS:
        raise ValueError(f"{path.name}: permit_pack {pack!r} is not a permit pack")
    return PermitJurisdiction(
        key=raw["key"],
        state=raw.get("state"),
        permit_pack=pack,
        adopted=MappingProxyType(_dates(raw.get("adopted_holidays"), path.name)),
        closures=MappingProxyType(_dates(raw.get("local_closures"), path.name)),
    )


PERMIT_JURISDICTIONS: Mapping[str, PermitJurisdiction] = MappingProxyType(
    {j.key: j for j in map(_load, sorted(JURISDICTION_DIR.glob("*.json")))}
)


def permit_jurisdiction(key: Any) -> PermitJurisdiction:
    if not isinstance(key, str) or key not in PERMIT_JURISDICTIONS:
        known = ", ".join(sorted(PERMIT_JURISDICTIONS))
        raise ValueError(f"unknown jurisdiction {key!r} (known: {known})")
    return PERMIT_JURISDICTIONS[key]


def calendar_for(adopted: Mapping[date, str], closures: Mapping[date, str]) -> PermitCalendar:
    """A permit calendar; shared per distinct (adopted, closures) so the per-year day
    tables are built once for a jurisdiction, not once per computation."""
    return _cached(
        tuple(sorted(adopted.items())),
        tuple(sorted(closures.items())),
    )


@lru_cache(maxsize=512)
def _cached(
    adopted: tuple[tuple[date, str], ...], closures: tuple[tuple[date, str], ...]
) -> PermitCalendar:
    return make_calendar(judicial_holidays, dict(adopted), dict(closures))
