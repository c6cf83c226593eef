"""Seasonal windows and evidence freshness for conditions of approval (conditions.md §4).

Some conditions are not "clear before milestone X" but "do Y in a window computed from
when the work is planned": a nesting bird survey within 7 days of groundbreaking when
construction begins Feb 1-Aug 31 (seed #109 BIO-3), a final burrowing owl survey within
24 hours before ground disturbance when any work falls Sep 1-Jan 31 (#107 BIO-1 A), bat
roost surveys and exclusion windows (#107 BIO-1 B), erosion control in place before
October 1 when grading takes place between October 15 and April 15 (#63), a title
report no older than 3 months at its gate (#7), the dust Disturbance Coordinator (#105
AQ-1 H), and no construction on Sundays or holidays (#117 NOI-2 A).

The rules are data (``rules/data/windows/default.json``), read once at import. The code
here is pure and deterministic: no I/O, no clock, no randomness at call time, so it is
safe inside Temporal workflow code.

Interpretations (each also stated in the JSON notes or the rule's wording):

* Calendar days throughout; nothing rolls to a business day (a roll forward would move
  a survey past the work it has to precede).
* "within N days of groundbreaking" (a *pre*-construction survey) is the window
  ``[groundbreaking - N, groundbreaking]``, both ends inclusive.
* "within 24 hours prior to ground disturbance": dates carry no clock time, so the
  survey is due the day before or the same day (before work starts): window
  ``[anchor - 1, anchor]``; the sentence tells the applicant to keep to 24 hours.
* "no more than 7 days prior to the start of activities" (bat emergence surveys, done
  at dusk): ``[anchor - 7, anchor - 1]``; days in the hibernation period
  (Nov 1 to Mar 1, read as Nov 1 through the last day of February so that March 1, the
  first exclusion day, is usable) are cut off the window.
* Seasons are inclusive month-day ranges; a range whose start is after its end wraps
  the new year (Sep 1-Jan 31 is Sep 1 of year Y through Jan 31 of Y+1). A ``02-29``
  end means Feb 28 in a common year and a ``02-29`` start means Mar 1.
* "in place before October 1st" is due September 30 of the year the storm season
  (Oct 15-Apr 15) starts, one item per season the planned grading touches. When grading
  starts inside a season after that October 1, the item is due the day before grading
  begins and a conflict says the literal date had passed.
* "within the last 3 months" is measured back from the gate's target date in calendar
  months, clamped to the month's end (May 31 minus 3 months is Feb 28, or Feb 29).
* "respond within 48 hours" is 48 elapsed hours (computed in UTC for aware datetimes).
* Missing planned dates produce a conflict entry starting "set the planned ..."
  instead of guesses; the NOI-2 check only looks at the dates that are set.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import MINYEAR, UTC, date, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from models.conditions import ConditionSpec, SubItem
from rules.kernel.calendars import calendar_for

__all__ = [
    "DEFAULT_RULES",
    "DueItem",
    "MonthDay",
    "PlannedDates",
    "Season",
    "WindowConflict",
    "WindowDataError",
    "WindowRule",
    "WindowRuleSet",
    "minus_months",
    "parse_window_rules",
    "response_deadline",
    "schedule",
]

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "windows" / "default.json"

DATE_FIELDS: tuple[str, ...] = (
    "groundbreaking",
    "grading_start",
    "grading_end",
    "construction_end",
)
# Room for the year-either-side arithmetic of wrapping seasons and month shifts.
MIN_YEAR = 2
MAX_YEAR = 9997

_ONE_DAY = timedelta(days=1)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2212]")
_SPACE = re.compile(r"\s+")
_MONTH_DAY = re.compile(r"^(\d{2})-(\d{2})$")
_EMPTY_EVIDENCE: Mapping[str, date] = MappingProxyType({})


class WindowDataError(ValueError):
    """The window rules JSON is malformed (raised at import for the default file)."""


# ------------------------------------------------------------------------ planned dates


def _check_date(name: str, value: object) -> None:
    # datetime is a date subclass but compares badly with date: refuse it early.
    if value is None:
        return
    if type(value) is not date:
        raise TypeError(f"{name} must be a datetime.date or None, got {type(value).__name__}")
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        raise ValueError(f"{name} {value.isoformat()} is outside years {MIN_YEAR}-{MAX_YEAR}")


def _parse_iso(name: str, value: object) -> date | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be an ISO date string or null, got {value!r}")
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{name} is not an ISO date (YYYY-MM-DD): {value!r}") from exc


@dataclass(frozen=True)
class PlannedDates:
    """The applicant's planned dates; any may be unknown (None).

    ``milestone_targets`` maps gate keys (conditions.md §1) to target dates.
    """

    groundbreaking: date | None = None
    grading_start: date | None = None
    grading_end: date | None = None
    construction_end: date | None = None
    milestone_targets: dict[str, date] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in DATE_FIELDS:
            _check_date(name, getattr(self, name))
        for gate, target in self.milestone_targets.items():
            if not isinstance(gate, str):
                raise TypeError(f"milestone target key {gate!r} must be a string")
            _check_date(f"milestone_targets[{gate!r}]", target)

    @classmethod
    def from_iso(cls, data: Mapping[str, Any]) -> PlannedDates:
        """From the ISO-string dict workflows carry; None or "" means unknown."""
        unknown = set(data) - {*DATE_FIELDS, "milestone_targets"}
        if unknown:
            raise ValueError(f"unknown planned-date keys: {', '.join(sorted(unknown))}")
        targets_raw = data.get("milestone_targets") or {}
        if not isinstance(targets_raw, Mapping):
            raise ValueError("milestone_targets must be an object of gate -> ISO date")
        targets: dict[str, date] = {}
        for gate, value in targets_raw.items():
            parsed = _parse_iso(f"milestone_targets[{gate!r}]", value)
            if parsed is not None:
                targets[str(gate)] = parsed
        dates = {name: _parse_iso(name, data.get(name)) for name in DATE_FIELDS}
        return cls(**dates, milestone_targets=targets)

    def to_iso(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in DATE_FIELDS:
            value = getattr(self, name)
            out[name] = None if value is None else value.isoformat()
        out["milestone_targets"] = {
            gate: self.milestone_targets[gate].isoformat()
            for gate in sorted(self.milestone_targets)
        }
        return out


# ------------------------------------------------------------------------------ output


@dataclass(frozen=True)
class DueItem:
    """Something the applicant must do by ``due`` (and not before ``window_start``)."""

    condition_number: str
    code: str | None
    rule_key: str
    due: date
    window_start: date | None
    remind_on: tuple[date, ...]
    description: str
    citation: str

    def to_iso(self) -> dict[str, Any]:
        return {
            "condition_number": self.condition_number,
            "code": self.code,
            "rule_key": self.rule_key,
            "due": self.due.isoformat(),
            "window_start": None if self.window_start is None else self.window_start.isoformat(),
            "remind_on": [d.isoformat() for d in self.remind_on],
            "description": self.description,
            "citation": self.citation,
        }


@dataclass(frozen=True)
class WindowConflict:
    """A planned date that breaks a window, or a planned date still needed to compute one."""

    condition_number: str
    rule_key: str
    message: str

    def to_iso(self) -> dict[str, str]:
        return {
            "condition_number": self.condition_number,
            "rule_key": self.rule_key,
            "message": self.message,
        }


# ----------------------------------------------------------------------------- seasons


@dataclass(frozen=True, slots=True)
class MonthDay:
    month: int
    day: int

    @classmethod
    def parse(cls, text: object, where: str) -> MonthDay:
        match = _MONTH_DAY.match(text) if isinstance(text, str) else None
        if match is None:
            raise WindowDataError(f"{where}: expected 'MM-DD', got {text!r}")
        month, day = int(match.group(1)), int(match.group(2))
        try:
            date(2000, month, day)  # a leap year, so 02-29 is accepted
        except ValueError as exc:
            raise WindowDataError(f"{where}: no such month-day {text!r}") from exc
        return cls(month, day)

    def _is_leap_day_in_common_year(self, year: int) -> bool:
        return (self.month, self.day) == (2, 29) and not _is_leap(year)

    def as_start(self, year: int) -> date:
        """This month-day as the first day of a range in ``year`` (Feb 29 -> Mar 1)."""
        if self._is_leap_day_in_common_year(year):
            return date(year, 3, 1)
        return date(year, self.month, self.day)

    def as_end(self, year: int) -> date:
        """This month-day as the last day of a range in ``year`` (Feb 29 -> Feb 28)."""
        if self._is_leap_day_in_common_year(year):
            return date(year, 2, 28)
        return date(year, self.month, self.day)

    def label(self) -> str:
        return f"{self.month:02d}-{self.day:02d}"


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@dataclass(frozen=True, slots=True)
class Season:
    """An inclusive month-day range recurring every year; wraps when start > end."""

    start: MonthDay
    end: MonthDay

    @property
    def wraps(self) -> bool:
        return (self.start.month, self.start.day) > (self.end.month, self.end.day)

    def starting_in(self, year: int) -> tuple[date, date]:
        """The occurrence that starts in ``year`` (ending in ``year + 1`` if it wraps)."""
        return self.start.as_start(year), self.end.as_end(year + 1 if self.wraps else year)

    def overlapping(self, first: date, last: date) -> list[tuple[date, date]]:
        """Occurrences intersecting ``[first, last]``, earliest first."""
        found = []
        # A wrapping occurrence that starts the year before can reach into first.year.
        for year in range(max(first.year - 1, MINYEAR), last.year + 1):
            start, end = self.starting_in(year)
            if start <= last and end >= first and start <= end:
                found.append((start, end))
        return found

    def contains(self, day: date) -> bool:
        return bool(self.overlapping(day, day))


def _in_any(day: date, seasons: Sequence[Season]) -> bool:
    return any(season.contains(day) for season in seasons)


def _overlaps(first: date, last: date, seasons: Sequence[Season]) -> list[tuple[date, date]]:
    found = [occ for season in seasons for occ in season.overlapping(first, last)]
    return sorted(found)


def _next_start_after(day: date, seasons: Sequence[Season]) -> date:
    """The first season start strictly after ``day``."""
    starts = [
        season.starting_in(year)[0]
        for season in seasons
        for year in (day.year, day.year + 1)
        if season.starting_in(year)[0] > day
    ]
    return min(starts)


def minus_months(day: date, months: int) -> date:
    """``day`` moved back ``months`` calendar months, clamped to the month's last day."""
    index = day.year * 12 + (day.month - 1) - months
    year, month0 = divmod(index, 12)
    month = month0 + 1
    return date(year, month, min(day.day, _days_in_month(year, month)))


def _days_in_month(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (date(year, month + 1, 1) - date(year, month, 1)).days


def _days(first: date, last: date) -> Iterable[date]:
    day = first
    while day <= last:
        yield day
        day += _ONE_DAY


# ------------------------------------------------------------------------------- rules

COMPUTATIONS = (
    "pre_activity_survey",
    "in_place_before_season",
    "evidence_freshness",
    "in_place_by_anchor",
    "no_work_days",
)
_COMMON_PLACEHOLDERS = frozenset({"number", "code", "citation", "rule_key"})
# What each computation can put into its message templates.
PLACEHOLDERS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "pre_activity_survey": _COMMON_PLACEHOLDERS
        | {
            "window_start",
            "due",
            "anchor",
            "anchor_label",
            "season_label",
            "first_in_season",
            "span_start",
            "span_end",
            "follow_date",
            "follow_latest",
            "follow_survey_earliest",
            "max_days",
            "blackout_label",
            "allowed_label",
            "earliest_anchor",
            "next_window_start",
        },
        "in_place_before_season": _COMMON_PLACEHOLDERS
        | {
            "due",
            "span_start",
            "span_end",
            "season_start",
            "season_end",
            "season_label",
            "deadline_label",
            "deadline_year",
        },
        "evidence_freshness": _COMMON_PLACEHOLDERS
        | {"due", "earliest", "evidence_date", "gate", "gate_label", "max_age_months"},
        "in_place_by_anchor": _COMMON_PLACEHOLDERS | {"due", "anchor", "response_hours"},
        "no_work_days": _COMMON_PLACEHOLDERS | {"field_label", "date", "reason"},
    }
)


@dataclass(frozen=True)
class Reminders:
    anchor: str  # "window_start" or "due"
    days_before: tuple[int, ...]

    def dates(self, due: date, window_start: date | None) -> tuple[date, ...]:
        base = window_start if self.anchor == "window_start" and window_start else due
        # days_before >= 0 and window_start <= due, so every reminder is <= due.
        return tuple(sorted({base - timedelta(days=n) for n in self.days_before}))


@dataclass(frozen=True)
class SurveyParams:
    anchor: str
    anchor_label: str
    trigger: str  # always | anchor_in_season | work_overlaps_season
    trigger_seasons: tuple[Season, ...]
    trigger_label: str
    trigger_end: str | None
    days_before: int
    last_day_offset: int
    follow_field: str | None
    follow_max_days: int
    blackout: tuple[Season, ...]
    blackout_label: str
    allowed: tuple[Season, ...]
    allowed_label: str


@dataclass(frozen=True)
class SeasonDeadlineParams:
    span_start: str
    span_end: str
    seasons: tuple[Season, ...]
    season_label: str
    deadline: MonthDay
    deadline_label: str


@dataclass(frozen=True)
class FreshnessParams:
    max_age_months: int


@dataclass(frozen=True)
class AnchorParams:
    anchor: str
    days_before: int
    response_hours: int | None


@dataclass(frozen=True)
class NoWorkParams:
    fields: tuple[str, ...]
    closed_weekdays: frozenset[int]
    holiday_state: str | None


Params = SurveyParams | SeasonDeadlineParams | FreshnessParams | AnchorParams | NoWorkParams


@dataclass(frozen=True)
class WindowRule:
    key: str
    source: str
    computation: str
    # Jurisdiction key or rule pack -> its code patterns: a code matches only where defined.
    code_patterns: Mapping[str, tuple[re.Pattern[str], ...]]
    text_patterns: tuple[re.Pattern[str], ...]
    params: Params
    reminders: Reminders
    messages: Mapping[str, str]

    def matches(self, code: str, text: str, scopes: Iterable[str] = ()) -> bool:
        """``code`` and ``text`` as normalised by :func:`_normalise_code` / ``_text``;
        ``scopes`` are the project's jurisdiction key and rule pack, where codes are defined."""
        if code and any(
            p.search(code) for scope in scopes for p in self.code_patterns.get(scope, ())
        ):
            return True
        return bool(self.text_patterns) and all(p.search(text) for p in self.text_patterns)


@dataclass(frozen=True)
class WindowRuleSet:
    rules: tuple[WindowRule, ...]
    citation: str
    citation_without_code: str
    field_labels: Mapping[str, str]
    gate_labels: Mapping[str, str]

    def rule(self, key: str) -> WindowRule:
        for rule in self.rules:
            if rule.key == key:
                return rule
        raise KeyError(f"no window rule {key!r}")

    def cite(self, number: str, code: str | None) -> str:
        if code:
            return self.citation.format(number=number, code=code)
        return self.citation_without_code.format(number=number, code="")

    def field_label(self, name: str) -> str:
        return self.field_labels.get(name, name.replace("_", " "))

    def gate_label(self, gate: str) -> str:
        return self.gate_labels.get(gate, gate.replace("_", " "))


# ------------------------------------------------------------------------ data parsing


def _req(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise WindowDataError(f"{where}: missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise WindowDataError(f"{where}.{key}: expected {kind}, got {value!r}")
    return value


def _opt(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    return _req(obj, key, kind, where) if obj.get(key) is not None else None


def _int(obj: Mapping[str, Any], key: str, low: int, high: int, where: str) -> int:
    value = _req(obj, key, int, where)
    if not low <= value <= high:
        raise WindowDataError(f"{where}.{key}: {value} is outside {low}..{high}")
    return value


def _date_field(value: object, where: str) -> str:
    if value not in DATE_FIELDS:
        raise WindowDataError(f"{where}: {value!r} is not one of {', '.join(DATE_FIELDS)}")
    return str(value)


def _seasons(raw: Any, where: str) -> tuple[Season, ...]:
    if not isinstance(raw, list) or not raw:
        raise WindowDataError(f"{where}: expected a non-empty list of seasons")
    return tuple(
        Season(
            MonthDay.parse(_req(item, "start", str, f"{where}[{i}]"), f"{where}[{i}].start"),
            MonthDay.parse(_req(item, "end", str, f"{where}[{i}]"), f"{where}[{i}].end"),
        )
        for i, item in enumerate(raw)
    )


def _season_block(obj: Mapping[str, Any], key: str, where: str) -> tuple[tuple[Season, ...], str]:
    block = _opt(obj, key, Mapping, where)
    if block is None:
        return (), ""
    return _seasons(block.get("seasons"), f"{where}.{key}.seasons"), _req(
        block, "label", str, f"{where}.{key}"
    )


def _survey_params(p: Mapping[str, Any], where: str) -> tuple[SurveyParams, set[str]]:
    trigger = _req(p, "trigger", Mapping, where)
    kind = _req(trigger, "type", str, f"{where}.trigger")
    needs = {"due", "missing_anchor"}
    seasons: tuple[Season, ...] = ()
    label = ""
    end: str | None = None
    if kind in ("anchor_in_season", "work_overlaps_season"):
        seasons = _seasons(trigger.get("seasons"), f"{where}.trigger.seasons")
        label = _req(trigger, "label", str, f"{where}.trigger")
        if kind == "work_overlaps_season":
            end = _date_field(trigger.get("end"), f"{where}.trigger.end")
            needs |= {"missing_end", "bad_span"}
    elif kind != "always":
        raise WindowDataError(f"{where}.trigger.type: unknown trigger {kind!r}")
    window = _req(p, "window", Mapping, where)
    days_before = _int(window, "days_before", 0, 366, f"{where}.window")
    offset = _int(window, "last_day_offset", 0, days_before, f"{where}.window")
    follow = _opt(p, "follow_up", Mapping, where)
    follow_field = None
    follow_max = 0
    if follow is not None:
        follow_field = _date_field(follow.get("field"), f"{where}.follow_up.field")
        follow_max = _int(follow, "max_days_after_survey", 0, 366, f"{where}.follow_up")
        needs |= {"follow_up_late", "follow_up_early"}
    blackout, blackout_label = _season_block(p, "blackout", where)
    if blackout:
        needs.add("blackout_all")
        # A blackout covering the whole year would leave no survey day at all.
        if all(_in_any(d, blackout) for d in _days(date(2000, 1, 1), date(2001, 12, 31))):
            raise WindowDataError(f"{where}.blackout: covers every day of the year")
    allowed, allowed_label = _season_block(p, "allowed", where)
    if allowed:
        needs.add("outside_allowed")
    params = SurveyParams(
        anchor=_date_field(p.get("anchor"), f"{where}.anchor"),
        anchor_label=_req(p, "anchor_label", str, where),
        trigger=kind,
        trigger_seasons=seasons,
        trigger_label=label,
        trigger_end=end,
        days_before=days_before,
        last_day_offset=offset,
        follow_field=follow_field,
        follow_max_days=follow_max,
        blackout=blackout,
        blackout_label=blackout_label,
        allowed=allowed,
        allowed_label=allowed_label,
    )
    return params, needs


def _season_deadline_params(p: Mapping[str, Any], where: str) -> tuple[Params, set[str]]:
    span = _req(p, "span", Mapping, where)
    params = SeasonDeadlineParams(
        span_start=_date_field(span.get("start"), f"{where}.span.start"),
        span_end=_date_field(span.get("end"), f"{where}.span.end"),
        seasons=_seasons(p.get("seasons"), f"{where}.seasons"),
        season_label=_req(p, "season_label", str, where),
        deadline=MonthDay.parse(p.get("deadline"), f"{where}.deadline"),
        deadline_label=_req(p, "deadline_label", str, where),
    )
    needs = {"due", "due_late_start", "late_start", "missing_start", "missing_end", "bad_span"}
    return params, needs


def _freshness_params(p: Mapping[str, Any], where: str) -> tuple[Params, set[str]]:
    months = _int(p, "max_age_months", 1, 120, where)
    return FreshnessParams(months), {"due", "stale", "missing_target"}


def _anchor_params(p: Mapping[str, Any], where: str) -> tuple[Params, set[str]]:
    hours = _opt(p, "response_hours", int, where)
    params = AnchorParams(
        anchor=_date_field(p.get("anchor"), f"{where}.anchor"),
        days_before=_int(p, "days_before", 0, 366, where),
        response_hours=hours,
    )
    return params, {"due", "missing_anchor"}


def _no_work_params(p: Mapping[str, Any], where: str) -> tuple[Params, set[str]]:
    fields = _req(p, "fields", list, where)
    weekdays = _req(p, "closed_weekdays", list, where)
    if any(not isinstance(w, int) or isinstance(w, bool) or not 0 <= w <= 6 for w in weekdays):
        raise WindowDataError(f"{where}.closed_weekdays: weekdays are 0 (Monday)..6 (Sunday)")
    state = _opt(p, "holiday_state", str, where)
    if state is not None:
        try:
            calendar_for(state)
        except ValueError as exc:
            raise WindowDataError(f"{where}.holiday_state: {exc}") from exc
    params = NoWorkParams(
        fields=tuple(_date_field(f, f"{where}.fields") for f in fields),
        closed_weekdays=frozenset(weekdays),
        holiday_state=state,
    )
    return params, {"closed_day"}


_PARAM_PARSERS: Mapping[str, Callable[[Mapping[str, Any], str], tuple[Params, set[str]]]] = (
    MappingProxyType(
        {
            "pre_activity_survey": _survey_params,
            "in_place_before_season": _season_deadline_params,
            "evidence_freshness": _freshness_params,
            "in_place_by_anchor": _anchor_params,
            "no_work_days": _no_work_params,
        }
    )
)


def _check_template(template: str, allowed: frozenset[str], where: str) -> None:
    try:
        names = {
            re.split(r"[.\[]", name, maxsplit=1)[0]
            for _, name, _, _ in string.Formatter().parse(template)
            if name is not None
        }
    except ValueError as exc:
        raise WindowDataError(f"{where}: bad template: {exc}") from exc
    unknown = names - allowed
    if unknown or "" in names:
        raise WindowDataError(f"{where}: unknown placeholders {sorted(unknown)}")


def _compile(patterns: Any, where: str) -> tuple[re.Pattern[str], ...]:
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise WindowDataError(f"{where}: expected a list of regex strings")
    try:
        return tuple(re.compile(p, re.IGNORECASE) for p in patterns)
    except re.error as exc:
        raise WindowDataError(f"{where}: bad regex: {exc}") from exc


def _parse_rule(raw: Any, where: str) -> WindowRule:
    key = _req(raw, "key", str, where)
    where = f"{where} ({key})"
    computation = _req(raw, "computation", str, where)
    if computation not in _PARAM_PARSERS:
        raise WindowDataError(f"{where}: unknown computation {computation!r}")
    detect = _req(raw, "detect", Mapping, where)
    raw_codes = detect.get("codes", {})
    if isinstance(raw_codes, list) and not raw_codes:
        raw_codes = {}
    if not isinstance(raw_codes, Mapping):
        raise WindowDataError(
            f"{where}.detect.codes: give {{jurisdiction or rule pack: [patterns]}}; a mitigation "
            "code means something only in the document that defines it"
        )
    codes = MappingProxyType(
        {
            str(scope): _compile(patterns, f"{where}.detect.codes.{scope}")
            for scope, patterns in raw_codes.items()
        }
    )
    texts = _compile(detect.get("text_all", []), f"{where}.detect.text_all")
    if not any(codes.values()) and not texts:
        raise WindowDataError(f"{where}.detect: needs codes or text_all")
    params, needs = _PARAM_PARSERS[computation](_req(raw, "params", Mapping, where), where)
    messages = _req(raw, "messages", Mapping, where)
    missing = needs - set(messages)
    if missing:
        raise WindowDataError(f"{where}.messages: missing {', '.join(sorted(missing))}")
    for name, template in messages.items():
        if not isinstance(template, str):
            raise WindowDataError(f"{where}.messages.{name}: expected a string")
        _check_template(template, PLACEHOLDERS[computation], f"{where}.messages.{name}")
    reminders_raw = raw.get("reminders") or {"anchor": "due", "days_before": []}
    anchor = _req(reminders_raw, "anchor", str, f"{where}.reminders")
    if anchor not in ("window_start", "due"):
        raise WindowDataError(f"{where}.reminders.anchor: 'window_start' or 'due', not {anchor!r}")
    days = _req(reminders_raw, "days_before", list, f"{where}.reminders")
    if any(not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 366 for n in days):
        raise WindowDataError(f"{where}.reminders.days_before: whole days 0..366")
    return WindowRule(
        key=key,
        source=str(raw.get("source", "")),
        computation=computation,
        code_patterns=codes,
        text_patterns=texts,
        params=params,
        reminders=Reminders(anchor, tuple(days)),
        messages=MappingProxyType(dict(messages)),
    )


def parse_window_rules(raw: Any) -> WindowRuleSet:
    """Validate and build a rule set from parsed JSON (pure; WindowDataError if bad)."""
    where = "windows"
    rules_raw = _req(raw, "rules", list, where)
    rules = tuple(_parse_rule(r, f"{where}.rules[{i}]") for i, r in enumerate(rules_raw))
    keys = [r.key for r in rules]
    if len(set(keys)) != len(keys):
        raise WindowDataError(f"{where}: duplicate rule keys")
    citation = _req(raw, "citation", str, where)
    without = _req(raw, "citation_without_code", str, where)
    for name, template in (("citation", citation), ("citation_without_code", without)):
        _check_template(template, frozenset({"number", "code"}), f"{where}.{name}")
    labels = raw.get("field_labels") or {}
    gates = raw.get("gate_labels") or {}
    return WindowRuleSet(
        rules=rules,
        citation=citation,
        citation_without_code=without,
        field_labels=MappingProxyType({str(k): str(v) for k, v in labels.items()}),
        gate_labels=MappingProxyType({str(k): str(v) for k, v in gates.items()}),
    )


DEFAULT_RULES = parse_window_rules(json.loads(DATA_FILE.read_text(encoding="utf-8")))


# ------------------------------------------------------------------------- scheduling


def _normalise_code(code: str | None) -> str:
    # "UTI -3" and "uti-3" are the same code.
    return _SPACE.sub("", code or "").upper()


def _sub_texts(items: Sequence[SubItem]) -> Iterable[str]:
    for item in items:
        yield item.text
        yield from _sub_texts(item.sub_items)


def _text(condition: ConditionSpec) -> str:
    # The parser may put a measure's operative words ("A. If construction begins …") in
    # sub-items, so detection reads the condition together with all of them.
    joined = "\n".join([condition.text, *_sub_texts(condition.sub_items)])
    return _SPACE.sub(" ", _DASHES.sub("-", joined))


def _iso(value: date | None) -> str:
    return "" if value is None else value.isoformat()


@dataclass
class _Ctx:
    """Collects one condition x rule's output."""

    rules: WindowRuleSet
    rule: WindowRule
    condition: ConditionSpec
    items: list[DueItem]
    conflicts: list[WindowConflict]

    def _say(self, message: str, values: Mapping[str, object]) -> str:
        filled: dict[str, object] = dict.fromkeys(PLACEHOLDERS[self.rule.computation], "")
        filled.update(
            number=self.condition.number,
            code=self.condition.code or "",
            citation=self.citation,
            rule_key=self.rule.key,
        )
        filled.update({k: _iso(v) if isinstance(v, date) else v for k, v in values.items()})
        return self.rule.messages[message].format_map(filled)

    @property
    def citation(self) -> str:
        return self.rules.cite(self.condition.number, self.condition.code)

    def conflict(self, message: str, **values: object) -> None:
        text = self._say(message, values)
        self.conflicts.append(WindowConflict(self.condition.number, self.rule.key, text))

    def due(self, message: str, due: date, window_start: date | None, **values: object) -> None:
        values = {"due": due, "window_start": window_start, **values}
        self.items.append(
            DueItem(
                condition_number=self.condition.number,
                code=self.condition.code,
                rule_key=self.rule.key,
                due=due,
                window_start=window_start,
                remind_on=self.rule.reminders.dates(due, window_start),
                description=self._say(message, values),
                citation=self.citation,
            )
        )


def _outside(first: date, last: date, blackout: Sequence[Season]) -> tuple[date, date] | None:
    """The latest run of days in ``[first, last]`` outside ``blackout`` (None if none):
    a survey window with the bat hibernation days cut off."""
    while last >= first and _in_any(last, blackout):
        last -= _ONE_DAY
    if last < first:
        return None
    start = last
    while start - _ONE_DAY >= first and not _in_any(start - _ONE_DAY, blackout):
        start -= _ONE_DAY
    return start, last


def _survey(ctx: _Ctx, p: SurveyParams, planned: PlannedDates) -> None:
    anchor = getattr(planned, p.anchor)
    base = {"anchor": anchor, "anchor_label": p.anchor_label, "season_label": p.trigger_label}
    base |= {"blackout_label": p.blackout_label, "allowed_label": p.allowed_label}
    if anchor is None:
        ctx.conflict("missing_anchor", **base)
        return
    base |= {"span_start": anchor, "first_in_season": anchor}
    if p.trigger == "anchor_in_season" and not _in_any(anchor, p.trigger_seasons):
        return  # e.g. construction begins outside the nesting season: nothing is owed
    if p.trigger == "work_overlaps_season":
        end = getattr(planned, p.trigger_end or "")
        base["span_end"] = end
        if end is not None and end < anchor:
            ctx.conflict("bad_span", **base)
            return
        if end is None and not _in_any(anchor, p.trigger_seasons):
            ctx.conflict("missing_end", **base)
            return
        hits = _overlaps(anchor, end or anchor, p.trigger_seasons)
        if not hits:
            return  # no planned work day falls in the season
        base["first_in_season"] = max(anchor, hits[0][0])

    window_start = anchor - timedelta(days=p.days_before)
    last_day = anchor - timedelta(days=p.last_day_offset)
    window = _outside(window_start, last_day, p.blackout)
    if window is not None:
        ctx.due("due", window[1], window[0], **base)
    else:
        first_free = last_day + _ONE_DAY
        while _in_any(first_free, p.blackout):
            first_free += _ONE_DAY
        ctx.conflict(
            "blackout_all",
            **base,
            window_start=window_start,
            due=last_day,
            earliest_anchor=first_free + timedelta(days=p.last_day_offset),
        )
    if p.allowed and not _in_any(anchor, p.allowed):
        ctx.conflict(
            "outside_allowed", **base, next_window_start=_next_start_after(anchor, p.allowed)
        )
    if p.follow_field is not None:
        follow = getattr(planned, p.follow_field)
        latest_survey = anchor - timedelta(days=p.last_day_offset)
        if follow is not None and follow < anchor:
            ctx.conflict("follow_up_early", **base, follow_date=follow)
        elif follow is not None and follow > latest_survey + timedelta(days=p.follow_max_days):
            ctx.conflict(
                "follow_up_late",
                **base,
                due=latest_survey,
                follow_date=follow,
                max_days=p.follow_max_days,
                follow_latest=latest_survey + timedelta(days=p.follow_max_days),
                follow_survey_earliest=follow - timedelta(days=p.follow_max_days),
            )


def _season_deadline(ctx: _Ctx, p: SeasonDeadlineParams, planned: PlannedDates) -> None:
    start = getattr(planned, p.span_start)
    end = getattr(planned, p.span_end)
    base = {"span_start": start, "span_end": end, "season_label": p.season_label}
    base |= {"deadline_label": p.deadline_label}
    if start is None:
        ctx.conflict("missing_start", **base)
        return
    if end is not None and end < start:
        ctx.conflict("bad_span", **base)
        return
    if end is None:
        if not _in_any(start, p.seasons):
            ctx.conflict("missing_end", **base)
            return
        base["span_end"] = "(end date not set)"
    for season_start, season_end in _overlaps(start, end or start, p.seasons):
        # The deadline is the last occurrence of its month-day on or before the season
        # starts (October 1 before an October 15 season start).
        deadline = p.deadline.as_start(season_start.year)
        if deadline > season_start:
            deadline = p.deadline.as_start(season_start.year - 1)
        values = {**base, "season_start": season_start, "season_end": season_end}
        values["deadline_year"] = deadline.year
        if start > deadline:
            due = start - _ONE_DAY
            ctx.due("due_late_start", due, None, **values)
            ctx.conflict("late_start", **values, due=due)
        else:
            ctx.due("due", deadline - _ONE_DAY, None, **values)


def _freshness(
    ctx: _Ctx, p: FreshnessParams, planned: PlannedDates, evidence: Mapping[str, date]
) -> None:
    gates = [g for g in ctx.condition.gates if g] or ["unspecified"]
    targets = sorted(
        (planned.milestone_targets[g], g) for g in gates if g in planned.milestone_targets
    )
    if not targets:
        label = " or ".join(ctx.rules.gate_label(g) for g in gates)
        ctx.conflict("missing_target", gate_label=label, max_age_months=p.max_age_months)
        return
    # Several gates: the evidence must be fresh at whichever comes first.
    target, gate = targets[0]
    earliest = minus_months(target, p.max_age_months)
    values = {"gate": gate, "gate_label": ctx.rules.gate_label(gate), "earliest": earliest}
    values["max_age_months"] = p.max_age_months
    on_file = evidence.get(ctx.condition.number)
    if on_file is not None:
        _check_date(f"evidence_dates[{ctx.condition.number!r}]", on_file)
    if on_file is None:
        ctx.due("due", target, earliest, **values)
    elif on_file < earliest:
        ctx.due("stale", target, earliest, **values, evidence_date=on_file)


def _by_anchor(ctx: _Ctx, p: AnchorParams, planned: PlannedDates) -> None:
    anchor = getattr(planned, p.anchor)
    hours = "" if p.response_hours is None else p.response_hours
    if anchor is None:
        ctx.conflict("missing_anchor", response_hours=hours)
        return
    due = anchor - timedelta(days=p.days_before)
    ctx.due("due", due, None, anchor=anchor, response_hours=hours)


def _no_work(ctx: _Ctx, p: NoWorkParams, planned: PlannedDates) -> None:
    calendar = calendar_for(p.holiday_state) if p.holiday_state else None
    for name in p.fields:
        day = getattr(planned, name)
        if day is None:
            continue  # the other rules already ask for the dates they need
        reason = None
        if day.weekday() in p.closed_weekdays:
            reason = _WEEKDAYS[day.weekday()]
        elif calendar is not None:
            # Actual and observed days both count: the condition says "holidays".
            holiday = calendar.holidays_in(day.year).get(day)
            reason = None if holiday is None else f"holiday ({holiday})"
        if reason is not None:
            ctx.conflict(
                "closed_day", field_label=ctx.rules.field_label(name), date=day, reason=reason
            )


def schedule(
    conditions: Sequence[ConditionSpec],
    planned: PlannedDates,
    evidence_dates: Mapping[str, date] = _EMPTY_EVIDENCE,
    *,
    rules: WindowRuleSet = DEFAULT_RULES,
    jurisdiction: str | Iterable[str] = (),
) -> tuple[list[DueItem], list[WindowConflict]]:
    """Due items (sorted by due date) and conflicts for every condition a window rule
    matches. ``evidence_dates`` maps a condition number to the date of the evidence on
    file (e.g. the preliminary title report's date for #7). ``jurisdiction`` is the
    project's jurisdiction key (and rule pack, if any): mitigation codes match only there;
    elsewhere a rule matches by the condition's text."""
    scopes = (jurisdiction,) if isinstance(jurisdiction, str) else tuple(jurisdiction)
    items: list[DueItem] = []
    conflicts: list[WindowConflict] = []
    for condition in conditions:
        code, text = _normalise_code(condition.code), _text(condition)
        for rule in rules.rules:
            if not rule.matches(code, text, scopes):
                continue
            ctx = _Ctx(rules, rule, condition, items, conflicts)
            p = rule.params
            if isinstance(p, SurveyParams):
                _survey(ctx, p, planned)
            elif isinstance(p, SeasonDeadlineParams):
                _season_deadline(ctx, p, planned)
            elif isinstance(p, FreshnessParams):
                _freshness(ctx, p, planned, evidence_dates)
            elif isinstance(p, AnchorParams):
                _by_anchor(ctx, p, planned)
            else:
                _no_work(ctx, p, planned)
    items.sort(key=lambda item: item.due)  # stable: equal dates keep condition order
    return items, conflicts


def response_deadline(
    received: datetime,
    rule_key: str = "dust_complaint_response",
    *,
    rules: WindowRuleSet = DEFAULT_RULES,
) -> datetime:
    """When a complaint received at ``received`` must have been answered (AQ-1 H: 48
    hours). Elapsed hours: an aware datetime is counted in UTC, so a daylight-saving
    change does not add or remove an hour; a naive one is taken as is."""
    params = rules.rule(rule_key).params
    if not isinstance(params, AnchorParams) or params.response_hours is None:
        raise ValueError(f"window rule {rule_key!r} has no response_hours")
    hours = timedelta(hours=params.response_hours)
    if received.tzinfo is None:
        return received + hours
    return (received.astimezone(UTC) + hours).astimezone(received.tzinfo)
