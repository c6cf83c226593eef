"""The permit-clock compute contract's input (permit-clocks.md §4): parse and check.

Every error names the field in one line (`events[2].days: must be a positive whole
number`), so `clearance clock compute`, the workflow's update validators and the web
forms can show it to a planner as is. Nothing here reads files at call time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from types import MappingProxyType
from typing import Any

from rules.kernel.calendars import CalendarLayers
from rules.kernel.holidays import HolidayDataError
from rules.kernel.input import Item, TimelineError, parse_date, parse_items
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.jurisdictions import (
    base_layers,
    permit_calendar,
    permit_jurisdiction,
    place_from_dict,
)
from rules.permit_clocks.packs import PERMIT_PACKS, PERMIT_RULES, Rule, rules_of

TOP_LEVEL_FIELDS = frozenset(
    {
        "rule",
        "jurisdiction",
        # A city an administrator made: its state, permit pack and local facts as frozen
        # when the clock opened (the files do not know it).
        "jurisdiction_facts",
        "calendar",
        "calendar_snapshot",
        "facts",
        "events",
        "as_of",
        "rule_version",
    }
)
COMMON_EVENT_FIELDS = frozenset({"type", "date", "note", "id"})
# Fields an event type may carry beyond the common ones (§4).
EVENT_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "incomplete_notice": frozenset({"items"}),
        "decision": frozenset({"outcome"}),
        "ceqa": frozenset({"document"}),
        "extension_agreed": frozenset({"days", "months"}),
        "extension_granted": frozenset({"days", "months"}),
        "paused": frozenset({"reason"}),
        "companion_expiry": frozenset({"until"}),
        "inspection": frozenset({"result", "qualifying"}),
        "project_changed": frozenset({"units_change_pct", "area_change_pct"}),
        "statutory_extension": frozenset({"months", "citation"}),
        "consultation_extended": frozenset({"days"}),
    }
)
_ALLOWED: Mapping[str, frozenset[str]] = MappingProxyType(
    {kind: COMMON_EVENT_FIELDS | extra for kind, extra in EVENT_FIELDS.items()}
)
CEQA_DOCUMENTS = (
    "exempt",
    "negative_declaration",
    "eir",
    "eir_housing",
    "eir_affordable",
    "exempt_21080_66",
)
OUTCOMES = ("approved", "approved_with_conditions", "denied", "comments")
INSPECTION_RESULTS = ("approved", "partial", "failed")
MAX_EXTENSION_DAYS = 3650
MAX_EXTENSION_MONTHS = 120
MAX_EVENTS = 10_000


class PermitClockError(TimelineError):
    """Invalid permit-clock input; the message names the field and what is wrong."""


@dataclass(frozen=True)
class PermitEvent:
    """One recorded event; `index` is its position in the input (for messages)."""

    index: int
    type: str
    date: date
    items: tuple[Item, ...] = ()
    outcome: str | None = None
    document: str | None = None
    days: int | None = None
    months: int | None = None
    reason: str | None = None
    until: dt.date | None = None
    result: str | None = None
    qualifying: bool | None = None
    units_change_pct: float | None = None
    area_change_pct: float | None = None
    citation: str | None = None

    def field(self, name: str) -> Any:
        return getattr(self, name, None)

    @property
    def where(self) -> str:
        return f"events[{self.index}]"


@dataclass(frozen=True)
class PermitRequest:
    rule: Rule
    jurisdiction: str | None
    calendar: PermitCalendar
    facts: Mapping[str, Any]
    events: tuple[PermitEvent, ...]
    as_of: date | None
    rule_version: str | None


def _date(value: Any, field: str) -> date:
    # The shot clock's date check: ISO form, a real calendar day, 1990-2199 (§8.8).
    if type(value) is str:
        known = _good_dates.get(value)
        if known is not None:
            return known
    try:
        when = parse_date(value, field)
    except TimelineError as err:
        raise PermitClockError(str(err)) from None
    if len(_good_dates) > 65_536:
        _good_dates.clear()
    _good_dates[value] = when
    return when


# Valid date strings already checked: a workflow recomputes the same timeline often.
_good_dates: dict[str, date] = {}


def _whole(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PermitClockError(f"{field}: must be a whole number, not {value!r}")
    if not low <= value <= high:
        if value <= 0 and low > 0:
            raise PermitClockError(f"{field}: must be a positive whole number, not {value}")
        raise PermitClockError(f"{field}: {value} is outside {low}..{high}")
    return value


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise PermitClockError(f"{field}: must be a string")
    return value


def _choice(value: Any, field: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise PermitClockError(f"{field}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


def _items(raw: Any, field: str) -> tuple[Item, ...]:
    return parse_items(raw, field, error=PermitClockError, limit=None)


def _pct(raw: Mapping[str, Any], key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise PermitClockError(f"{where}.{key}: must be a number")
    # Signed: a reduction is negative (-25 is a change of 25 percent, Gov. Code 65941.1).
    if not -100 <= value <= 100_000:
        raise PermitClockError(f"{where}.{key}: {value} is outside -100..100000 (percent)")
    return float(value)


def parse_event(raw: Any, index: int, known: frozenset[str], rule: Rule) -> PermitEvent:
    """One event, checked against the event types the rule (and its chain) take."""
    where = f"events[{index}]"
    kind = _event_type(raw, where, known, rule)
    when = _date(raw["date"], f"{where}.date")
    if len(raw) == 2 and kind not in EVENT_FIELDS:
        return PermitEvent(index, kind, when)  # type and date only: the common case
    values: dict[str, Any] = {"index": index, "type": kind, "date": when}
    _shared_fields(raw, kind, where, values)
    _own_fields(raw, kind, where, values)
    return PermitEvent(**values)


def _event_type(raw: Any, where: str, known: frozenset[str], rule: Rule) -> str:
    """An event's type, once its fields are ones that type takes and it has a date."""
    if not isinstance(raw, dict):
        raise PermitClockError(f"{where}: an event is a JSON object")
    kind = raw.get("type")
    if kind is None:
        raise PermitClockError(f"{where}.type: missing")
    if not isinstance(kind, str) or kind not in known:
        raise PermitClockError(
            f"{where}.type: {rule.id} does not take the event {kind!r} "
            f"(it takes: {', '.join(sorted(known))})"
        )
    allowed = _ALLOWED.get(kind, COMMON_EVENT_FIELDS)
    if not raw.keys() <= allowed:
        name = sorted(set(raw) - allowed)[0]
        raise PermitClockError(f"{where}.{name}: a {kind} event has no field {name!r}")
    if "date" not in raw:
        raise PermitClockError(f"{where}.date: missing")
    for key in ("note", "id"):
        if key in raw:
            _text(raw[key], f"{where}.{key}")
    return kind


def _shared_fields(raw: Mapping[str, Any], kind: str, where: str, values: dict[str, Any]) -> None:
    """Items, outcome, CEQA document and an extension's days or months."""
    if kind == "incomplete_notice":
        values["items"] = _items(raw.get("items"), f"{where}.items")
    if raw.get("outcome") is not None:
        values["outcome"] = _choice(raw["outcome"], f"{where}.outcome", OUTCOMES)
    if kind == "ceqa":
        if raw.get("document") is None:
            raise PermitClockError(
                f"{where}.document: missing (one of {', '.join(CEQA_DOCUMENTS)})"
            )
        values["document"] = _choice(raw["document"], f"{where}.document", CEQA_DOCUMENTS)
    if raw.get("days") is not None:
        values["days"] = _whole(raw["days"], f"{where}.days", 1, MAX_EXTENSION_DAYS)
    if raw.get("months") is not None:
        values["months"] = _whole(raw["months"], f"{where}.months", 1, MAX_EXTENSION_MONTHS)
    if (
        kind in ("extension_agreed", "extension_granted")
        and "days" in values
        and "months" in values
    ):
        raise PermitClockError(f"{where}: give 'days' or 'months', not both")


def _own_fields(raw: Mapping[str, Any], kind: str, where: str, values: dict[str, Any]) -> None:
    """The fields one event type requires: a pause's reason, a companion permit's
    expiry, an inspection's result, a project change's percentages."""
    if kind == "paused":
        if raw.get("reason") is None:
            raise PermitClockError(f"{where}.reason: missing (why is the clock paused?)")
        values["reason"] = _text(raw["reason"], f"{where}.reason")
    if kind == "companion_expiry":
        if raw.get("until") is None:
            raise PermitClockError(f"{where}.until: missing (the companion permit's expiry)")
        values["until"] = _date(raw["until"], f"{where}.until")
    if kind == "inspection":
        if raw.get("result") is None:
            raise PermitClockError(
                f"{where}.result: missing (one of {', '.join(INSPECTION_RESULTS)})"
            )
        values["result"] = _choice(raw["result"], f"{where}.result", INSPECTION_RESULTS)
        qualifying = raw.get("qualifying", False)
        if not isinstance(qualifying, bool):
            raise PermitClockError(f"{where}.qualifying: must be true or false")
        values["qualifying"] = qualifying
    if kind == "statutory_extension":
        if values.get("months") is None:
            raise PermitClockError(f"{where}.months: missing (how many months the statute adds)")
        citation = raw.get("citation")
        if not isinstance(citation, str) or not citation.strip():
            raise PermitClockError(f"{where}.citation: missing (the statute that extends it)")
        values["citation"] = citation.strip()[:300]
    if kind == "project_changed":
        values["units_change_pct"] = _pct(raw, "units_change_pct", where)
        values["area_change_pct"] = _pct(raw, "area_change_pct", where)
        if values["units_change_pct"] is None and values["area_change_pct"] is None:
            raise PermitClockError(
                f"{where}: a project change gives units_change_pct or area_change_pct"
            )


@cache
def _chain_rules(rule_id: str, version: str) -> tuple[Rule, ...]:
    rules = rules_of(version)
    seen: dict[str, Rule] = {}
    todo = [rules[rule_id]]
    while todo:
        current = todo.pop()
        if current.id in seen:
            continue
        seen[current.id] = current
        todo.extend(rules[c.rule] for c in current.next)
    return tuple(seen.values())


def events_taken(rule: Rule) -> frozenset[str]:
    """Event types a clock of this rule accepts: its own and its chained clocks'."""
    return _events_taken(rule.id, rule.rule_version)


@cache
def _events_taken(rule_id: str, version: str) -> frozenset[str]:
    return frozenset(name for r in _chain_rules(rule_id, version) for name in r.own_events)


def _fact(rule: Rule, name: str, value: Any) -> Any:
    spec = rule.facts[name]
    field = f"facts.{name}"
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise PermitClockError(f"{field}: must be true or false")
        return value
    low = spec.minimum if spec.minimum is not None else 0
    high = spec.maximum if spec.maximum is not None else 10**9
    if isinstance(value, bool) or not isinstance(value, int):
        raise PermitClockError(f"{field}: must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise PermitClockError(f"{field}: {value} is outside {low}..{high} ({spec.label})")
    return value


def parse_facts(rule: Rule, raw: Any, defaults: Mapping[str, Any]) -> Mapping[str, Any]:
    """Facts for the rule and its chain: the request's, else the local pack's, else the
    rule's default. Unknown facts are refused (a typo must not silently change a date)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise PermitClockError("facts: expected an object")
    declared = _declared_facts(rule.id, rule.rule_version)
    unknown = set(raw) - set(declared)
    if unknown:
        name = sorted(unknown)[0]
        known = ", ".join(sorted(declared)) or "none"
        raise PermitClockError(f"facts.{name}: {rule.id} has no fact {name!r} (known: {known})")
    facts: dict[str, Any] = {}
    for name, owner in declared.items():
        if name in raw and raw[name] is not None:
            facts[name] = _fact(owner, name, raw[name])
        elif name in defaults.get(owner.id, {}):
            facts[name] = defaults[owner.id][name]
        elif owner.facts[name].default is not None:
            facts[name] = owner.facts[name].default
    for name, spec in rule.facts.items():
        if spec.required and name not in facts:
            raise PermitClockError(f"facts.{name}: missing ({spec.label}; {rule.id} needs it)")
    return MappingProxyType(facts)


@cache
def _declared_facts(rule_id: str, version: str) -> Mapping[str, Rule]:
    """Fact name -> the rule (of the chain) that declares it; the rule itself wins."""
    chain = _chain_rules(rule_id, version)
    return MappingProxyType({n: r for r in reversed(chain) for n in r.facts})


def _calendar_dates(raw: Any, field: str) -> dict[date, str]:
    if not isinstance(raw, list):
        raise PermitClockError(f"{field}: expected a list of dates")
    out: dict[date, str] = {}
    for i, entry in enumerate(raw):
        where = f"{field}[{i}]"
        if isinstance(entry, dict):
            unknown = set(entry) - {"date", "name", "source"}
            if unknown:
                raise PermitClockError(f"{where}: unknown field '{sorted(unknown)[0]}'")
            when = _date(entry.get("date"), f"{where}.date")
            note = " ".join(
                _text(entry[k], f"{where}.{k}") for k in ("name", "source") if k in entry
            )
        else:
            when, note = _date(entry, where), ""
        out[when] = note
    return out


def parse_request(raw: Any) -> PermitRequest:
    """Validate the contract's input object (already JSON-decoded)."""
    if not isinstance(raw, dict):
        raise PermitClockError("input: expected a JSON object")
    unknown = set(raw) - TOP_LEVEL_FIELDS
    if unknown:
        raise PermitClockError(f"{sorted(unknown)[0]}: unknown field")
    rule_id = raw.get("rule")
    if not isinstance(rule_id, str) or rule_id not in PERMIT_RULES:
        raise PermitClockError(
            f"rule: unknown rule {rule_id!r} (known: {', '.join(sorted(PERMIT_RULES))})"
        )
    version = raw.get("rule_version")
    if version is not None:
        _text(version, "rule_version")
    # A clock opened under an earlier pack version keeps its rules until rebased.
    rule = rules_of(version)[rule_id]
    key = raw.get("jurisdiction")
    defaults = _local_fact_defaults(rule, key, raw.get("jurisdiction_facts"))
    calendar = _request_calendar(raw, key, PERMIT_PACKS[rule.pack].state)
    facts = parse_facts(rule, raw.get("facts"), defaults)
    events = _events(raw.get("events", []), rule)
    as_of = None if raw.get("as_of") is None else _date(raw["as_of"], "as_of")
    if as_of is not None:
        for event in events:
            if event.date > as_of:
                raise PermitClockError(
                    f"{event.where}.date: {event.date.isoformat()} is after as_of "
                    f"{as_of.isoformat()} (an event cannot be recorded before it happens)"
                )
    return PermitRequest(
        rule=rule,
        jurisdiction=key,
        calendar=calendar,
        facts=facts,
        events=events,
        as_of=as_of,
        rule_version=version,
    )


def _local_fact_defaults(
    rule: Rule, key: Any, inline: Any = None
) -> Mapping[str, Mapping[str, Any]]:
    """The jurisdiction's local pack's fact defaults under the city's own local facts,
    once the rule is one that jurisdiction applies (its own local pack, its state's law)."""
    if key is None:
        return {}
    try:
        place = permit_jurisdiction(key) if inline is None else place_from_dict(str(key), inline)
    except ValueError as err:
        raise PermitClockError(f"jurisdiction: {err}") from None
    pack = PERMIT_PACKS[rule.pack]
    if pack.kind == "local" and pack.key != place.permit_pack:
        raise PermitClockError(
            f"rule: {rule.id} is a rule of the {pack.key!r} pack; jurisdiction {key!r} "
            f"uses {place.permit_pack or 'no local pack'}"
        )
    if pack.state is not None and place.state is not None and pack.state != place.state:
        raise PermitClockError(f"rule: {rule.id} is {pack.state} law; {key!r} is in {place.state}")
    defaults = dict(PERMIT_PACKS[place.permit_pack].fact_defaults) if place.permit_pack else {}
    for rule_id, facts in place.fact_defaults.items():
        defaults[rule_id] = {**defaults.get(rule_id, {}), **facts}
    return defaults


def _request_calendar(raw: Mapping[str, Any], key: Any, state: Any) -> PermitCalendar:
    """The request's adopted holidays and closures over the frozen snapshot's layers, or
    over the jurisdiction's (and its state's) base layers."""
    adopted: dict[date, str] = {}
    closures: dict[date, str] = {}
    cal_raw = raw.get("calendar")
    if cal_raw is not None:
        if not isinstance(cal_raw, dict):
            raise PermitClockError("calendar: expected an object with 'adopted' and 'closures'")
        extra = set(cal_raw) - {"adopted", "closures"}
        if extra:
            raise PermitClockError(f"calendar.{sorted(extra)[0]}: unknown field")
        adopted.update(_calendar_dates(cal_raw.get("adopted", []), "calendar.adopted"))
        closures.update(_calendar_dates(cal_raw.get("closures", []), "calendar.closures"))
    snapshot = raw.get("calendar_snapshot")
    if snapshot is not None:
        # The layers a running clock froze when it was opened (shot-clocks.md §8.9).
        try:
            base = CalendarLayers.from_dict(snapshot, "calendar_snapshot")
        except HolidayDataError as err:
            raise PermitClockError(str(err)) from None
    else:
        base = base_layers(key, state)
    return permit_calendar(base, adopted, closures)


def _events(events_raw: Any, rule: Rule) -> tuple[PermitEvent, ...]:
    if not isinstance(events_raw, list):
        raise PermitClockError("events: expected a list of events")
    if len(events_raw) > MAX_EVENTS:
        raise PermitClockError(f"events: more than {MAX_EVENTS} events")
    known = events_taken(rule)
    return tuple(parse_event(e, i, known, rule) for i, e in enumerate(events_raw))
