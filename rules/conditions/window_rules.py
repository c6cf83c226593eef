"""Window rules: what each computation takes (its params, reminders and message
templates), and their validation from the data, ``rules/data/windows/default.json``, read
once at import into DEFAULT_RULES."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.conditions.planned_dates import DATE_FIELDS
from rules.conditions.seasons import MonthDay, Season, days, in_any
from rules.kernel.calendars import calendar_for

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "windows" / "default.json"
_MONTH_DAY = re.compile(r"^(\d{2})-(\d{2})$")


class WindowDataError(ValueError):
    """The window rules JSON is malformed (raised at import for the default file)."""


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
        """``code`` and ``text`` as rules.conditions.window_schedule normalises them;
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


def _month_day(text: object, where: str) -> MonthDay:
    match = _MONTH_DAY.match(text) if isinstance(text, str) else None
    if match is None:
        raise WindowDataError(f"{where}: expected 'MM-DD', got {text!r}")
    month, day = int(match.group(1)), int(match.group(2))
    try:
        date(2000, month, day)  # a leap year, so 02-29 is accepted
    except ValueError as exc:
        raise WindowDataError(f"{where}: no such month-day {text!r}") from exc
    return MonthDay(month, day)


def _seasons(raw: Any, where: str) -> tuple[Season, ...]:
    if not isinstance(raw, list) or not raw:
        raise WindowDataError(f"{where}: expected a non-empty list of seasons")
    return tuple(
        Season(
            _month_day(_req(item, "start", str, f"{where}[{i}]"), f"{where}[{i}].start"),
            _month_day(_req(item, "end", str, f"{where}[{i}]"), f"{where}[{i}].end"),
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
        if all(in_any(d, blackout) for d in days(date(2000, 1, 1), date(2001, 12, 31))):
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
        deadline=_month_day(p.get("deadline"), f"{where}.deadline"),
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
