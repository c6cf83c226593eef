"""What a caseload file will create, checked whole before anything is started
(docs/onboarding.md): each clock's workflow input with its past events, and its dates as
the pure rules core computes them today.

Every event is checked as if it were recorded live, one after the other, by the same
rules the workflows' validators apply (`check_new_event` of the shot clock, `plan_open`
of the permit clocks), against the calendar the clock freezes; so a file the plan accepts
opens clocks whose ledgers are what live recording would have made. Alerts that were due
before today are planned as skipped (and an already-closed clock's escalation with them):
an imported clock sends no reminder or letter about its past.

Projects are in actions/caseload_projects.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

import pendulum

from actions.caseload_files import EVENT_SLOTS, RowError, Sheet
from actions.cities import Cities
from actions.errors import ActionFailed
from actions.permit_clock_requests import OpenPermitClock
from actions.permit_clocks import plan_open
from actions.shot_clock_requests import OpenShotClock
from models.permit_clock import EVENT_FIELDS, PermitClockInput
from models.shot_clock import (
    ApplicationInfo,
    CalendarSnapshot,
    ClockEvent,
    Contacts,
    NoticeItem,
    ShotClockInput,
)
from models.workflow_ids import permit_clock_workflow_id, shot_clock_workflow_id
from rules.access import Principal
from rules.kernel.input import TimelineError, parse_date
from rules.kernel.jurisdictions import Jurisdiction
from rules.shot_clock.checks import ActionRefused, check_new_event
from rules.shot_clock.packs import CATEGORY_KEYS
from rules.shot_clock.timeline import EVENT_TYPES
from workflows.permit_clock_support import PermitClockState
from workflows.shot_clock_support import ClockState, frozen_calendar


class Calendars:
    """Each city's stored closure days and frozen shot-clock calendar, read once per file
    (every clock of a city freezes the same ones)."""

    def __init__(self, closures: Callable[[str], list[tuple[str, str]]]) -> None:
        self._read = closures
        self._closures: dict[str, list[tuple[str, str]]] = {}
        self._shot: dict[str, CalendarSnapshot] = {}

    def closures(self, key: str) -> list[tuple[str, str]]:
        if key not in self._closures:
            self._closures[key] = self._read(key)
        return self._closures[key]

    def shot_calendar(self, city: Jurisdiction) -> CalendarSnapshot:
        if city.key not in self._shot:
            self._shot[city.key] = frozen_calendar(city, self.closures(city.key))
        return replace(self._shot[city.key])


@dataclass
class PlannedItem:
    """One workflow the import starts, from one or more rows."""

    kind: str  # wireless | permits | projects
    key: str  # the application, clock or project id (its workflow id follows from it)
    rows: list[int]
    workflow: str  # the workflow type
    workflow_id: str
    input: Any
    preview: dict[str, Any] = field(default_factory=dict)


@dataclass
class CaseloadPlan:
    kind: str
    filename: str
    items: list[PlannedItem] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def error_lines(self) -> list[str]:
        return [e.line() for e in self.errors]


def plan_caseload(
    sheet: Sheet,
    who: Principal,
    cities: Cities,
    closures: Callable[[str], list[tuple[str, str]]],
    now: datetime,
) -> CaseloadPlan:
    """The whole file checked: every row's errors, or every workflow it will start."""
    plan = CaseloadPlan(sheet.kind, sheet.filename, errors=list(sheet.errors))
    calendars = Calendars(closures)
    if sheet.kind == "projects":
        from actions.caseload_projects import plan_projects

        plan_projects(sheet, plan, who, cities, now)
    else:
        seen: dict[str, int] = {}
        key_column = "application_id" if sheet.kind == "wireless" else "clock_id"
        row_plan = _wireless_row if sheet.kind == "wireless" else _permit_row
        for number, row in sheet.rows:
            key = row.get(key_column, "")
            if key and key in seen:
                plan.errors.append(
                    RowError(number, key_column, f"{key} is also on row {seen[key]}")
                )
                continue
            if key:
                seen[key] = number
            try:
                plan.items.append(row_plan(number, row, who, cities, calendars, now))
            except RowRefused as err:
                plan.errors.append(err.error)
    plan.errors.sort(key=lambda e: (e.row, e.column))
    if plan.errors:
        plan.items = []  # nothing is started from a file with an error
    return plan


class RowRefused(Exception):
    def __init__(self, row: int, column: str, message: str) -> None:
        super().__init__(message)
        self.error = RowError(row, column, message)


def refused_field(number: int, err: ActionFailed, columns: set[str]) -> RowRefused:
    """An action's refusal ("field: why") as the row's error in that column."""
    name, _, rest = err.message.partition(": ")
    if name in columns and rest:
        return RowRefused(number, name, rest)
    return RowRefused(number, "", err.message)


def city_of(number: int, row: dict[str, str], cities: Cities) -> Jurisdiction:
    try:
        return cities.get(row.get("jurisdiction", ""))
    except ActionFailed as err:
        raise RowRefused(
            number, "jurisdiction", err.message.removeprefix("jurisdiction: ")
        ) from None


def row_date(number: int, column: str, text: str) -> str:
    try:
        return parse_date(text, column).isoformat()
    except TimelineError:
        raise RowRefused(number, column, f"{text!r} is not a date (YYYY-MM-DD)") from None


def events_of(number: int, row: dict[str, str]) -> list[tuple[int, str, str, str]]:
    """(slot, type, date, details) of each filled event slot, in order and dated in order."""
    out: list[tuple[int, str, str, str]] = []
    ended = 0
    for n in range(1, EVENT_SLOTS + 1):
        kind, when = row.get(f"event_{n}", ""), row.get(f"date_{n}", "")
        details = row.get(f"details_{n}", "")
        if not (kind or when or details):
            ended = ended or n
            continue
        if ended:
            raise RowRefused(number, f"event_{ended}", "empty, but a later event is filled")
        if not kind:
            raise RowRefused(number, f"event_{n}", "give the event (its date is filled)")
        if not when:
            raise RowRefused(number, f"date_{n}", f"give the date of the {kind}")
        day = row_date(number, f"date_{n}", when)
        if out and day < out[-1][2]:
            raise RowRefused(
                number,
                f"date_{n}",
                f"{kind} on {day} is before the {out[-1][1]} of {out[-1][2]} (event_{n - 1}): "
                "list the events in the order they happened",
            )
        out.append((n, kind, day, details))
    if not out:
        raise RowRefused(number, "event_1", "give the event that started the clock")
    return out


def pairs(number: int, column: str, text: str, allowed: tuple[str, ...] | None) -> dict[str, str]:
    """The `name=value; ...` pairs of a details or facts cell (`allowed`: the names it
    may use; None: any)."""
    out: dict[str, str] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise RowRefused(number, column, f"{part!r} is not name=value")
        if allowed is not None and key not in allowed:
            raise RowRefused(
                number, column, f"{key!r} is not one of {', '.join(allowed) or '(none)'}"
            )
        out[key] = value.strip()
    return out


# -- wireless applications -------------------------------------------------------------------

_SHOT_CLOCK_DETAILS = {
    "tolling_agreement": ("days", "new_date"),
    "decision": ("outcome",),
}
_OPENING = ("pre_application", "submitted")


def _wireless_row(
    number: int,
    row: dict[str, str],
    who: Principal,
    cities: Cities,
    calendars: Calendars,
    now: datetime,
) -> PlannedItem:
    city = city_of(number, row, cities)
    category = row.get("category", "")
    if category and category not in CATEGORY_KEYS:
        raise RowRefused(
            number, "category", f"{category!r} is not one of {', '.join(CATEGORY_KEYS)}"
        )
    if not category:
        raise RowRefused(number, "category", f"give one of {', '.join(CATEGORY_KEYS)}")
    try:
        request = OpenShotClock.from_fields(
            {**row, "planner_email": row.get("planner_email") or city.planner_email or who.email}
        )
    except ActionFailed as err:
        raise refused_field(number, err, set(row)) from None
    today = today_in(city, now)
    events = [
        _shot_event(number, slot, kind, day, details, who)
        for slot, kind, day, details in events_of(number, row)
    ]
    kinds = [e.type for e in events[:2]]
    starts = kinds if kinds == ["pre_application", "submitted"] else kinds[:1]
    if starts not in (["submitted"], ["pre_application", "submitted"]):
        raise RowRefused(
            number, "event_1", "the first event is submitted (after a pre_application, if any)"
        )
    calendar = calendars.shot_calendar(city)
    info = ApplicationInfo(
        application_id=request.application_id,
        category=category,
        batch=[],
        site_address=request.site_address,
        description=request.description,
        calendar=calendar,
        contacts=Contacts(
            planner_email=request.planner_email,
            supervisor_email=city.supervisor_email,
            attorney_email=city.attorney_email,
            applicant_email=request.applicant_email,
            applicant_name=request.applicant_name,
        ),
        reminder_offsets=list(city.reminder_offsets),
    )
    opening = events[: len(starts)]
    state = ClockState(ShotClockInput(application=info, events=list(opening)))
    if opening[-1].date > today.isoformat():
        raise RowRefused(
            number, "date_1", f"{opening[-1].date} is in the future (today is {today})"
        )
    pack, layers = state.frozen()
    for slot, event in enumerate(events[len(starts) :], start=len(starts) + 1):
        try:
            check_new_event(
                state.base_timeline(), event.to_contract(), today, pack=pack, calendar=layers
            )
        except (ActionRefused, TimelineError) as refused:
            raise RowRefused(number, f"event_{slot}", f"{event.type}: {refused}") from None
        state.append(event)
    try:
        return _shot_item(number, info, events, state, now)
    except (TimelineError, ValueError) as err:  # the rules core's own words
        raise RowRefused(number, "", str(err)) from None


def _shot_event(
    number: int, slot: int, kind: str, day: str, details: str, who: Principal
) -> ClockEvent:
    column = f"details_{slot}"
    if kind not in EVENT_TYPES:
        raise RowRefused(
            number, f"event_{slot}", f"{kind!r} is not one of {', '.join(EVENT_TYPES)}"
        )
    event = ClockEvent(kind, day, recorded_by=who.email, note="imported")
    if kind == "incomplete_notice":
        event.items = _items(number, column, details)
        return event
    given = pairs(number, column, details, _SHOT_CLOCK_DETAILS.get(kind, ()))
    if "days" in given:
        if not given["days"].isdigit():
            raise RowRefused(number, column, f"days: {given['days']!r} is not a whole number")
        event.days = int(given["days"])
    if "new_date" in given:
        event.new_date = row_date(number, column, given["new_date"])
    if kind == "tolling_agreement" and event.days is None and event.new_date is None:
        raise RowRefused(number, column, "a tolling agreement gives days=N or new_date=YYYY-MM-DD")
    if kind == "decision":
        event.outcome = given.get("outcome") or None
        if event.outcome is None:
            raise RowRefused(number, column, "a decision gives outcome=approved or denied")
    return event


def _items(number: int, column: str, text: str) -> list[NoticeItem]:
    """The items of a notice of incompleteness: `id | what is missing | the rule
    requiring it`, separated by `;`."""
    items = []
    for part in (p.strip() for p in re.split(r";|\n", text)):
        if not part:
            continue
        bits = [b.strip() for b in part.split("|")]
        if len(bits) != 3 or not all(bits):
            raise RowRefused(
                number, column, f"{part!r}: give each item as id | what is missing | its rule"
            )
        items.append(NoticeItem(bits[0], bits[1], bits[2]))
    if not items:
        raise RowRefused(number, column, "a notice of incompleteness lists its items")
    return items


def _shot_item(
    number: int,
    info: ApplicationInfo,
    events: list[ClockEvent],
    state: ClockState,
    now: datetime,
) -> PlannedItem:
    clock = state.clock(now)
    skipped = sorted(a.key for a in state.alerts(clock) if a.fire_at <= now)
    notice = state.status_notice(clock, conservative=True)
    if notice is not None:  # the attorney's notice of a status reached before the import
        skipped.append(notice[0])
    for event in events:
        event.event_id = ""
    return PlannedItem(
        kind="wireless",
        key=info.application_id,
        rows=[number],
        workflow="ShotClockWorkflow",
        workflow_id=shot_clock_workflow_id(info.application_id),
        input=ShotClockInput(application=info, events=events, skipped_alert_keys=skipped),
        preview={
            "events": [f"{e.type} {e.date}" for e in events],
            "status": clock.get("conservative_status") or clock["status"],
            "dates": {
                "shot_clock_date": clock.get("shot_clock_date"),
                "conservative_date": clock.get("conservative_date"),
            },
            "skipped_alerts": len(skipped),
        },
    )


# -- permit clocks ---------------------------------------------------------------------------

_INT_FIELDS = ("days", "months", "units_change_pct", "area_change_pct")


def _permit_row(
    number: int,
    row: dict[str, str],
    who: Principal,
    cities: Cities,
    calendars: Calendars,
    now: datetime,
) -> PlannedItem:
    city = city_of(number, row, cities)
    today = today_in(city, now)
    raw_events = []
    for slot, kind, day, details in events_of(number, row):
        fields: dict[str, Any] = {}
        for name, value in pairs(number, f"details_{slot}", details, EVENT_FIELDS).items():
            fields[name] = _permit_value(number, f"details_{slot}", name, value)
        raw_events.append({"type": kind, "date": day, "note": "imported", **fields})
    facts = {k: _fact(v) for k, v in pairs(number, "facts", row.get("facts", ""), None).items()}
    try:
        request = OpenPermitClock(
            clock_id=row.get("clock_id", ""),
            rule=row.get("rule", ""),
            jurisdiction=city.key,
            events=raw_events,
            facts=facts,
            title=row.get("title", ""),
            site_address=row.get("site_address", ""),
            applicant_name=row.get("applicant_name", ""),
            applicant_email=row.get("applicant_email", ""),
            staff_email=row.get("staff_email", ""),
            project_id=row.get("project_id", ""),
        )
        start = plan_open(who, request, city, today, calendars.closures(city.key))
    except ActionFailed as err:
        raise _permit_refusal(number, err, row) from None
    state = PermitClockState(PermitClockInput(start.info, [_copy_event(e) for e in start.events]))
    clock = state.clock(now)
    start.skipped_alert_keys = sorted(a.key for a in state.alerts(clock, now) if a.fire_at <= now)
    return PlannedItem(
        kind="permits",
        key=request.clock_id,
        rows=[number],
        workflow="PermitClockWorkflow",
        workflow_id=permit_clock_workflow_id(request.clock_id),
        input=start,
        preview={
            "events": [f"{e.type} {e.date}" for e in start.events],
            "status": clock.get("status"),
            "dates": {"due_date": clock.get("due_date")},
            "skipped_alerts": len(start.skipped_alert_keys),
        },
    )


def _fact(value: str) -> Any:
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _permit_value(number: int, column: str, name: str, value: str) -> Any:
    if name in _INT_FIELDS:
        if not re.fullmatch(r"-?\d+", value):
            raise RowRefused(number, column, f"{name}: {value!r} is not a whole number")
        return int(value)
    if name == "qualifying":
        return value.lower() in ("true", "yes", "1")
    if name == "items":
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


def _permit_refusal(number: int, err: ActionFailed, row: dict[str, str]) -> RowRefused:
    match = re.match(r"^events\[(\d+)\](?:\.(\w+))?(?: \([^)]*\))?: (.*)$", err.message)
    if match:
        slot = int(match.group(1)) + 1
        why = match.group(3).removesuffix("; nothing was recorded")
        column = f"date_{slot}" if match.group(2) == "date" else f"event_{slot}"
        if why.split(":")[0] in EVENT_FIELDS:
            column = f"details_{slot}"
        return RowRefused(number, column, why)
    if err.message.startswith(("unknown rule", "rule")) or "rule" in err.message.split(":")[0]:
        return RowRefused(number, "rule", err.message.removeprefix("rule: "))
    return refused_field(number, err, set(row) | {"facts"})


def _copy_event(event: Any) -> Any:
    from dataclasses import replace

    return replace(event, fields=dict(event.fields))


def today_in(city: Jurisdiction, now: datetime) -> date:
    """Today where the city is: the day a past event is judged against."""
    return pendulum.instance(now).in_timezone(city.time_zone).date()
