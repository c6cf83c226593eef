"""The compute contract's input: parse and validate a JSON timeline into plain values.

Every error names the field that is wrong, in one line, so `clearance clock compute`
and the workflow validators can show it to a planner as is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from rules.calendars import available_states
from rules.packs import FEDERAL_PACK, RULE_PACKS, rule_pack

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
    {"category", "batch", "state", "local_holidays", "events", "as_of", "rule_pack"}
)
EVENT_FIELDS = frozenset({"type", "date", "items", "days", "new_date", "outcome", "note"})
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class TimelineError(ValueError):
    """Invalid input; the message names the field and what is wrong with it."""


@dataclass(frozen=True)
class Item:
    id: str
    text: str = ""
    rule: str = ""


@dataclass(frozen=True)
class Event:
    type: str
    date: date
    items: tuple[Item, ...] = ()
    days: int | None = None
    new_date: date | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class Timeline:
    category: str | None
    batch: tuple[str, ...]
    state: str | None
    local_holidays: tuple[date, ...]
    events: tuple[Event, ...]
    as_of: date | None
    rule_pack: str = FEDERAL_PACK


def parse_date(value: Any, field: str) -> date:
    if not isinstance(value, str) or not _ISO_DATE.match(value):
        raise TimelineError(f"{field}: {value!r} is not a date in the form YYYY-MM-DD")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise TimelineError(f"{field}: {value!r} is not a valid calendar date") from None


def _items(raw: Any, field: str) -> tuple[Item, ...]:
    if not isinstance(raw, list) or not raw:
        raise TimelineError(
            f"{field}: a notice of incompleteness must list each missing item "
            "(47 CFR 1.6003(d)); none given"
        )
    items: list[Item] = []
    for i, entry in enumerate(raw):
        where = f"{field}[{i}]"
        if isinstance(entry, str):
            if not entry.strip():
                raise TimelineError(f"{where}: an item id must not be empty")
            items.append(Item(id=entry.strip()))
        elif isinstance(entry, dict):
            unknown = set(entry) - {"id", "text", "rule"}
            if unknown:
                raise TimelineError(f"{where}: unknown field '{sorted(unknown)[0]}'")
            for key in ("id", "text", "rule"):
                if key in entry and not isinstance(entry[key], str):
                    raise TimelineError(f"{where}.{key}: must be a string")
            ident = (entry.get("id") or entry.get("text") or "").strip()
            if not ident:
                raise TimelineError(f"{where}: an item needs an id or a text")
            items.append(
                Item(
                    id=ident,
                    text=(entry.get("text") or "").strip(),
                    rule=(entry.get("rule") or "").strip(),
                )
            )
        else:
            raise TimelineError(f"{where}: an item is a string id or an object")
    return tuple(items)


def _event(raw: Any, i: int) -> Event:
    where = f"events[{i}]"
    if not isinstance(raw, dict):
        raise TimelineError(f"{where}: an event is a JSON object")
    kind = raw.get("type")
    if kind is None:
        raise TimelineError(f"{where}.type: missing")
    if kind not in EVENT_TYPES:
        raise TimelineError(
            f"{where}.type: unknown event type {kind!r} (known: {', '.join(EVENT_TYPES)})"
        )
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
        items = _items(raw.get("items"), f"{where}.items")
    elif "items" in raw:
        raise TimelineError(f"{where}.items: only an incomplete_notice lists items")
    if kind == "tolling_agreement":
        has_days, has_date = raw.get("days") is not None, raw.get("new_date") is not None
        if has_days == has_date:
            raise TimelineError(f"{where}: a tolling agreement gives either 'days' or 'new_date'")
        if has_days:
            value = raw["days"]
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise TimelineError(f"{where}.days: must be a positive whole number")
            days = value
        else:
            new_date = parse_date(raw["new_date"], f"{where}.new_date")
            if new_date < when:
                raise TimelineError(f"{where}.new_date: the agreed date is before the agreement")
    if kind == "decision":
        outcome = raw.get("outcome")
        if outcome not in OUTCOMES:
            raise TimelineError(f"{where}.outcome: {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return Event(kind, when, items, days, new_date, outcome)


def parse_timeline(raw: Any) -> Timeline:
    """Validate the contract's input object and return a Timeline."""
    if not isinstance(raw, dict):
        raise TimelineError("input: expected a JSON object")
    unknown = set(raw) - TOP_LEVEL_FIELDS
    if unknown:
        raise TimelineError(f"{sorted(unknown)[0]}: unknown field")
    pack_key = raw.get("rule_pack", FEDERAL_PACK)
    if not isinstance(pack_key, str) or pack_key not in RULE_PACKS:
        raise TimelineError(
            f"rule_pack: unknown rule pack {pack_key!r} (known: {', '.join(sorted(RULE_PACKS))})"
        )
    pack = rule_pack(pack_key)

    category = raw.get("category")
    batch_raw = raw.get("batch")
    if category is not None and batch_raw is not None:
        raise TimelineError("category, batch: give one of them, not both")
    if category is None and batch_raw is None:
        raise TimelineError("category: missing (give 'category' or 'batch')")
    batch: tuple[str, ...] = ()
    if category is not None:
        if not isinstance(category, str) or category not in pack.categories:
            raise TimelineError(
                f"category: unknown category {category!r} (known: {', '.join(pack.categories)})"
            )
    else:
        if not isinstance(batch_raw, list) or not batch_raw:
            raise TimelineError("batch: expected a non-empty list of site categories")
        for i, site in enumerate(batch_raw):
            if not isinstance(site, str) or site not in pack.categories:
                raise TimelineError(f"batch[{i}]: unknown category {site!r}")
            if site not in pack.batch.categories:
                raise TimelineError(
                    f"batch[{i}]: {site!r} is not a small wireless facility; "
                    f"{pack.batch.rule} defines batches of small wireless facilities only"
                )
        batch = tuple(batch_raw)

    state = raw.get("state")
    if state is not None:
        if not isinstance(state, str) or not re.fullmatch(r"[A-Za-z]{2}", state):
            raise TimelineError(f"state: {state!r} is not a two-letter state code")
        state = state.upper()
        if state not in available_states():
            raise TimelineError(
                f"state: no holiday calendar configured for {state!r} "
                f"(configured: {', '.join(available_states())})"
            )

    local_raw = raw.get("local_holidays", [])
    if not isinstance(local_raw, list):
        raise TimelineError("local_holidays: expected a list of dates")
    local = tuple(parse_date(v, f"local_holidays[{i}]") for i, v in enumerate(local_raw))

    events_raw = raw.get("events", [])
    if not isinstance(events_raw, list):
        raise TimelineError("events: expected a list of events")
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

    as_of = raw.get("as_of")
    return Timeline(
        category=category,
        batch=batch,
        state=state,
        local_holidays=local,
        events=events,
        as_of=None if as_of is None else parse_date(as_of, "as_of"),
        rule_pack=pack_key,
    )
