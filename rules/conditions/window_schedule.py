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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import Any

from models.conditions import ConditionSpec, SubItem
from rules.conditions.planned_dates import PlannedDates, check_date
from rules.conditions.seasons import Season, in_any, minus_months, next_start_after, overlaps
from rules.conditions.window_rules import (
    DEFAULT_RULES,
    PLACEHOLDERS,
    AnchorParams,
    FreshnessParams,
    NoWorkParams,
    SeasonDeadlineParams,
    SurveyParams,
    WindowRule,
    WindowRuleSet,
)
from rules.kernel.calendars import calendar_for

_ONE_DAY = timedelta(days=1)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2212]")
_SPACE = re.compile(r"\s+")
_EMPTY_EVIDENCE: Mapping[str, date] = MappingProxyType({})

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
    while last >= first and in_any(last, blackout):
        last -= _ONE_DAY
    if last < first:
        return None
    start = last
    while start - _ONE_DAY >= first and not in_any(start - _ONE_DAY, blackout):
        start -= _ONE_DAY
    return start, last


def _survey(ctx: _Ctx, p: SurveyParams, planned: PlannedDates) -> None:
    anchor = getattr(planned, p.anchor)
    base: dict[str, object] = {
        "anchor": anchor,
        "anchor_label": p.anchor_label,
        "season_label": p.trigger_label,
    }
    base |= {"blackout_label": p.blackout_label, "allowed_label": p.allowed_label}
    if anchor is None:
        ctx.conflict("missing_anchor", **base)
        return
    base |= {"span_start": anchor, "first_in_season": anchor}
    if not _survey_owed(ctx, p, planned, anchor, base):
        return
    _survey_window(ctx, p, anchor, base)
    if p.allowed and not in_any(anchor, p.allowed):
        ctx.conflict(
            "outside_allowed", **base, next_window_start=next_start_after(anchor, p.allowed)
        )
    if p.follow_field is not None:
        _survey_follow_up(ctx, p, getattr(planned, p.follow_field), anchor, base)


def _survey_owed(
    ctx: _Ctx, p: SurveyParams, planned: PlannedDates, anchor: date, base: dict[str, object]
) -> bool:
    """Whether the survey is owed: always, when the anchor falls in the season, or when the
    planned work touches the season (`base` then gets the span's end and its first day in
    the season). A conflict when the planned dates cannot tell."""
    if p.trigger == "anchor_in_season":
        # e.g. construction begins outside the nesting season: nothing is owed
        return in_any(anchor, p.trigger_seasons)
    if p.trigger != "work_overlaps_season":
        return True
    end = getattr(planned, p.trigger_end or "")
    base["span_end"] = end
    if end is not None and end < anchor:
        ctx.conflict("bad_span", **base)
        return False
    if end is None and not in_any(anchor, p.trigger_seasons):
        ctx.conflict("missing_end", **base)
        return False
    hits = overlaps(anchor, end or anchor, p.trigger_seasons)
    if not hits:
        return False  # no planned work day falls in the season
    base["first_in_season"] = max(anchor, hits[0][0])
    return True


def _survey_window(ctx: _Ctx, p: SurveyParams, anchor: date, base: dict[str, object]) -> None:
    """The survey window before the anchor without the blackout days, or a conflict naming
    the earliest anchor that leaves a survey day when the blackout covers it all."""
    window_start = anchor - timedelta(days=p.days_before)
    last_day = anchor - timedelta(days=p.last_day_offset)
    window = _outside(window_start, last_day, p.blackout)
    if window is not None:
        ctx.due("due", window[1], window[0], **base)
        return
    first_free = last_day + _ONE_DAY
    while in_any(first_free, p.blackout):
        first_free += _ONE_DAY
    ctx.conflict(
        "blackout_all",
        **base,
        window_start=window_start,
        due=last_day,
        earliest_anchor=first_free + timedelta(days=p.last_day_offset),
    )


def _survey_follow_up(
    ctx: _Ctx, p: SurveyParams, follow: date | None, anchor: date, base: dict[str, object]
) -> None:
    """The planned work that must follow the survey (grading within a week of it): not
    before the anchor, nor more than the allowed days after the latest survey day."""
    if follow is None:
        return
    latest_survey = anchor - timedelta(days=p.last_day_offset)
    max_after = timedelta(days=p.follow_max_days)
    if follow < anchor:
        ctx.conflict("follow_up_early", **base, follow_date=follow)
    elif follow > latest_survey + max_after:
        ctx.conflict(
            "follow_up_late",
            **base,
            due=latest_survey,
            follow_date=follow,
            max_days=p.follow_max_days,
            follow_latest=latest_survey + max_after,
            follow_survey_earliest=follow - max_after,
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
        if not in_any(start, p.seasons):
            ctx.conflict("missing_end", **base)
            return
        base["span_end"] = "(end date not set)"
    for season_start, season_end in overlaps(start, end or start, p.seasons):
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
        check_date(f"evidence_dates[{ctx.condition.number!r}]", on_file)
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
