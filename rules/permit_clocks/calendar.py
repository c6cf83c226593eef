"""Which days a permit clock skips, per counting convention and reading (§2).

A permit calendar is three layers of non-working weekdays (weekends are always
closed): California judicial holidays (CCP 135, court-observed dates), the city's
adopted holidays (with their source) and one-off full-day closures. The conventions
use them so:

| convention      | literal reading                  | conservative reading       |
|-----------------|----------------------------------|----------------------------|
| `ccp12` roll    | judicial + adopted + closures    | judicial + adopted         |
| `business_days` | adopted + closures               | adopted                    |

(a one-off closure may not survive a challenge, so the earliest reading works it).
Pure: the per-year tables are built lazily and cached inside each `Closed`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

Reading = Literal["literal", "conservative"]
YearTable = Callable[[int], Mapping[date, str]]

_WEEKEND = {5: "Saturday", 6: "Sunday"}


def fixed_dates(dates: Mapping[date, str]) -> YearTable:
    """A layer made of listed dates (adopted holidays, closures)."""
    by_year: dict[int, dict[date, str]] = {}
    for when, note in dates.items():
        by_year.setdefault(when.year, {})[when] = note
    return lambda year: by_year.get(year, {})


@dataclass(frozen=True)
class Layer:
    """One named source of non-working days, e.g. "city-adopted holiday"."""

    key: str
    label: str
    dates: YearTable


@dataclass
class Closed:
    """Weekends plus the given layers; `reason(d)` says why `d` is not a working day."""

    layers: tuple[Layer, ...]
    _years: dict[int, dict[date, str]] = field(default_factory=dict, repr=False)

    def _table(self, year: int) -> dict[date, str]:
        table: dict[date, str] = {}
        for layer in self.layers:
            for when, note in layer.dates(year).items():
                if when.weekday() < 5 and when not in table:
                    table[when] = f"{layer.label}: {note}" if note else layer.label
        self._years[year] = table
        return table

    def reason(self, d: date) -> str | None:
        weekend = _WEEKEND.get(d.weekday())
        if weekend is not None:
            return weekend
        table = self._years.get(d.year)
        if table is None:
            table = self._table(d.year)
        return table.get(d)


@dataclass(frozen=True)
class PermitCalendar:
    """The layers a permit clock counts with, and the day sets derived from them."""

    judicial: Layer
    adopted: Layer
    closures: Layer
    _sets: dict[tuple[str, str], Closed] = field(default_factory=dict, repr=False, compare=False)

    def _layers(self, convention: str, reading: Reading) -> tuple[Layer, ...]:
        if convention == "ccp12":
            base = (self.judicial, self.adopted)
        else:
            base = (self.adopted,)
        return base if reading == "conservative" else (*base, self.closures)

    def closed(self, convention: str, reading: Reading) -> Closed:
        """The non-working days for `convention` ("ccp12" or "business_days")."""
        key = (convention, reading)
        found = self._sets.get(key)
        if found is None:
            found = self._sets[key] = Closed(self._layers(convention, reading))
        return found


def make_calendar(
    judicial: YearTable,
    adopted: Mapping[date, str],
    closures: Iterable[date] | Mapping[date, str],
) -> PermitCalendar:
    """A calendar from a judicial-holiday table, adopted holidays (date -> source)
    and closures (dates, or date -> note)."""
    closure_notes = dict(closures) if isinstance(closures, Mapping) else dict.fromkeys(closures, "")
    return PermitCalendar(
        judicial=Layer("judicial", "California judicial holiday (CCP 135)", judicial),
        adopted=Layer("adopted", "city-adopted holiday", fixed_dates(adopted)),
        closures=Layer("closures", "full-day city closure (CCP 12b)", fixed_dates(closure_notes)),
    )
