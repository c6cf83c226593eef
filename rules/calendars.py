"""Business-day calendars for shot-clock counting (47 CFR 1.6003(e)).

A shot-clock date that lands on a Saturday, Sunday, federal legal holiday
(5 U.S.C. 6103, observed day included), state legal holiday or local closure rolls
forward to the next day that is none of these. This module answers "is this a
business day, and if not, why not?" deterministically and without I/O at call time,
so it is safe to use from Temporal workflow code (import it through pass-through).

Holiday rules are data, not code: one JSON file per regime in ``data/holidays/``,
read once at import time. ``federal.json`` is the federal regime (key ``"federal"``);
every other file is a state regime keyed by its two-letter ``"key"``, so adding a
state is adding a file. Schema::

    {
      "key": "CA",                        # "federal" or a two-letter state code
      "name": "...", "citation": "...",
      "closure_label": "California legal holiday",   # prefix used in closure reasons
      "effective_from": "2022-01-01",     # first date the list is claimed accurate for;
                                          # earlier years use the same rules (informational)
      "holidays": [
        {
          "name": "Cesar Chavez Day",
          "rule": {"fixed": {"month": 3, "day": 31}}
               |  {"nth_weekday": {"month": 1, "weekday": 0, "n": 3}}   # Mon=0, n 1..4
               |  {"last_weekday": {"month": 5, "weekday": 0}}
               |  {"day_after": "Thanksgiving Day"},   # an earlier entry's actual date
          "observed": "federal"            # Sat -> Friday before, Sun -> Monday after
                    | "sunday_to_monday"   # Sun -> Monday after, Sat stays Saturday
                    | "none",
          "effective_from": 2021 | null,    # first calendar year the holiday exists
          "citation": "...",
          "note": "..."                    # optional
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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import MAXYEAR, MINYEAR, date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TypeAlias

__all__ = [
    "FEDERAL_KEY",
    "BusinessCalendar",
    "DayAfter",
    "Fixed",
    "HolidayDataError",
    "HolidayRegime",
    "HolidayRule",
    "LastWeekday",
    "NthWeekday",
    "available_states",
    "calendar_for",
    "federal_regime",
    "state_regime",
]

FEDERAL_KEY = "federal"
LOCAL_CLOSURE = "local closure"

_DATA_DIR = Path(__file__).resolve().parent / "data" / "holidays"
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

    def date_in(self, year: int) -> date:
        return date(year, self.month, self.day)


@dataclass(frozen=True, slots=True)
class NthWeekday:
    """The n-th given weekday of a month (e.g. third Monday of January)."""

    month: int
    weekday: int
    n: int

    def date_in(self, year: int) -> date:
        first = date(year, self.month, 1)
        offset = (self.weekday - first.weekday()) % 7
        return first + timedelta(days=offset + 7 * (self.n - 1))


@dataclass(frozen=True, slots=True)
class LastWeekday:
    """The last given weekday of a month (e.g. last Monday of May)."""

    month: int
    weekday: int

    def date_in(self, year: int) -> date:
        if self.month == 12:
            last = date(year, 12, 31)
        else:
            last = date(year, self.month + 1, 1) - _ONE_DAY
        return last - timedelta(days=(last.weekday() - self.weekday) % 7)


@dataclass(frozen=True, slots=True)
class DayAfter:
    """The day after another holiday's actual date (e.g. the day after Thanksgiving)."""

    holiday: str


Rule: TypeAlias = Fixed | NthWeekday | LastWeekday | DayAfter


@dataclass(frozen=True, slots=True)
class HolidayRule:
    """One configured holiday: how its date is found and how a weekend date shifts."""

    name: str
    rule: Rule
    observed: Observed
    effective_from: int | None
    citation: str
    note: str | None = None

    def applies_in(self, year: int) -> bool:
        return self.effective_from is None or year >= self.effective_from


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


@dataclass(frozen=True, slots=True)
class HolidayRegime:
    """A set of holiday rules from one source of law (federal, or one state)."""

    key: str
    name: str
    closure_label: str
    citation: str
    effective_from: date
    holidays: tuple[HolidayRule, ...]
    notes: tuple[str, ...] = ()

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
            actual[holiday.name] = when
            out.append((when, holiday.name))
            substitute = _observed_date(when, holiday.observed)
            if substitute is not None:
                out.append((substitute, f"{holiday.name} (observed)"))
        return out

    def dates_in(self, year: int) -> dict[date, list[str]]:
        """Every holiday date (actual or observed) falling in calendar year ``year``."""
        found: dict[date, list[str]] = {}
        for source_year in (year - 1, year, year + 1):
            if not MINYEAR <= source_year <= MAXYEAR:
                continue
            for when, name in self.occurrences(source_year):
                if when.year == year:
                    names = found.setdefault(when, [])
                    if name not in names:
                        names.append(name)
        return found


# ------------------------------------------------------------------------ loading


class HolidayDataError(ValueError):
    """A holiday data file does not match the schema (raised at import time)."""


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


def _parse_regime(raw: Any, source: str) -> HolidayRegime:
    if not isinstance(raw, dict):
        raise HolidayDataError(f"{source}: top level must be an object")
    key: str = _require(raw, "key", str, source)
    holidays: list[HolidayRule] = []
    names: set[str] = set()
    for index, entry in enumerate(_require(raw, "holidays", list, source)):
        where = f"{source}: holidays[{index}]"
        if not isinstance(entry, dict):
            raise HolidayDataError(f"{where}: must be an object")
        name: str = _require(entry, "name", str, where)
        rule = _parse_rule(entry.get("rule"), f"{where} ({name})")
        if isinstance(rule, DayAfter) and rule.holiday not in names:
            raise HolidayDataError(
                f"{where}: day_after {rule.holiday!r} must name an earlier entry"
            )
        observed = _require(entry, "observed", str, where)
        if observed not in _OBSERVED_VALUES:
            raise HolidayDataError(
                f"{where}: observed={observed!r} is not one of {sorted(_OBSERVED_VALUES)}"
            )
        effective = entry.get("effective_from")
        if effective is not None and (
            not isinstance(effective, int) or isinstance(effective, bool)
        ):
            raise HolidayDataError(f"{where}: effective_from must be a year or null")
        note = entry.get("note")
        if note is not None and not isinstance(note, str):
            raise HolidayDataError(f"{where}: note must be a string")
        if name in names:
            raise HolidayDataError(f"{where}: duplicate holiday name {name!r}")
        names.add(name)
        holidays.append(
            HolidayRule(
                name=name,
                rule=rule,
                observed=observed,  # type: ignore[arg-type]  # checked above
                effective_from=effective,
                citation=_require(entry, "citation", str, where),
                note=note,
            )
        )
    notes = _require(raw, "notes", list, source)
    if not all(isinstance(n, str) for n in notes):
        raise HolidayDataError(f"{source}: notes must be strings")
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
        holidays=tuple(holidays),
        notes=tuple(notes),
    )


def _load_regimes(directory: Path) -> tuple[HolidayRegime, dict[str, HolidayRegime]]:
    """Read every regime file once; a bad file fails the import loudly, not a deadline."""
    federal: HolidayRegime | None = None
    states: dict[str, HolidayRegime] = {}
    for path in sorted(directory.glob("*.json")):
        regime = _parse_regime(json.loads(path.read_text(encoding="utf-8")), path.name)
        if regime.key == FEDERAL_KEY:
            if federal is not None:
                raise HolidayDataError(f"{path.name}: a second federal regime")
            federal = regime
        elif _STATE_KEY.match(regime.key):
            if regime.key in states:
                raise HolidayDataError(f"{path.name}: state {regime.key!r} is configured twice")
            states[regime.key] = regime
        else:
            raise HolidayDataError(
                f"{path.name}: key {regime.key!r} is neither 'federal' nor a state code"
            )
    if federal is None:
        raise HolidayDataError(f"no federal holiday regime in {directory}")
    return federal, states


_FEDERAL, _STATES = _load_regimes(_DATA_DIR)


def federal_regime() -> HolidayRegime:
    """The federal regime (5 U.S.C. 6103), always part of every calendar."""
    return _FEDERAL


def state_regime(state: str) -> HolidayRegime:
    """The configured regime for a two-letter state code; ValueError if none."""
    regime = _STATES.get(state.strip().upper()) if isinstance(state, str) else None
    if regime is None:
        raise ValueError(f"no holiday calendar configured for state {state!r}")
    return regime


def available_states() -> list[str]:
    """State codes that have a holiday calendar configured."""
    return sorted(_STATES)


# ----------------------------------------------------------------------- calendar


@dataclass(frozen=True)
class BusinessCalendar:
    """Weekends + federal holidays + optional state holidays + local closure dates.

    Immutable; per-year holiday tables are built lazily and memoised inside the
    instance (a pure cache, so sharing instances across threads and workflows is safe).
    """

    federal: HolidayRegime
    state: HolidayRegime | None = None
    local_closures: frozenset[date] = frozenset()
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
    def regimes(self) -> tuple[HolidayRegime, ...]:
        return (self.federal,) if self.state is None else (self.federal, self.state)

    @property
    def effective_from(self) -> date:
        """Earliest date the configured holiday lists are claimed accurate for."""
        return max(regime.effective_from for regime in self.regimes)

    def _build(self, year: int) -> dict[date, str]:
        """Fill both per-year tables; returns the closure-reason table.

        Where regimes overlap (Christmas is federal and Californian) the first regime
        in precedence order (federal, state, local) names the day.
        """
        names: dict[date, str] = {}
        reasons: dict[date, str] = {}
        for regime in self.regimes:
            for when, found in regime.dates_in(year).items():
                if when not in names:
                    names[when] = "; ".join(found)
                    reasons[when] = f"{regime.closure_label}: {names[when]}"
        for closure in self.local_closures:
            if closure.year == year and closure not in names:
                names[closure] = LOCAL_CLOSURE
                reasons[closure] = LOCAL_CLOSURE
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
        """Why ``d`` is not a business day, or None when it is one.

        Weekends first, then federal, state and local closures, so the explanation
        cites the most general rule that closes the day.
        """
        if type(d) is not date:
            raise TypeError(f"expected a datetime.date, got {type(d).__name__}")
        return self._reason(d)

    def is_business_day(self, d: date) -> bool:
        """True when ``d`` is neither a weekend, a holiday nor a local closure."""
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


def calendar_for(state: str | None, local_closures: Iterable[date] = ()) -> BusinessCalendar:
    """The calendar for a jurisdiction: federal always, plus its state (two-letter
    code, None for federal only) and its local closure dates. Shared and cached, so
    repeated computations for one jurisdiction reuse the per-year tables."""
    return _calendar_for(state, frozenset(local_closures))


@lru_cache(maxsize=256)
def _calendar_for(state: str | None, local_closures: frozenset[date]) -> BusinessCalendar:
    regime = None if state is None else state_regime(state)
    return BusinessCalendar(_FEDERAL, regime, local_closures)
