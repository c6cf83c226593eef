"""The shot clock's compute contract: parse and validate a JSON timeline into plain values.

Every error names the field that is wrong, in one line, so `clearance clock compute`
and the workflow validators can show it to a planner as is.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

from rules.kernel.calendars import CalendarLayers, adopted_layer_from_dates, jurisdiction_layers
from rules.kernel.holidays import HolidayRegime, available_states
from rules.kernel.input import MAX_ITEMS, Item, TimelineError, parse_date, parse_items
from rules.kernel.jurisdictions import FEDERAL_PACK, JURISDICTIONS
from rules.shot_clock.packs import RULE_PACKS, RulePack, rule_pack

EVENT_TYPES: tuple[str, ...] = (
    "pre_application",
    "submitted",
    "incomplete_notice",
    "resubmitted",
    "tolling_agreement",
    "decision",
    "withdrawn",
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
    # Recorded so the ledger can say they never toll (47 CFR 1.6100(c)(3)).
    "moratorium",
    "hearing_notice",
    "appeal",
)
OUTCOMES: tuple[str, ...] = ("approved", "approved_with_conditions", "denied")
TOP_LEVEL_FIELDS = frozenset(
    {
        "category",
        "batch",
        "state",
        "local_holidays",
        "adopted_holidays",
        "jurisdiction",
        "events",
        "as_of",
        "rule_pack",
    }
)
# 8.8: dates and day counts a real application can have; anything outside is a typo or
# an attack, refused with the field named rather than overflowing later.
MAX_AGREEMENT_DAYS = 3650
MAX_EVENTS = 100_000
EVENT_FIELDS = frozenset({"type", "date", "items", "days", "new_date", "outcome", "note"})


@dataclass(frozen=True)
class Event:
    type: str
    date: date
    items: tuple[Item, ...] = ()
    days: int | None = None
    new_date: dt.date | None = None
    outcome: str | None = None
    # Position in the input: only two agreements of one date are ordered by it (8.5).
    seq: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Timeline:
    category: str | None
    batch: tuple[str, ...]
    state: str | None
    local_holidays: tuple[date, ...]
    events: tuple[Event, ...]
    as_of: date | None
    rule_pack: str = FEDERAL_PACK
    adopted_holidays: tuple[date, ...] = ()
    jurisdiction: str | None = None
    # Set by a running clock (never from JSON): the rule pack and calendar it froze
    # when it was opened (8.9). None means the current data files.
    pack: RulePack | None = field(default=None, compare=False)
    calendar: CalendarLayers | None = field(default=None, compare=False)


def timeline_layers(t: Timeline) -> CalendarLayers:
    """The calendar layers a timeline counts on: the frozen snapshot of a running clock,
    or the current data (federal, the state's layers, the jurisdiction's adopted
    holidays and closures, the timeline's own adopted holidays and closures)."""
    if t.calendar is not None:
        if not t.local_holidays:
            return t.calendar
        return t.calendar.with_closures((d, "") for d in t.local_holidays)
    return _layers(t.state, t.jurisdiction, t.adopted_holidays, t.local_holidays)


@lru_cache(maxsize=1024)
def _layers(
    state: str | None,
    jurisdiction_key: str | None,
    adopted: tuple[date, ...],
    closures: tuple[date, ...],
) -> CalendarLayers:
    city = JURISDICTIONS[jurisdiction_key] if jurisdiction_key else None
    days = set(closures)
    if city is not None:
        days |= {date.fromisoformat(d) for d in city.local_closures}
    base = jurisdiction_layers(state, city.adopted_holidays if city else None, days)
    if not adopted:
        return base
    extra: HolidayRegime = adopted_layer_from_dates(
        adopted, key="timeline_adopted", source="adopted_holidays in the timeline"
    )
    return CalendarLayers((*base.layers, extra), base.closures)


def _event(raw: Any, i: int) -> Event:
    where = f"events[{i}]"
    kind = _event_type(raw, where)
    unknown = set(raw) - EVENT_FIELDS
    if unknown:
        raise TimelineError(f"{where}: unknown field '{sorted(unknown)[0]}'")
    if "date" not in raw:
        raise TimelineError(f"{where}.date: missing")
    when = parse_date(raw["date"], f"{where}.date")
    items: tuple[Item, ...] = ()
    days: int | None = None
    new_date: date | None = None
    outcome: str | None = None
    if kind == "incomplete_notice":
        items = parse_items(raw.get("items"), f"{where}.items", citation="47 CFR 1.6003(d)")
    elif "items" in raw:
        raise TimelineError(f"{where}.items: only an incomplete_notice lists items")
    if kind == "tolling_agreement":
        days, new_date = _agreement_terms(raw, where, when)
    if kind == "decision":
        outcome = raw.get("outcome")
        if outcome not in OUTCOMES:
            raise TimelineError(f"{where}.outcome: {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return Event(kind, when, items, days, new_date, outcome, i)


def _event_type(raw: Any, where: str) -> str:
    if not isinstance(raw, dict):
        raise TimelineError(f"{where}: an event is a JSON object")
    kind = raw.get("type")
    if kind is None:
        raise TimelineError(f"{where}.type: missing")
    if kind not in EVENT_TYPES:
        raise TimelineError(
            f"{where}.type: unknown event type {kind!r} (known: {', '.join(EVENT_TYPES)})"
        )
    return kind


def _agreement_terms(raw: dict[str, Any], where: str, when: date) -> tuple[int | None, date | None]:
    """A tolling agreement's (days, new_date): it gives exactly one of them."""
    has_days, has_date = raw.get("days") is not None, raw.get("new_date") is not None
    if has_days == has_date:
        raise TimelineError(f"{where}: a tolling agreement gives either 'days' or 'new_date'")
    if has_days:
        value = raw["days"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise TimelineError(f"{where}.days: {value!r} is not a whole number of days")
        if not 0 < value <= MAX_AGREEMENT_DAYS:
            raise TimelineError(
                f"{where}.days: {value} is out of range (1 to {MAX_AGREEMENT_DAYS})"
            )
        return value, None
    new_date = parse_date(raw["new_date"], f"{where}.new_date")
    if new_date < when:
        raise TimelineError(f"{where}.new_date: the agreed date is before the agreement")
    return None, new_date


def parse_timeline(
    raw: Any,
    *,
    pack: RulePack | None = None,
    calendar: CalendarLayers | None = None,
) -> Timeline:
    """Validate the contract's input object and return a Timeline.

    A running clock passes the rule ``pack`` and ``calendar`` it froze when it was
    opened; they replace the current data files (the JSON's ``rule_pack`` must then
    name the same pack)."""
    if not isinstance(raw, dict):
        raise TimelineError("input: expected a JSON object")
    unknown = set(raw) - TOP_LEVEL_FIELDS
    if unknown:
        raise TimelineError(f"{sorted(unknown)[0]}: unknown field")
    city_key = raw.get("jurisdiction")
    if city_key is not None and (not isinstance(city_key, str) or city_key not in JURISDICTIONS):
        raise TimelineError(
            f"jurisdiction: unknown jurisdiction {city_key!r} "
            f"(known: {', '.join(sorted(JURISDICTIONS))})"
        )
    city = JURISDICTIONS[city_key] if city_key else None
    pack_key = raw.get("rule_pack", city.rule_pack if city is not None else FEDERAL_PACK)
    pack = _frozen_pack(pack_key, pack)
    active = pack or rule_pack(pack_key)
    category, batch = _category_or_batch(raw, active)
    state = _state(raw.get("state", city.state if city is not None else None))
    local = _date_list(raw, "local_holidays")
    adopted = _date_list(raw, "adopted_holidays")
    events = _events(raw.get("events", []))
    as_of_raw = raw.get("as_of")
    as_of = None if as_of_raw is None else parse_date(as_of_raw, "as_of")
    if as_of is not None:
        # 8.7: as_of is a point of view; an event after it cannot have happened yet.
        for i, e in enumerate(events):
            if e.date > as_of:
                raise TimelineError(
                    f"events[{i}].date: the {e.type} of {e.date} is after as_of {as_of}"
                )
    return Timeline(
        category=category,
        batch=batch,
        state=state,
        local_holidays=local,
        events=events,
        as_of=as_of,
        rule_pack=pack_key,
        adopted_holidays=adopted,
        jurisdiction=city_key,
        pack=pack,
        calendar=calendar,
    )


def _frozen_pack(pack_key: Any, frozen: RulePack | None) -> RulePack | None:
    """The running clock's frozen pack if the input names it; else None (the current data
    files), once the input's pack is known to exist."""
    if frozen is not None and pack_key == frozen.key:
        return frozen
    if not isinstance(pack_key, str) or pack_key not in RULE_PACKS:
        raise TimelineError(
            f"rule_pack: unknown rule pack {pack_key!r} (known: {', '.join(sorted(RULE_PACKS))})"
        )
    return None


def _category_or_batch(raw: dict[str, Any], pack: RulePack) -> tuple[str | None, tuple[str, ...]]:
    """The application's category, or its batch of small wireless sites: exactly one."""
    category = raw.get("category")
    batch_raw = raw.get("batch")
    if category is not None and batch_raw is not None:
        raise TimelineError("category, batch: give one of them, not both")
    if category is None and batch_raw is None:
        raise TimelineError("category: missing (give 'category' or 'batch')")
    if category is not None:
        if not isinstance(category, str) or category not in pack.categories:
            raise TimelineError(
                f"category: unknown category {category!r} (known: {', '.join(pack.categories)})"
            )
        return category, ()
    return None, _batch(batch_raw, pack)


def _batch(batch_raw: Any, pack: RulePack) -> tuple[str, ...]:
    if not isinstance(batch_raw, list) or not batch_raw:
        raise TimelineError("batch: expected a non-empty list of site categories")
    if len(batch_raw) > MAX_ITEMS:
        raise TimelineError(f"batch: more than {MAX_ITEMS} sites")
    for i, site in enumerate(batch_raw):
        if not isinstance(site, str) or site not in pack.categories:
            raise TimelineError(f"batch[{i}]: unknown category {site!r}")
        if site not in pack.batch.categories:
            raise TimelineError(
                f"batch[{i}]: {site!r} is not a small wireless facility; "
                f"{pack.batch.rule} defines batches of small wireless facilities only"
            )
    return tuple(batch_raw)


def _state(state: Any) -> str | None:
    """The two-letter state code, upper-cased, of a state with a holiday calendar."""
    if state is None:
        return None
    if not isinstance(state, str) or not re.fullmatch(r"[A-Za-z]{2}", state):
        raise TimelineError(f"state: {state!r} is not a two-letter state code")
    state = state.upper()
    if state not in available_states():
        raise TimelineError(
            f"state: no holiday calendar configured for {state!r} "
            f"(configured: {', '.join(available_states())})"
        )
    return state


def _events(events_raw: Any) -> tuple[Event, ...]:
    """The events, each checked, with at most one submission and one pre-application
    period, the latter not after the former."""
    if not isinstance(events_raw, list):
        raise TimelineError("events: expected a list of events")
    if len(events_raw) > MAX_EVENTS:
        raise TimelineError(f"events: more than {MAX_EVENTS:,} events")
    events = tuple(_event(e, i) for i, e in enumerate(events_raw))
    for kind in ("submitted", "pre_application"):
        dates = [e.date.isoformat() for e in events if e.type == kind]
        if len(dates) > 1:
            raise TimelineError(
                f"events: more than one '{kind}' event ({', '.join(sorted(dates))})"
            )
    submitted = next((e for e in events if e.type == "submitted"), None)
    pre = next((e for e in events if e.type == "pre_application"), None)
    if pre is not None and submitted is not None and pre.date > submitted.date:
        raise TimelineError("events: the pre_application date is after the submitted date")
    return events


def _date_list(raw: dict[str, Any], key: str) -> tuple[date, ...]:
    values = raw.get(key, [])
    if not isinstance(values, list):
        raise TimelineError(f"{key}: expected a list of dates")
    if len(values) > MAX_EVENTS:
        raise TimelineError(f"{key}: more than {MAX_EVENTS:,} dates")
    return tuple(parse_date(v, f"{key}[{i}]") for i, v in enumerate(values))
