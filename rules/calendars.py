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

Layer file schema (``data/holidays/*.json``; a jurisdiction's ``adopted_holidays``
object uses the same shape with ``"kind": "adopted"`` and a ``"source"``)::

    {
      "key": "ca_gov_6700", "kind": "federal" | "state" | "judicial" | "adopted",
      "state": "CA" | null,
      "name": "...", "citation": "...", "source": "...",   # source: adopted layers
      "closure_label": "California legal holiday",          # prefix of closure reasons
      "effective_from": "2023-01-01",   # first date the list is claimed accurate for
      "holidays": [
        {
          "name": "Cesar Chavez Day",
          "rule": {"fixed": {"month": 3, "day": 31}}
               |  {"nth_weekday": {"month": 1, "weekday": 0, "n": 3}}   # Mon=0, n 1..4
               |  {"last_weekday": {"month": 5, "weekday": 0}}
               |  {"day_after": "Thanksgiving Day"}    # an earlier entry's actual date
               |  {"dates": ["2026-02-17", ...]},      # listed dates (lunar holidays)
          "observed": "federal"            # Sat -> Friday before, Sun -> Monday after
                    | "sunday_to_monday"   # Sun -> Monday after, Sat stays Saturday
                    | "none",
          "effective_from": 2023 | null,    # first calendar year the holiday exists
          "effective_until": 2021 | null,   # last calendar year (optional)
          "citation": "...", "note": "..."  # note optional
        }
      ],
      "notes": ["..."]
    }

A holiday's actual date and its observed date (named "<name> (observed)") are both
listed, each in the calendar year it falls in: January 1 on a Saturday is observed
on December 31 of the previous year and appears in that year's calendar.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import MAXYEAR, MINYEAR, date, timedelta
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal, TypeAlias

__all__ = [
    "ALL",
    "COURT",
    "CONSERVATIVE",
    "FEDERAL_KEY",
    "LAYER_KINDS",
    "LITERAL",
    "BusinessCalendar",
    "CalendarLayers",
    "Dates",
    "DayAfter",
    "Fixed",
    "HolidayDataError",
    "HolidayRegime",
    "HolidayRule",
    "LastWeekday",
    "Layer",
    "NthWeekday",
    "adopted_layer_from_dates",
    "available_states",
    "calendar_for",
    "federal_regime",
    "judicial_regime",
    "jurisdiction_layers",
    "parse_layer",
    "reading_name",
    "state_regime",
]

FEDERAL_KEY = "federal"
LOCAL_CLOSURE = "local closure"
CLOSURES_KEY = "closures"

LayerKind: TypeAlias = Literal["federal", "state", "judicial", "adopted"]
LAYER_KINDS: tuple[str, ...] = ("federal", "state", "judicial", "adopted", "closures")

# Readings: which layer kinds a clock rolls over (weekends always).
LITERAL: frozenset[str] = frozenset({"federal", "state", "adopted", "closures"})
CONSERVATIVE: frozenset[str] = frozenset({"federal", "adopted"})
COURT: frozenset[str] = frozenset({"judicial", "adopted", "closures"})
ALL: frozenset[str] = frozenset(LAYER_KINDS)
_READING_NAMES = {LITERAL: "literal", CONSERVATIVE: "conservative", COURT: "court", ALL: "all"}

_DATA_DIR = Path(__file__).resolve().parent / "data" / "holidays"
_STATE_KEY = re.compile(r"^[A-Z]{2}$")
_ONE_DAY = timedelta(days=1)

Observed: TypeAlias = Literal["federal", "sunday_to_monday", "none"]
_OBSERVED_VALUES: frozenset[str] = frozenset({"federal", "sunday_to_monday", "none"})


def reading_name(kinds: frozenset[str]) -> str:
    """'literal', 'conservative', 'court', 'all', or the kinds joined by '+'."""
    return _READING_NAMES.get(kinds) or "+".join(k for k in LAYER_KINDS if k in kinds)


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Fixed:
    """Same month and day every year (e.g. July 4)."""

    month: int
    day: int

    def date_in(self, year: int) -> date | None:
        return date(year, self.month, self.day)

    def to_dict(self) -> dict[str, Any]:
        return {"fixed": {"month": self.month, "day": self.day}}


@dataclass(frozen=True, slots=True)
class NthWeekday:
    """The n-th given weekday of a month (e.g. third Monday of January)."""

    month: int
    weekday: int
    n: int

    def date_in(self, year: int) -> date | None:
        first = date(year, self.month, 1)
        offset = (self.weekday - first.weekday()) % 7
        return first + timedelta(days=offset + 7 * (self.n - 1))

    def to_dict(self) -> dict[str, Any]:
        return {"nth_weekday": {"month": self.month, "weekday": self.weekday, "n": self.n}}


@dataclass(frozen=True, slots=True)
class LastWeekday:
    """The last given weekday of a month (e.g. last Monday of May)."""

    month: int
    weekday: int

    def date_in(self, year: int) -> date | None:
        if self.month == 12:
            last = date(year, 12, 31)
        else:
            last = date(year, self.month + 1, 1) - _ONE_DAY
        return last - timedelta(days=(last.weekday() - self.weekday) % 7)

    def to_dict(self) -> dict[str, Any]:
        return {"last_weekday": {"month": self.month, "weekday": self.weekday}}


@dataclass(frozen=True, slots=True)
class Dates:
    """Listed dates, at most one a year (a lunar holiday, a city's adopted day)."""

    dates: tuple[date, ...]

    def date_in(self, year: int) -> date | None:
        return next((d for d in self.dates if d.year == year), None)

    def to_dict(self) -> dict[str, Any]:
        return {"dates": [d.isoformat() for d in self.dates]}


@dataclass(frozen=True, slots=True)
class DayAfter:
    """The day after another holiday's actual date (e.g. the day after Thanksgiving)."""

    holiday: str

    def to_dict(self) -> dict[str, Any]:
        return {"day_after": self.holiday}


Rule: TypeAlias = Fixed | NthWeekday | LastWeekday | Dates | DayAfter


@dataclass(frozen=True, slots=True)
class HolidayRule:
    """One configured holiday: how its date is found and how a weekend date shifts."""

    name: str
    rule: Rule
    observed: Observed
    effective_from: int | None
    citation: str
    note: str | None = None
    effective_until: int | None = None

    def applies_in(self, year: int) -> bool:
        return (self.effective_from is None or year >= self.effective_from) and (
            self.effective_until is None or year <= self.effective_until
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "rule": self.rule.to_dict(),
            "observed": self.observed,
            "effective_from": self.effective_from,
            "citation": self.citation,
        }
        if self.effective_until is not None:
            out["effective_until"] = self.effective_until
        if self.note is not None:
            out["note"] = self.note
        return out


def _observed_date(actual: date, observed: Observed) -> date | None:
    """The substitute day for a weekend holiday, or None when there is none."""
    weekday = actual.weekday()
    try:
        if weekday == 5 and observed == "federal":
            return actual - _ONE_DAY
        if weekday == 6 and observed != "none":
            return actual + _ONE_DAY
    except OverflowError:  # only at date.min / date.max
        return None
    return None


@dataclass(frozen=True)
class HolidayRegime:
    """One layer of holidays from one source of law (federal, a state, its courts, a city).

    Per-year tables are memoised inside the instance (a pure cache).
    """

    key: str
    name: str
    closure_label: str
    citation: str
    effective_from: date
    holidays: tuple[HolidayRule, ...]
    notes: tuple[str, ...] = ()
    kind: str = "state"
    state: str | None = None
    source: str | None = None
    _years: dict[int, dict[date, list[str]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def occurrences(self, year: int) -> list[tuple[date, str]]:
        """Actual and observed dates of the holidays *of* ``year`` (may spill into
        adjacent years, e.g. Dec 31 observing the next Jan 1 belongs to the next year's
        holiday but the previous calendar year)."""
        actual: dict[str, date] = {}
        out: list[tuple[date, str]] = []
        for holiday in self.holidays:
            if not holiday.applies_in(year):
                continue
            rule = holiday.rule
            when: date | None
            if isinstance(rule, DayAfter):
                base = actual.get(rule.holiday)
                if base is None:  # the referenced holiday is not in force that year
                    continue
                try:
                    when = base + _ONE_DAY
                except OverflowError:
                    continue
            else:
                when = rule.date_in(year)
                if when is None:
                    continue
            actual[holiday.name] = when
            out.append((when, holiday.name))
            substitute = _observed_date(when, holiday.observed)
            if substitute is not None:
                out.append((substitute, f"{holiday.name} (observed)"))
        return out

    def dates_in(self, year: int) -> dict[date, list[str]]:
        """Every holiday date (actual or observed) falling in calendar year ``year``."""
        cached = self._years.get(year)
        if cached is not None:
            return cached
        found: dict[date, list[str]] = {}
        for source_year in (year - 1, year, year + 1):
            if not MINYEAR <= source_year <= MAXYEAR:
                continue
            for when, name in self.occurrences(source_year):
                if when.year == year:
                    names = found.setdefault(when, [])
                    if name not in names:
                        names.append(name)
        self._years[year] = found
        return found

    def citation_of(self, name: str) -> str:
        base = name.removesuffix(" (observed)")
        return next((h.citation for h in self.holidays if h.name == base), self.citation)

    def to_dict(self) -> dict[str, Any]:
        """The layer as its data file's JSON shape (what a clock freezes)."""
        out: dict[str, Any] = {
            "key": self.key,
            "kind": self.kind,
            "state": self.state,
            "name": self.name,
            "closure_label": self.closure_label,
            "citation": self.citation,
            "effective_from": self.effective_from.isoformat(),
            "holidays": [h.to_dict() for h in self.holidays],
            "notes": list(self.notes),
        }
        if self.source is not None:
            out["source"] = self.source
        return out


# A layer is a regime; the name the permit clocks use.
Layer = HolidayRegime


# ------------------------------------------------------------------------ loading


class HolidayDataError(ValueError):
    """A holiday layer does not match the schema (raised when it is read)."""


def _require(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise HolidayDataError(f"{where}: missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise HolidayDataError(f"{where}: field {key!r} has the wrong type ({value!r})")
    return value


def _int_in(obj: Mapping[str, Any], key: str, low: int, high: int, where: str) -> int:
    value: int = _require(obj, key, int, where)
    if not low <= value <= high:
        raise HolidayDataError(f"{where}: {key}={value} is outside {low}..{high}")
    return value


def _parse_rule(raw: Any, where: str) -> Rule:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise HolidayDataError(f"{where}: 'rule' must be an object with exactly one kind")
    ((kind, spec),) = raw.items()
    if kind == "day_after":
        if not isinstance(spec, str) or not spec:
            raise HolidayDataError(f"{where}: 'day_after' must name another holiday")
        return DayAfter(spec)
    if kind == "dates":
        if not isinstance(spec, list) or not spec:
            raise HolidayDataError(f"{where}: 'dates' must be a non-empty list of ISO dates")
        try:
            listed = tuple(sorted(date.fromisoformat(d) for d in spec))
        except (TypeError, ValueError):
            raise HolidayDataError(f"{where}: 'dates' must be ISO dates") from None
        years = [d.year for d in listed]
        if len(set(years)) != len(years):
            raise HolidayDataError(f"{where}: 'dates' lists two dates in one year")
        return Dates(listed)
    if not isinstance(spec, dict):
        raise HolidayDataError(f"{where}: rule {kind!r} must be an object")
    month = _int_in(spec, "month", 1, 12, where)
    if kind == "fixed":
        day = _int_in(spec, "day", 1, 31, where)
        try:
            date(2001, month, day)  # a non-leap year: rejects Feb 29 as well
        except ValueError:
            raise HolidayDataError(f"{where}: {month}/{day} is not a date every year") from None
        return Fixed(month, day)
    if kind == "nth_weekday":
        return NthWeekday(
            month,
            _int_in(spec, "weekday", 0, 6, where),
            _int_in(spec, "n", 1, 4, where),
        )
    if kind == "last_weekday":
        return LastWeekday(month, _int_in(spec, "weekday", 0, 6, where))
    raise HolidayDataError(f"{where}: unknown rule kind {kind!r}")


def _optional_year(entry: Mapping[str, Any], key: str, where: str) -> int | None:
    value = entry.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise HolidayDataError(f"{where}: {key} must be a year or null")
    return value


def _parse_holiday(entry: Any, where: str, names: set[str]) -> HolidayRule:
    if not isinstance(entry, dict):
        raise HolidayDataError(f"{where}: must be an object")
    name: str = _require(entry, "name", str, where)
    rule = _parse_rule(entry.get("rule"), f"{where} ({name})")
    if isinstance(rule, DayAfter) and rule.holiday not in names:
        raise HolidayDataError(f"{where}: day_after {rule.holiday!r} must name an earlier entry")
    observed = _require(entry, "observed", str, where)
    if observed not in _OBSERVED_VALUES:
        raise HolidayDataError(
            f"{where}: observed={observed!r} is not one of {sorted(_OBSERVED_VALUES)}"
        )
    note = entry.get("note")
    if note is not None and not isinstance(note, str):
        raise HolidayDataError(f"{where}: note must be a string")
    if name in names:
        raise HolidayDataError(f"{where}: duplicate holiday name {name!r}")
    names.add(name)
    return HolidayRule(
        name=name,
        rule=rule,
        observed=observed,  # type: ignore[arg-type]  # checked above
        effective_from=_optional_year(entry, "effective_from", where),
        citation=_require(entry, "citation", str, where),
        note=note,
        effective_until=_optional_year(entry, "effective_until", where),
    )


def parse_layer(raw: Any, source: str) -> HolidayRegime:
    """A layer from its JSON shape; HolidayDataError names what is wrong."""
    if not isinstance(raw, dict):
        raise HolidayDataError(f"{source}: a layer must be an object")
    key: str = _require(raw, "key", str, source)
    kind = raw.get("kind", "state")
    if kind not in ("federal", "state", "judicial", "adopted"):
        raise HolidayDataError(
            f"{source}: kind {kind!r} is not federal, state, judicial or adopted"
        )
    state = raw.get("state")
    if state is not None and (not isinstance(state, str) or not _STATE_KEY.match(state)):
        raise HolidayDataError(f"{source}: state {state!r} is not a two-letter code")
    if kind in ("state", "judicial") and state is None:
        raise HolidayDataError(f"{source}: a {kind} layer names its state")
    names: set[str] = set()
    holidays = tuple(
        _parse_holiday(entry, f"{source}: holidays[{index}]", names)
        for index, entry in enumerate(_require(raw, "holidays", list, source))
    )
    notes = raw.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise HolidayDataError(f"{source}: notes must be strings")
    source_text = raw.get("source")
    if source_text is not None and not isinstance(source_text, str):
        raise HolidayDataError(f"{source}: source must be a string")
    if kind == "adopted" and not source_text:
        raise HolidayDataError(f"{source}: an adopted layer names its source (resolution, MOU)")
    try:
        effective_from = date.fromisoformat(_require(raw, "effective_from", str, source))
    except ValueError:
        raise HolidayDataError(f"{source}: effective_from must be an ISO date") from None
    return HolidayRegime(
        key=key,
        name=_require(raw, "name", str, source),
        closure_label=_require(raw, "closure_label", str, source),
        citation=_require(raw, "citation", str, source),
        effective_from=effective_from,
        holidays=holidays,
        notes=tuple(notes),
        kind=kind,
        state=state,
        source=source_text,
    )


def _load_layers(
    directory: Path,
) -> tuple[HolidayRegime, dict[str, HolidayRegime], dict[str, HolidayRegime]]:
    """Read every layer file once; a bad file fails the import loudly, not a deadline."""
    federal: HolidayRegime | None = None
    states: dict[str, HolidayRegime] = {}
    courts: dict[str, HolidayRegime] = {}
    for path in sorted(directory.glob("*.json")):
        layer = parse_layer(json.loads(path.read_text(encoding="utf-8")), path.name)
        if layer.kind == "federal":
            if federal is not None or layer.key != FEDERAL_KEY:
                raise HolidayDataError(
                    f"{path.name}: a second federal layer, or not keyed 'federal'"
                )
            federal = layer
            continue
        table = {"state": states, "judicial": courts}.get(layer.kind)
        if table is None:
            raise HolidayDataError(
                f"{path.name}: kind {layer.kind!r} belongs in a jurisdiction file"
            )
        assert layer.state is not None
        if layer.state in table:
            raise HolidayDataError(f"{path.name}: {layer.kind} layer for {layer.state} twice")
        table[layer.state] = layer
    if federal is None:
        raise HolidayDataError(f"no federal holiday layer in {directory}")
    return federal, states, courts


_FEDERAL, _STATES, _COURTS = _load_layers(_DATA_DIR)


def federal_regime() -> HolidayRegime:
    """The federal layer (5 U.S.C. 6103), part of every calendar."""
    return _FEDERAL


def state_regime(state: str) -> HolidayRegime:
    """The state legal-holiday layer for a two-letter state code; ValueError if none."""
    regime = _STATES.get(state.strip().upper()) if isinstance(state, str) else None
    if regime is None:
        raise ValueError(f"no holiday calendar configured for state {state!r}")
    return regime


def judicial_regime(state: str) -> HolidayRegime | None:
    """The state's court-holiday layer (California: CCP 135), or None if not configured."""
    return _COURTS.get(state.strip().upper()) if isinstance(state, str) else None


def available_states() -> list[str]:
    """State codes that have a holiday calendar configured."""
    return sorted(_STATES)


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
    layers: list[HolidayRegime] = [_FEDERAL]
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
