"""Permit-clock rule packs: one declarative record per clock rule, loaded from JSON.

A pack (rules/data/permit_packs/<key>.json) holds the rules of one source of law:
`california` (state statutes), `building` (the CBC 105.5 model) or a city's own pack
(with its seed line citations). The record shape is documented in
docs/permit-clocks.md; `_rule()` below is its validator, so a malformed pack fails
the import loudly instead of computing a wrong deadline. Loaded once at import, so
workflow code (importing this through the sandbox's pass-through) never reads files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.permit_clocks.request import PermitEvent

PACK_DIR = Path(__file__).resolve().parent.parent / "data" / "permit_packs"

COUNTINGS = ("ccp12", "business_days", "months", "days")
FAMILIES = ("agency_deadline", "applicant_deadline", "expiry")
MET_EFFECTS = ("completes", "answers")
CHAIN_STARTS = ("completion", "expiry", "own_events")
DEEMED_STARTS = ("unrolled_last_day", "day_after")
EXTRA_READINGS = ("unrolled",)
EXTENSION_BASES = ("prior_expiry", "original_expiry", "event_date")
OPS = ("eq", "lt", "le", "gt", "ge")


class PackError(ValueError):
    """A permit pack does not match the record shape (raised at import time)."""


@dataclass(frozen=True)
class Cond:
    """A test on a fact (`fact`) or on a field of the event in hand (`field`)."""

    source: str  # "fact" or "field"
    name: str
    op: str
    value: Any

    def holds(self, value: Any) -> bool:
        if value is None:
            return False
        if self.op == "eq":
            return bool(value == self.value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.op == "lt":
            return bool(value < self.value)
        if self.op == "le":
            return bool(value <= self.value)
        if self.op == "gt":
            return bool(value > self.value)
        return bool(value >= self.value)

    def holds_for(self, facts: Mapping[str, Any], event: PermitEvent | None) -> bool:
        """Whether the condition holds on a clock's facts or on the event in hand (a
        `field` condition never holds without an event, e.g. a chain's `when`)."""
        if self.source == "fact":
            return self.holds(facts.get(self.name))
        return event is not None and self.holds(getattr(event, self.name, None))

    def describe(self) -> str:
        words = {"eq": "=", "lt": "<", "le": "≤", "gt": ">", "ge": "≥"}
        return f"{self.name} {words[self.op]} {self.value}"


@dataclass(frozen=True)
class Case:
    when: tuple[Cond, ...]
    amount: int


@dataclass(frozen=True)
class Period:
    counting: str
    amount: int
    cases: tuple[Case, ...] = ()
    plus_fact: str | None = None  # e.g. ordinance_months added to the amount

    unit: str = field(init=False, default="")

    def __post_init__(self) -> None:
        unit = {"ccp12": "days", "days": "days"}.get(self.counting, self.counting)
        object.__setattr__(self, "unit", unit)


@dataclass(frozen=True)
class Start:
    events: tuple[str, ...]
    restart: tuple[str, ...] = ()
    restart_when: tuple[Cond, ...] = ()  # all must hold for a restart event to count
    restart_effect: str = ""
    restart_citation: str = ""
    restart_provisional: bool = False
    restart_never_shortens: bool = False


@dataclass(frozen=True)
class ItemsRule:
    event: str
    no_new_items: bool
    needs_rule: bool
    citation: str


@dataclass(frozen=True)
class Pauses:
    pause: str
    resume: str
    reasons: tuple[str, ...]
    max_months: int | None
    citation: str


@dataclass(frozen=True)
class Extensions:
    grant: str
    unit: str  # "days" or "months"
    base: str
    citation: str
    request: str | None = None
    request_required: bool = False
    deny: str | None = None
    default_amount: int | None = None
    max_amount: int | None = None
    max_count: int | None = None
    max_count_fact: str | None = None
    max_total_months: int | None = None
    pending_keeps_alive_days: int | None = None
    alternative_base: str | None = None
    alternative_reading: str = ""
    help: str = ""


@dataclass(frozen=True)
class HardStop:
    months: int | None
    months_fact: str | None
    citation: str


@dataclass(frozen=True)
class Terminator:
    event: str
    any_of: tuple[Cond, ...]
    consequence: str
    citation: str


@dataclass(frozen=True)
class ConsequenceVersion:
    due_from: date | None
    due_before: date | None
    consequence: str
    citation: str
    requires_event: str | None = None
    otherwise: str | None = None

    def applies(self, due: date) -> bool:
        return (self.due_from is None or due >= self.due_from) and (
            self.due_before is None or due < self.due_before
        )


@dataclass(frozen=True)
class Consequence:
    default: str
    text: str
    requires_fact: str | None = None
    versions: tuple[ConsequenceVersion, ...] = ()


@dataclass(frozen=True)
class Chain:
    rule: str
    when: tuple[Cond, ...]
    start: str
    deemed_starts: tuple[str, ...] = ()
    citation: str = ""


@dataclass(frozen=True)
class Fact:
    name: str
    kind: str  # "int" or "bool"
    required: bool
    default: Any
    minimum: int | None
    maximum: int | None
    label: str


@dataclass(frozen=True)
class Rule:
    id: str
    pack: str
    version: str
    title: str
    citation: str
    family: str
    provisional: bool
    provisional_note: str
    source: str
    effective_from: date | None
    effective_to: date | None
    period: Period
    start: Start
    met_by: Mapping[str, str]
    consequence: Consequence
    facts: Mapping[str, Fact]
    items: ItemsRule | None = None
    pauses: Pauses | None = None
    extensions: Extensions | None = None
    hard_stop: HardStop | None = None
    companion: str | None = None  # the event carrying a companion permit's expiry
    terminators: tuple[Terminator, ...] = ()
    readings: tuple[str, ...] = ()
    next: tuple[Chain, ...] = ()
    also_takes: tuple[str, ...] = ()
    met_label: str = ""

    @property
    def rule_version(self) -> str:
        return f"{self.pack}@{self.version}"

    @cached_property
    def own_events(self) -> frozenset[str]:
        """Every event type this rule (not its chain) acts on."""
        names: list[str] = [*self.start.events, *self.start.restart, *self.met_by]
        if self.items is not None:
            names.append(self.items.event)
        if self.pauses is not None:
            names += [self.pauses.pause, self.pauses.resume]
        ext = self.extensions
        if ext is not None:
            names += [n for n in (ext.grant, ext.request, ext.deny) if n]
        if self.companion:
            names.append(self.companion)
        names += [t.event for t in self.terminators]
        names += [v.requires_event for v in self.consequence.versions if v.requires_event]
        names += [*self.also_takes, "withdrawn"]
        return frozenset(names)


@dataclass(frozen=True)
class Pack:
    key: str
    name: str
    version: str
    kind: str  # "state", "building", "local" or "conditions"
    state: str | None
    citation: str
    rules: Mapping[str, Rule]
    not_modelled: tuple[Mapping[str, str], ...]
    fact_defaults: Mapping[str, Mapping[str, Any]]
    notes: tuple[str, ...]


# ------------------------------------------------------------------------- loading


def _need(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in raw:
        raise PackError(f"{where}: missing field {key!r}")
    value = raw[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise PackError(f"{where}.{key}: wrong type ({value!r})")
    return value


def _opt(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if raw.get(key) is None:
        return None
    return _need(raw, key, kind, where)


def _known(raw: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(raw) - allowed
    if unknown:
        raise PackError(f"{where}: unknown field {sorted(unknown)[0]!r}")


def _date(raw: Mapping[str, Any], key: str, where: str) -> date | None:
    value = _opt(raw, key, str, where)
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise PackError(f"{where}.{key}: {value!r} is not an ISO date") from None


def _cond(raw: Any, where: str) -> Cond:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: a condition is an object")
    _known(raw, {"fact", "field", "op", "value"}, where)
    if ("fact" in raw) == ("field" in raw):
        raise PackError(f"{where}: a condition names one 'fact' or one 'field'")
    source = "fact" if "fact" in raw else "field"
    op = raw.get("op", "eq")
    if op not in OPS:
        raise PackError(f"{where}.op: {op!r} is not one of {', '.join(OPS)}")
    if "value" not in raw:
        raise PackError(f"{where}: missing field 'value'")
    return Cond(source, _need(raw, source, str, where), op, raw["value"])


def _conds(raw: Any, where: str) -> tuple[Cond, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PackError(f"{where}: expected a list of conditions")
    return tuple(_cond(c, f"{where}[{i}]") for i, c in enumerate(raw))


def _names(raw: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PackError(f"{where}.{key}: expected a list of names")
    return tuple(value)


def _positive(raw: Mapping[str, Any], key: str, where: str) -> int | None:
    value = _opt(raw, key, int, where)
    if value is not None and value <= 0:
        raise PackError(f"{where}.{key}: must be positive")
    return value


def _required_positive(raw: Mapping[str, Any], key: str, where: str) -> int:
    value: int = _need(raw, key, int, where)
    if value <= 0:
        raise PackError(f"{where}.{key}: must be positive")
    return value


def _period(raw: Any, where: str) -> Period:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    _known(raw, {"counting", "amount", "cases", "plus_fact"}, where)
    counting = _need(raw, "counting", str, where)
    if counting not in COUNTINGS:
        raise PackError(f"{where}.counting: {counting!r} is not one of {', '.join(COUNTINGS)}")
    cases = []
    for i, case in enumerate(raw.get("cases", [])):
        at = f"{where}.cases[{i}]"
        if not isinstance(case, dict):
            raise PackError(f"{at}: expected an object")
        _known(case, {"when", "amount"}, at)
        cases.append(
            Case(_conds(case.get("when"), f"{at}.when"), _required_positive(case, "amount", at))
        )
    # A period read wholly from a fact (a condition's own "24 months") has amount 0.
    amount = _need(raw, "amount", int, where)
    if amount < 0 or (amount == 0 and raw.get("plus_fact") is None):
        raise PackError(f"{where}.amount: must be positive")
    return Period(
        counting=counting,
        amount=amount,
        cases=tuple(cases),
        plus_fact=_opt(raw, "plus_fact", str, where),
    )


def _start(raw: Any, where: str) -> Start:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    _known(
        raw,
        {
            "events",
            "restart",
            "restart_when",
            "restart_effect",
            "restart_citation",
            "restart_provisional",
            "restart_never_shortens",
        },
        where,
    )
    events = _names(raw, "events", where)
    if not events:
        raise PackError(f"{where}.events: a rule needs at least one start event")
    return Start(
        events=events,
        restart=_names(raw, "restart", where),
        restart_when=_conds(raw.get("restart_when"), f"{where}.restart_when"),
        restart_effect=raw.get("restart_effect", ""),
        restart_citation=raw.get("restart_citation", ""),
        restart_provisional=bool(raw.get("restart_provisional", False)),
        restart_never_shortens=bool(raw.get("restart_never_shortens", False)),
    )


def _extensions(raw: Any, where: str) -> Extensions:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    fields = set(Extensions.__dataclass_fields__)
    _known(raw, fields, where)
    unit = _need(raw, "unit", str, where)
    if unit not in ("days", "months"):
        raise PackError(f"{where}.unit: must be 'days' or 'months'")
    base = _need(raw, "base", str, where)
    alt = _opt(raw, "alternative_base", str, where)
    for key, value in (("base", base), ("alternative_base", alt)):
        if value is not None and value not in EXTENSION_BASES:
            raise PackError(f"{where}.{key}: {value!r} is not one of {', '.join(EXTENSION_BASES)}")
    request_required = bool(raw.get("request_required", False))
    request = _opt(raw, "request", str, where)
    if request_required and request is None:
        raise PackError(f"{where}: request_required needs a 'request' event")
    return Extensions(
        grant=_need(raw, "grant", str, where),
        unit=unit,
        base=base,
        citation=_need(raw, "citation", str, where),
        request=request,
        request_required=request_required,
        deny=_opt(raw, "deny", str, where),
        default_amount=_positive(raw, "default_amount", where),
        max_amount=_positive(raw, "max_amount", where),
        max_count=_positive(raw, "max_count", where),
        max_count_fact=_opt(raw, "max_count_fact", str, where),
        max_total_months=_positive(raw, "max_total_months", where),
        pending_keeps_alive_days=_positive(raw, "pending_keeps_alive_days", where),
        alternative_base=alt,
        alternative_reading=raw.get("alternative_reading", ""),
        help=raw.get("help", ""),
    )


def _consequence(raw: Any, where: str) -> Consequence:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    _known(raw, {"default", "text", "requires_fact", "versions"}, where)
    versions = []
    for i, v in enumerate(raw.get("versions", [])):
        at = f"{where}.versions[{i}]"
        if not isinstance(v, dict):
            raise PackError(f"{at}: expected an object")
        _known(
            v,
            {"due_from", "due_before", "consequence", "citation", "requires_event", "otherwise"},
            at,
        )
        if (v.get("requires_event") is None) != (v.get("otherwise") is None):
            raise PackError(f"{at}: 'requires_event' and 'otherwise' go together")
        versions.append(
            ConsequenceVersion(
                due_from=_date(v, "due_from", at),
                due_before=_date(v, "due_before", at),
                consequence=_need(v, "consequence", str, at),
                citation=_need(v, "citation", str, at),
                requires_event=_opt(v, "requires_event", str, at),
                otherwise=_opt(v, "otherwise", str, at),
            )
        )
    return Consequence(
        default=_need(raw, "default", str, where),
        text=_need(raw, "text", str, where),
        requires_fact=_opt(raw, "requires_fact", str, where),
        versions=tuple(versions),
    )


def _facts(raw: Any, where: str) -> Mapping[str, Fact]:
    if raw is None:
        return MappingProxyType({})
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    out: dict[str, Fact] = {}
    for name, spec in raw.items():
        at = f"{where}.{name}"
        if not isinstance(spec, dict):
            raise PackError(f"{at}: expected an object")
        _known(spec, {"type", "required", "default", "min", "max", "label"}, at)
        kind = _need(spec, "type", str, at)
        if kind not in ("int", "bool"):
            raise PackError(f"{at}.type: must be 'int' or 'bool'")
        out[name] = Fact(
            name=name,
            kind=kind,
            required=bool(spec.get("required", False)),
            default=spec.get("default"),
            minimum=_opt(spec, "min", int, at),
            maximum=_opt(spec, "max", int, at),
            label=str(spec.get("label", name)),
        )
    return MappingProxyType(out)


_RULE_FIELDS = {
    "id",
    "title",
    "citation",
    "family",
    "provisional",
    "provisional_note",
    "source",
    "effective_from",
    "effective_to",
    "period",
    "start",
    "met_by",
    "met_label",
    "consequence",
    "facts",
    "items",
    "pauses",
    "extensions",
    "hard_stop",
    "companion",
    "terminators",
    "readings",
    "next",
    "also_takes",
}


def _items_rule(it: Any, at: str) -> ItemsRule:
    if not isinstance(it, dict):
        raise PackError(f"{at}: expected an object")
    _known(it, {"event", "no_new_items", "needs_rule", "citation"}, at)
    return ItemsRule(
        event=_need(it, "event", str, at),
        no_new_items=bool(it.get("no_new_items", False)),
        needs_rule=bool(it.get("needs_rule", False)),
        citation=_need(it, "citation", str, at),
    )


def _pauses(p: Any, at: str) -> Pauses:
    if not isinstance(p, dict):
        raise PackError(f"{at}: expected an object")
    _known(p, {"pause", "resume", "reasons", "max_months", "citation"}, at)
    return Pauses(
        pause=_need(p, "pause", str, at),
        resume=_need(p, "resume", str, at),
        reasons=_names(p, "reasons", at),
        max_months=_positive(p, "max_months", at),
        citation=_need(p, "citation", str, at),
    )


def _hard_stop(h: Any, at: str) -> HardStop:
    if not isinstance(h, dict):
        raise PackError(f"{at}: expected an object")
    _known(h, {"months", "months_fact", "citation"}, at)
    return HardStop(
        _positive(h, "months", at),
        _opt(h, "months_fact", str, at),
        _need(h, "citation", str, at),
    )


def _terminator(t: Any, at: str) -> Terminator:
    if not isinstance(t, dict):
        raise PackError(f"{at}: expected an object")
    _known(t, {"event", "any_of", "consequence", "citation"}, at)
    return Terminator(
        event=_need(t, "event", str, at),
        any_of=_conds(t.get("any_of"), f"{at}.any_of"),
        consequence=_need(t, "consequence", str, at),
        citation=_need(t, "citation", str, at),
    )


def _chain(c: Any, at: str) -> Chain:
    if not isinstance(c, dict):
        raise PackError(f"{at}: expected an object")
    _known(c, {"rule", "when", "start", "deemed_starts", "citation"}, at)
    start = _need(c, "start", str, at)
    if start not in CHAIN_STARTS:
        raise PackError(f"{at}.start: {start!r} is not one of {', '.join(CHAIN_STARTS)}")
    deemed = _names(c, "deemed_starts", at)
    if any(d not in DEEMED_STARTS for d in deemed):
        raise PackError(f"{at}.deemed_starts: known: {', '.join(DEEMED_STARTS)}")
    return Chain(
        rule=_need(c, "rule", str, at),
        when=_conds(c.get("when"), f"{at}.when"),
        start=start,
        deemed_starts=deemed,
        citation=c.get("citation", ""),
    )


def _rule(raw: Any, pack: str, version: str, where: str) -> Rule:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: a rule is an object")
    _known(raw, _RULE_FIELDS, where)
    rid = _need(raw, "id", str, where)
    where = f"{where} ({rid})"
    family = _need(raw, "family", str, where)
    if family not in FAMILIES:
        raise PackError(f"{where}.family: {family!r} is not one of {', '.join(FAMILIES)}")
    met_by = raw.get("met_by", {})
    if not isinstance(met_by, dict) or any(v not in MET_EFFECTS for v in met_by.values()):
        raise PackError(f"{where}.met_by: maps event -> one of {', '.join(MET_EFFECTS)}")
    items = None if raw.get("items") is None else _items_rule(raw["items"], f"{where}.items")
    pauses = None if raw.get("pauses") is None else _pauses(raw["pauses"], f"{where}.pauses")
    hard_stop = (
        None if raw.get("hard_stop") is None else _hard_stop(raw["hard_stop"], f"{where}.hard_stop")
    )
    terminators = [
        _terminator(t, f"{where}.terminators[{i}]")
        for i, t in enumerate(raw.get("terminators", []))
    ]
    chains = [_chain(c, f"{where}.next[{i}]") for i, c in enumerate(raw.get("next", []))]
    readings = _names(raw, "readings", where)
    if any(r not in EXTRA_READINGS for r in readings):
        raise PackError(f"{where}.readings: known: {', '.join(EXTRA_READINGS)}")
    return Rule(
        id=rid,
        pack=pack,
        version=version,
        title=_need(raw, "title", str, where),
        citation=_need(raw, "citation", str, where),
        family=family,
        provisional=bool(raw.get("provisional", False)),
        provisional_note=raw.get("provisional_note", ""),
        source=_need(raw, "source", str, where),
        effective_from=_date(raw, "effective_from", where),
        effective_to=_date(raw, "effective_to", where),
        period=_period(raw.get("period"), f"{where}.period"),
        start=_start(raw.get("start"), f"{where}.start"),
        met_by=MappingProxyType(dict(met_by)),
        met_label=raw.get("met_label", ""),
        consequence=_consequence(raw.get("consequence"), f"{where}.consequence"),
        facts=_facts(raw.get("facts"), f"{where}.facts"),
        items=items,
        pauses=pauses,
        extensions=(
            None
            if raw.get("extensions") is None
            else _extensions(raw["extensions"], f"{where}.extensions")
        ),
        hard_stop=hard_stop,
        companion=_opt(raw, "companion", str, where),
        terminators=tuple(terminators),
        readings=readings,
        next=tuple(chains),
        also_takes=_names(raw, "also_takes", where),
    )


def _pack(raw: Any, source: str) -> Pack:
    if not isinstance(raw, dict):
        raise PackError(f"{source}: top level must be an object")
    _known(
        raw,
        {
            "key",
            "name",
            "version",
            "kind",
            "state",
            "citation",
            "rules",
            "not_modelled",
            "fact_defaults",
            "notes",
        },
        source,
    )
    key = _need(raw, "key", str, source)
    version = _need(raw, "version", str, source)
    kind = _need(raw, "kind", str, source)
    if kind not in ("state", "building", "local", "conditions"):
        raise PackError(f"{source}.kind: must be 'state', 'building', 'local' or 'conditions'")
    rules: dict[str, Rule] = {}
    for i, r in enumerate(_need(raw, "rules", list, source)):
        rule = _rule(r, key, version, f"{source}: rules[{i}]")
        if rule.id in rules:
            raise PackError(f"{source}: rule {rule.id!r} appears twice")
        rules[rule.id] = rule
    not_modelled = _need(raw, "not_modelled", list, source)
    for i, entry in enumerate(not_modelled):
        if not isinstance(entry, dict) or not {"text", "citation", "why"} <= set(entry):
            raise PackError(f"{source}: not_modelled[{i}] needs text, citation and why")
    defaults = raw.get("fact_defaults", {})
    if not isinstance(defaults, dict):
        raise PackError(f"{source}.fact_defaults: expected an object")
    return Pack(
        key=key,
        name=_need(raw, "name", str, source),
        version=version,
        kind=kind,
        state=_opt(raw, "state", str, source),
        citation=_need(raw, "citation", str, source),
        rules=MappingProxyType(rules),
        not_modelled=tuple(MappingProxyType(e) for e in not_modelled),
        fact_defaults=MappingProxyType({k: MappingProxyType(v) for k, v in defaults.items()}),
        notes=tuple(raw.get("notes", [])),
    )


def _check_links(packs: Mapping[str, Pack], rules: Mapping[str, Rule]) -> None:
    _check_rule_links(rules)
    _check_fact_defaults(packs, rules)


def _check_rule_links(rules: Mapping[str, Rule]) -> None:
    """Every chained rule exists; every fact a rule uses is declared."""
    for rule in rules.values():
        for chain in rule.next:
            if chain.rule not in rules:
                raise PackError(f"{rule.pack}: {rule.id}.next names unknown rule {chain.rule!r}")
        for fact in (rule.period.plus_fact, rule.consequence.requires_fact):
            if fact is not None and fact not in rule.facts:
                raise PackError(f"{rule.pack}: {rule.id} uses undeclared fact {fact!r}")


def _check_fact_defaults(packs: Mapping[str, Pack], rules: Mapping[str, Rule]) -> None:
    """A pack's fact defaults name known rules and their declared facts."""
    for pack in packs.values():
        for rid, defaults in pack.fact_defaults.items():
            if rid not in rules:
                raise PackError(f"{pack.key}.fact_defaults: unknown rule {rid!r}")
            for name in defaults:
                if name not in rules[rid].facts:
                    raise PackError(f"{pack.key}.fact_defaults.{rid}: unknown fact {name!r}")


def load_packs(directory: Path = PACK_DIR) -> tuple[Mapping[str, Pack], Mapping[str, Rule]]:
    packs: dict[str, Pack] = {}
    rules: dict[str, Rule] = {}
    for path in sorted(directory.glob("*.json")):
        pack = _pack(json.loads(path.read_text(encoding="utf-8")), path.name)
        if pack.key in packs:
            raise PackError(f"{path.name}: pack {pack.key!r} is defined twice")
        packs[pack.key] = pack
        for rid, rule in pack.rules.items():
            if rid in rules:
                raise PackError(f"{path.name}: rule {rid!r} is also in pack {rules[rid].pack!r}")
            rules[rid] = rule
    _check_links(packs, rules)
    return MappingProxyType(packs), MappingProxyType(rules)


PERMIT_PACKS, PERMIT_RULES = load_packs()
