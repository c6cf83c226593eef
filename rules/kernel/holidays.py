"""Holiday layers as data: each one source of law, effective-dated and cited, read
once at import from ``rules/data/holidays`` (and a jurisdiction's adopted layer).

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

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import MAXYEAR, MINYEAR, date, timedelta
from pathlib import Path
from typing import Any, Literal, TypeAlias

FEDERAL_KEY = "federal"
LayerKind: TypeAlias = Literal["federal", "state", "judicial", "adopted"]
_DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "holidays"
_STATE_KEY = re.compile(r"^[A-Z]{2}$")
_ONE_DAY = timedelta(days=1)
Observed: TypeAlias = Literal["federal", "sunday_to_monday", "none"]
_OBSERVED_VALUES: frozenset[str] = frozenset({"federal", "sunday_to_monday", "none"})

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
        observed=observed,
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
