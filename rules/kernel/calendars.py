"""Calendars as effective-dated, cited layers, and the business days they leave.

A deadline that lands on a day the city is closed rolls forward (47 CFR 1.6003(e) for
shot clocks, Code Civ. Proc. 12a for California permit clocks). *Which* days count is
contested, so the days are kept in named layers, each from one source of law and each
with its citation:

==========  ===============================================================  =========
kind        what                                                             source
==========  ===============================================================  =========
federal     5 U.S.C. 6103(a) legal public holidays with observed days        data file
state       a state's legal holidays (California: Gov. Code 6700 + 6701)     data file
judicial    a state's court holidays (California: Code Civ. Proc. 135)       data file
adopted     the city's adopted holidays (resolution, ordinance, MOU)         jurisdiction
closures    one-off closure days an administrator enters                     database
==========  ===============================================================  =========

A *reading* chooses which kinds a clock rolls over (Saturdays and Sundays always):

* ``LITERAL`` (47 CFR 1.6003(e) read fully): federal, state, adopted, closures;
* ``CONSERVATIVE``: federal and adopted only, so a contested state holiday or an
  administrative closure can never make an alert late;
* ``COURT`` (Code Civ. Proc. 12a, 12b): judicial, adopted, closures;
* ``ALL``: every layer.

``CalendarLayers`` is the frozen, serialisable snapshot of one jurisdiction's layers
(``to_dict`` / ``from_dict``, a content ``fingerprint``); a running clock keeps the
snapshot it was opened with. ``CalendarLayers.calendar(reading)`` is a
``BusinessCalendar`` (cached per reading) answering "is this a business day, and if
not, why not?" from per-year tables built once. ``notes_for(day)`` names every layer
that marks a day, for the ledger. Everything here is pure: data files are read once at
import, so the module is safe in Temporal workflow code (import it through
pass-through).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property, lru_cache
from typing import Any

from rules.kernel.holidays import (
    Dates,
    HolidayDataError,
    HolidayRegime,
    HolidayRule,
    federal_regime,
    judicial_regime,
    parse_layer,
    state_regime,
)

LOCAL_CLOSURE = "local closure"
CLOSURES_KEY = "closures"
_ONE_DAY = timedelta(days=1)

LAYER_KINDS: tuple[str, ...] = ("federal", "state", "judicial", "adopted", "closures")

# Readings: which layer kinds a clock rolls over (weekends always).
LITERAL: frozenset[str] = frozenset({"federal", "state", "adopted", "closures"})
CONSERVATIVE: frozenset[str] = frozenset({"federal", "adopted"})
COURT: frozenset[str] = frozenset({"judicial", "adopted", "closures"})
ALL: frozenset[str] = frozenset(LAYER_KINDS)
_READING_NAMES = {LITERAL: "literal", CONSERVATIVE: "conservative", COURT: "court", ALL: "all"}


def reading_name(kinds: frozenset[str]) -> str:
    """'literal', 'conservative', 'court', 'all', or the kinds joined by '+'."""
    return _READING_NAMES.get(kinds) or "+".join(k for k in LAYER_KINDS if k in kinds)


# ----------------------------------------------------------------------- calendar


@dataclass(frozen=True)
class BusinessCalendar:
    """Weekends plus the chosen layers plus closure dates: which days are not business days.

    Immutable; per-year tables are built lazily and memoised inside the instance (a pure
    cache, so sharing instances across threads and workflows is safe). Where layers
    overlap (Christmas is federal and Californian) the first layer in order (federal,
    state, judicial, adopted, closures) names the day.
    """

    regimes: tuple[HolidayRegime, ...]
    local_closures: frozenset[date] = frozenset()
    closure_notes: Mapping[date, str] = field(default_factory=dict, compare=False)
    _names: dict[int, dict[date, str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _reasons: dict[int, dict[date, str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        closures = frozenset(self.local_closures)
        for closure in closures:
            if type(closure) is not date:
                raise TypeError(f"local closure {closure!r} must be a datetime.date")
        object.__setattr__(self, "local_closures", closures)

    @property
    def federal(self) -> HolidayRegime | None:
        return next((r for r in self.regimes if r.kind == "federal"), None)

    @property
    def state(self) -> HolidayRegime | None:
        return next((r for r in self.regimes if r.kind == "state"), None)

    @property
    def effective_from(self) -> date:
        """Earliest date the configured holiday lists are claimed accurate for."""
        return max((regime.effective_from for regime in self.regimes), default=date.min)

    def _build(self, year: int) -> dict[date, str]:
        """Fill both per-year tables; returns the closure-reason table."""
        names: dict[date, str] = {}
        reasons: dict[date, str] = {}
        for regime in self.regimes:
            for when, found in regime.dates_in(year).items():
                if when not in names:
                    names[when] = "; ".join(found)
                    reasons[when] = f"{regime.closure_label}: {names[when]}"
        for closure in self.local_closures:
            if closure.year == year and closure not in names:
                note = self.closure_notes.get(closure)
                names[closure] = LOCAL_CLOSURE
                reasons[closure] = f"{LOCAL_CLOSURE} ({note})" if note else LOCAL_CLOSURE
        self._names[year] = dict(sorted(names.items()))
        self._reasons[year] = reasons
        return reasons

    def holidays_in(self, year: int) -> dict[date, str]:
        """Date -> name of every holiday (actual and observed) and local closure in
        ``year``, including holidays falling on a weekend. A fresh copy, sorted."""
        if year not in self._names:
            self._build(year)
        return dict(self._names[year])

    def _reason(self, d: date) -> str | None:
        weekday = d.weekday()
        if weekday == 5:
            return "Saturday"
        if weekday == 6:
            return "Sunday"
        reasons = self._reasons.get(d.year)
        if reasons is None:
            reasons = self._build(d.year)
        return reasons.get(d)

    def closure_reason(self, d: date) -> str | None:
        """Why ``d`` is not a business day, or None when it is one (weekends first)."""
        if type(d) is not date:
            raise TypeError(f"expected a datetime.date, got {type(d).__name__}")
        return self._reason(d)

    def is_business_day(self, d: date) -> bool:
        """True when ``d`` is neither a weekend, a holiday nor a closure."""
        return self.closure_reason(d) is None

    def roll_forward(self, d: date) -> tuple[date, list[tuple[date, str]]]:
        """The first business day on or after ``d`` and, for the ledger, each skipped
        day with the reason it was skipped (empty when ``d`` is a business day)."""
        if type(d) is not date:
            raise TypeError(f"expected a datetime.date, got {type(d).__name__}")
        skipped: list[tuple[date, str]] = []
        reason = self._reason(d)
        while reason is not None:
            skipped.append((d, reason))
            d += _ONE_DAY
            reason = self._reason(d)
        return d, skipped

    def add_business_days(self, start: date, days: int) -> date:
        """The business day that is ``days`` business days after ``start`` (a review
        service level of 10 business days from a Friday submission ends two weeks on)."""
        if days < 0:
            raise ValueError("days must not be negative")
        d = start
        remaining = days
        while remaining:
            d += _ONE_DAY
            if self._reason(d) is None:
                remaining -= 1
        return d


@dataclass(frozen=True)
class CalendarLayers:
    """One jurisdiction's calendar as named layers: frozen, serialisable, comparable.

    ``layers`` are in precedence order (federal, state, judicial, adopted); ``closures``
    are the one-off closure days with a note each (may be empty).
    """

    layers: tuple[HolidayRegime, ...]
    closures: tuple[tuple[date, str], ...] = ()
    _calendars: dict[frozenset[str], BusinessCalendar] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        merged: dict[date, str] = {}
        for day, note in self.closures:
            if type(day) is not date:
                raise TypeError(f"closure {day!r} must be a datetime.date")
            merged[day] = merged.get(day) or note
        object.__setattr__(self, "closures", tuple(sorted(merged.items())))

    # -- reading ------------------------------------------------------------------

    def layer(self, key: str) -> HolidayRegime | None:
        return next((layer for layer in self.layers if layer.key == key), None)

    def of_kind(self, kind: str) -> tuple[HolidayRegime, ...]:
        return tuple(layer for layer in self.layers if layer.kind == kind)

    @cached_property
    def closure_dates(self) -> frozenset[date]:
        return frozenset(day for day, _ in self.closures)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """What a computed clock reports of its calendar (shared; do not mutate)."""
        return {
            "calendar": self.fingerprint,
            "layers": [layer.key for layer in self.layers],
            "closures": [day.isoformat() for day, _ in self.closures],
        }

    @cached_property
    def contested(self) -> bool:
        """Whether the literal reading rolls over days the conservative one does not."""
        return bool(self.closures) or any(
            layer.kind in LITERAL and layer.kind not in CONSERVATIVE for layer in self.layers
        )

    def calendar(self, reading: frozenset[str] = LITERAL) -> BusinessCalendar:
        """Weekends plus the layers of the kinds in ``reading`` (cached per reading)."""
        cached = self._calendars.get(reading)
        if cached is None:
            unknown = reading - ALL
            if unknown:
                raise ValueError(f"unknown layer kind(s): {', '.join(sorted(unknown))}")
            with_closures = "closures" in reading
            cached = BusinessCalendar(
                tuple(layer for layer in self.layers if layer.kind in reading),
                self.closure_dates if with_closures else frozenset(),
                {day: note for day, note in self.closures if note} if with_closures else {},
            )
            self._calendars[reading] = cached
        return cached

    def notes_for(self, day: date, reading: frozenset[str] | None = None) -> list[str]:
        """Every layer that marks ``day``, cited; with a reading, whether it counts."""
        out: list[str] = []

        def mark(kind: str) -> str:
            if reading is None:
                return ""
            return (
                "" if kind in reading else f" (not counted by the {reading_name(reading)} reading)"
            )

        for layer in self.layers:
            for name in layer.dates_in(day.year).get(day, []):
                out.append(
                    f"{layer.closure_label}: {name} ({layer.citation_of(name)}){mark(layer.kind)}"
                )
        for closure, note in self.closures:
            if closure == day:
                what = f"{LOCAL_CLOSURE}: {note}" if note else LOCAL_CLOSURE
                out.append(f"{what}{mark('closures')}")
        return out

    def with_closures(self, closures: Iterable[tuple[date, str]]) -> CalendarLayers:
        return CalendarLayers(self.layers, (*self.closures, *closures))

    # -- freezing -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (what a workflow keeps in its state)."""
        return {
            "layers": [layer.to_dict() for layer in self.layers],
            "closures": [{"date": d.isoformat(), "note": note} for d, note in self.closures],
            "fingerprint": self.fingerprint,
        }

    @cached_property
    def fingerprint(self) -> str:
        """A content hash: two snapshots with the same layers and closures share it."""
        body = {
            "layers": [layer.to_dict() for layer in self.layers],
            "closures": [[d.isoformat(), note] for d, note in self.closures],
        }
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @classmethod
    def from_dict(cls, raw: Any, where: str = "calendar") -> CalendarLayers:
        """The snapshot ``to_dict`` wrote; HolidayDataError names what is wrong.

        Parsed once per fingerprint and shared (workflows recompute often)."""
        if not isinstance(raw, dict):
            raise HolidayDataError(f"{where}: expected an object with 'layers' and 'closures'")
        fingerprint = raw.get("fingerprint")
        if isinstance(fingerprint, str):
            cached = _SNAPSHOTS.get(fingerprint)
            if cached is not None:
                return cached
        layers_raw = raw.get("layers")
        if not isinstance(layers_raw, list) or not layers_raw:
            raise HolidayDataError(f"{where}.layers: expected a non-empty list of layers")
        layers = tuple(
            parse_layer(layer, f"{where}.layers[{i}]") for i, layer in enumerate(layers_raw)
        )
        keys = [layer.key for layer in layers]
        if len(set(keys)) != len(keys):
            raise HolidayDataError(f"{where}.layers: a layer key appears twice")
        closures: list[tuple[date, str]] = []
        closures_raw = raw.get("closures", [])
        if not isinstance(closures_raw, list):
            raise HolidayDataError(f"{where}.closures: expected a list")
        for i, entry in enumerate(closures_raw):
            if not isinstance(entry, dict) or not isinstance(entry.get("date"), str):
                raise HolidayDataError(f"{where}.closures[{i}]: expected {{date, note}}")
            try:
                day = date.fromisoformat(entry["date"])
            except ValueError:
                raise HolidayDataError(f"{where}.closures[{i}].date: not an ISO date") from None
            note = entry.get("note") or ""
            if not isinstance(note, str):
                raise HolidayDataError(f"{where}.closures[{i}].note: must be a string")
            closures.append((day, note))
        snapshot = cls(layers, tuple(closures))
        if isinstance(fingerprint, str) and fingerprint != snapshot.fingerprint:
            raise HolidayDataError(f"{where}.fingerprint: does not match the layers")
        if len(_SNAPSHOTS) > 1024:
            _SNAPSHOTS.clear()
        _SNAPSHOTS[snapshot.fingerprint] = snapshot
        return snapshot

    def changes_from(self, older: CalendarLayers, start: date, end: date) -> list[str]:
        """What differs between ``older`` and this snapshot for days in [start, end],
        one line a change, layer by layer (for an audited rebase)."""
        lines: list[str] = []
        old_keys = {layer.key: layer for layer in older.layers}
        new_keys = {layer.key: layer for layer in self.layers}
        for key in sorted(set(old_keys) | set(new_keys)):
            old, new = old_keys.get(key), new_keys.get(key)
            if old is None:
                lines.append(f"layer {key} added ({new.citation if new else ''})")
            elif new is None:
                lines.append(f"layer {key} removed")
            if old is not None and new is not None and old.to_dict() == new.to_dict():
                continue
            before = _dates_between(old, start, end)
            after = _dates_between(new, start, end)
            for day in sorted(set(before) | set(after)):
                if before.get(day) != after.get(day):
                    if day not in after:
                        lines.append(f"{key}: {day} {before[day]} removed")
                    elif day not in before:
                        lines.append(f"{key}: {day} {after[day]} added")
                    else:
                        lines.append(f"{key}: {day} renamed {before[day]} -> {after[day]}")
            if old is not None and new is not None and old.citation != new.citation:
                lines.append(f"{key}: citation now {new.citation}")
        old_closures, new_closures = dict(older.closures), dict(self.closures)
        for day in sorted(set(old_closures) | set(new_closures)):
            if start <= day <= end and (day in old_closures) != (day in new_closures):
                verb = "added" if day in new_closures else "removed"
                lines.append(f"closures: {day} {verb}")
        return lines


_SNAPSHOTS: dict[str, CalendarLayers] = {}


def _dates_between(layer: HolidayRegime | None, start: date, end: date) -> dict[date, str]:
    if layer is None:
        return {}
    out: dict[date, str] = {}
    for year in range(start.year, end.year + 1):
        for day, names in layer.dates_in(year).items():
            if start <= day <= end:
                out[day] = "; ".join(names)
    return out


def adopted_layer_from_dates(
    days: Iterable[date], *, key: str = "adopted", source: str = "listed in the timeline"
) -> HolidayRegime:
    """An adopted-holidays layer from plain dates (the compute contract's
    ``adopted_holidays``): each date is one adopted holiday."""
    holidays = tuple(
        HolidayRule(
            name=f"adopted holiday {day.isoformat()}",
            rule=Dates((day,)),
            observed="none",
            effective_from=None,
            citation=source,
        )
        for day in sorted(set(days))
    )
    return HolidayRegime(
        key=key,
        name="City's adopted holidays",
        closure_label="city holiday",
        citation=source,
        effective_from=date(1900, 1, 1),
        holidays=holidays,
        kind="adopted",
        source=source,
    )


def jurisdiction_layers(
    state: str | None,
    adopted: HolidayRegime | None = None,
    closures: Iterable[date | tuple[date, str]] = (),
) -> CalendarLayers:
    """A jurisdiction's layers from the current data: federal always; its state's legal
    and court holidays; its adopted holidays; its one-off closures. Cached."""
    pairs = frozenset(c if isinstance(c, tuple) else (c, "") for c in closures)
    return _jurisdiction_layers(state, adopted, pairs)


@lru_cache(maxsize=512)
def _jurisdiction_layers(
    state: str | None,
    adopted: HolidayRegime | None,
    closures: frozenset[tuple[date, str]],
) -> CalendarLayers:
    layers: list[HolidayRegime] = [federal_regime()]
    if state is not None:
        layers.append(state_regime(state))
        court = judicial_regime(state)
        if court is not None:
            layers.append(court)
    if adopted is not None:
        layers.append(adopted)
    return CalendarLayers(tuple(layers), tuple(closures))


def calendar_for(state: str | None, local_closures: Iterable[date] = ()) -> BusinessCalendar:
    """The literal calendar of a jurisdiction without adopted holidays: federal always,
    plus its state's legal holidays (two-letter code, None for federal only) and its
    closure dates. Shared and cached, so repeated computations reuse per-year tables."""
    return _calendar_for(state, frozenset(local_closures))


@lru_cache(maxsize=256)
def _calendar_for(state: str | None, local_closures: frozenset[date]) -> BusinessCalendar:
    for closure in local_closures:
        if type(closure) is not date:
            raise TypeError(f"local closure {closure!r} must be a datetime.date")
    return jurisdiction_layers(state, None, local_closures).calendar(LITERAL)
