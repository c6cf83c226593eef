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
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.permit_clocks.pack_fields import (
    conds,
    known,
    names,
    need,
    opt,
    pack_date,
    positive,
    required_positive,
)
from rules.permit_clocks.pack_records import (  # noqa: F401 (re-exported)
    ACTORS,
    CHAIN_STARTS,
    COUNTINGS,
    DEEMED_STARTS,
    EXTENSION_BASES,
    EXTRA_READINGS,
    FAMILIES,
    LATE_GRANTS,
    MET_EFFECTS,
    OPS,
    OVER_CAP,
    Case,
    Chain,
    Cond,
    Consequence,
    ConsequenceVersion,
    Cure,
    Extensions,
    Fact,
    HardStop,
    ItemsRule,
    NotStacked,
    Pack,
    PackError,
    Pauses,
    PendingChange,
    Period,
    Rule,
    Start,
    StatutoryExtension,
    Terminator,
)

PACK_DIR = Path(__file__).resolve().parent.parent / "data" / "permit_packs"

# ------------------------------------------------------------------------- loading


def _period(raw: Any, where: str) -> Period:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    known(raw, {"counting", "amount", "cases", "plus_fact"}, where)
    counting = need(raw, "counting", str, where)
    if counting not in COUNTINGS:
        raise PackError(f"{where}.counting: {counting!r} is not one of {', '.join(COUNTINGS)}")
    cases = []
    for i, case in enumerate(opt(raw, "cases", list, where) or []):
        at = f"{where}.cases[{i}]"
        if not isinstance(case, dict):
            raise PackError(f"{at}: expected an object")
        known(case, {"when", "amount", "provisional_note"}, at)
        cases.append(
            Case(
                conds(case.get("when"), f"{at}.when"),
                required_positive(case, "amount", at),
                opt(case, "provisional_note", str, at) or "",
            )
        )
    # A period read wholly from a fact (a condition's own "24 months") has amount 0.
    amount = need(raw, "amount", int, where)
    if amount < 0 or (amount == 0 and raw.get("plus_fact") is None):
        raise PackError(f"{where}.amount: must be positive")
    return Period(
        counting=counting,
        amount=amount,
        cases=tuple(cases),
        plus_fact=opt(raw, "plus_fact", str, where),
    )


def _start(raw: Any, where: str) -> Start:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    known(
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
    events = names(raw, "events", where)
    if not events:
        raise PackError(f"{where}.events: a rule needs at least one start event")
    return Start(
        events=events,
        restart=names(raw, "restart", where),
        restart_when=conds(raw.get("restart_when"), f"{where}.restart_when"),
        restart_effect=opt(raw, "restart_effect", str, where) or "",
        restart_citation=opt(raw, "restart_citation", str, where) or "",
        restart_provisional=bool(opt(raw, "restart_provisional", bool, where)),
        restart_never_shortens=bool(opt(raw, "restart_never_shortens", bool, where)),
    )


def _one_of(raw: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str) -> str:
    value = raw.get(key, allowed[0])
    if value not in allowed:
        raise PackError(f"{where}.{key}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


def _extensions(raw: Any, where: str) -> Extensions:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    fields = set(Extensions.__dataclass_fields__)
    known(raw, fields, where)
    unit = need(raw, "unit", str, where)
    if unit not in ("days", "months"):
        raise PackError(f"{where}.unit: must be 'days' or 'months'")
    base = need(raw, "base", str, where)
    alt = opt(raw, "alternative_base", str, where)
    for key, value in (("base", base), ("alternative_base", alt)):
        if value is not None and value not in EXTENSION_BASES:
            raise PackError(f"{where}.{key}: {value!r} is not one of {', '.join(EXTENSION_BASES)}")
    request_required = bool(opt(raw, "request_required", bool, where))
    request = opt(raw, "request", str, where)
    if request_required and request is None:
        raise PackError(f"{where}: request_required needs a 'request' event")
    return Extensions(
        grant=need(raw, "grant", str, where),
        unit=unit,
        base=base,
        citation=need(raw, "citation", str, where),
        request=request,
        request_required=request_required,
        deny=opt(raw, "deny", str, where),
        default_amount=positive(raw, "default_amount", where),
        max_amount=positive(raw, "max_amount", where),
        max_count=positive(raw, "max_count", where),
        max_count_fact=opt(raw, "max_count_fact", str, where),
        max_total_months=positive(raw, "max_total_months", where),
        pending_keeps_alive_days=positive(raw, "pending_keeps_alive_days", where),
        alternative_base=alt,
        alternative_reading=opt(raw, "alternative_reading", str, where) or "",
        help=opt(raw, "help", str, where) or "",
        late_grant=_one_of(raw, "late_grant", LATE_GRANTS, where),
        late_grant_citation=opt(raw, "late_grant_citation", str, where) or "",
        over_cap=_one_of(raw, "over_cap", OVER_CAP, where),
        over_cap_reading=opt(raw, "over_cap_reading", str, where) or "",
        unrolled_reading=bool(opt(raw, "unrolled_reading", bool, where)),
    )


def _consequence(raw: Any, where: str) -> Consequence:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: expected an object")
    known(raw, {"default", "text", "requires_fact", "versions"}, where)
    versions = []
    for i, v in enumerate(opt(raw, "versions", list, where) or []):
        at = f"{where}.versions[{i}]"
        if not isinstance(v, dict):
            raise PackError(f"{at}: expected an object")
        known(
            v,
            {"due_from", "due_before", "consequence", "citation", "requires_event", "otherwise"},
            at,
        )
        if (v.get("requires_event") is None) != (v.get("otherwise") is None):
            raise PackError(f"{at}: 'requires_event' and 'otherwise' go together")
        versions.append(
            ConsequenceVersion(
                due_from=pack_date(v, "due_from", at),
                due_before=pack_date(v, "due_before", at),
                consequence=need(v, "consequence", str, at),
                citation=need(v, "citation", str, at),
                requires_event=opt(v, "requires_event", str, at),
                otherwise=opt(v, "otherwise", str, at),
            )
        )
    return Consequence(
        default=need(raw, "default", str, where),
        text=need(raw, "text", str, where),
        requires_fact=opt(raw, "requires_fact", str, where),
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
        known(spec, {"type", "required", "default", "min", "max", "label"}, at)
        kind = need(spec, "type", str, at)
        if kind not in ("int", "bool"):
            raise PackError(f"{at}.type: must be 'int' or 'bool'")
        out[name] = Fact(
            name=name,
            kind=kind,
            required=bool(opt(spec, "required", bool, at)),
            default=spec.get("default"),
            minimum=opt(spec, "min", int, at),
            maximum=opt(spec, "max", int, at),
            label=opt(spec, "label", str, at) or name,
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
    "cure",
    "statutory",
    "read_at",
    "verified_on",
    "stopped_by",
    "acts",
}


def _items_rule(it: Any, at: str) -> ItemsRule:
    if not isinstance(it, dict):
        raise PackError(f"{at}: expected an object")
    known(it, {"event", "no_new_items", "needs_rule", "citation"}, at)
    return ItemsRule(
        event=need(it, "event", str, at),
        no_new_items=bool(opt(it, "no_new_items", bool, at)),
        needs_rule=bool(opt(it, "needs_rule", bool, at)),
        citation=need(it, "citation", str, at),
    )


def _pauses(p: Any, at: str) -> Pauses:
    if not isinstance(p, dict):
        raise PackError(f"{at}: expected an object")
    known(
        p,
        {"pause", "resume", "reasons", "max_months", "citation", "floor_days", "floor_citation"},
        at,
    )
    return Pauses(
        pause=need(p, "pause", str, at),
        resume=need(p, "resume", str, at),
        reasons=names(p, "reasons", at),
        max_months=positive(p, "max_months", at),
        citation=need(p, "citation", str, at),
        floor_days=positive(p, "floor_days", at),
        floor_citation=opt(p, "floor_citation", str, at) or "",
    )


def _cure(c: Any, at: str) -> Cure:
    if not isinstance(c, dict):
        raise PackError(f"{at}: expected an object")
    known(c, {"event", "after", "met_by", "amount", "counting", "citation", "provisional_note"}, at)
    counting = need(c, "counting", str, at)
    if counting not in ("ccp12", "days"):
        raise PackError(f"{at}.counting: must be 'ccp12' or 'days'")
    return Cure(
        event=need(c, "event", str, at),
        after=need(c, "after", str, at),
        met_by=need(c, "met_by", str, at),
        amount=required_positive(c, "amount", at),
        counting=counting,
        citation=need(c, "citation", str, at),
        provisional_note=opt(c, "provisional_note", str, at) or "",
    )


def _hard_stop(h: Any, at: str) -> HardStop:
    if not isinstance(h, dict):
        raise PackError(f"{at}: expected an object")
    known(h, {"months", "months_fact", "citation"}, at)
    return HardStop(
        positive(h, "months", at),
        opt(h, "months_fact", str, at),
        need(h, "citation", str, at),
    )


def _terminator(t: Any, at: str) -> Terminator:
    if not isinstance(t, dict):
        raise PackError(f"{at}: expected an object")
    known(t, {"event", "any_of", "consequence", "citation"}, at)
    return Terminator(
        event=need(t, "event", str, at),
        any_of=conds(t.get("any_of"), f"{at}.any_of"),
        consequence=need(t, "consequence", str, at),
        citation=need(t, "citation", str, at),
    )


def _chain(c: Any, at: str) -> Chain:
    if not isinstance(c, dict):
        raise PackError(f"{at}: expected an object")
    known(c, {"rule", "when", "start", "deemed_starts", "citation"}, at)
    start = need(c, "start", str, at)
    if start not in CHAIN_STARTS:
        raise PackError(f"{at}.start: {start!r} is not one of {', '.join(CHAIN_STARTS)}")
    deemed = names(c, "deemed_starts", at)
    if any(d not in DEEMED_STARTS for d in deemed):
        raise PackError(f"{at}.deemed_starts: known: {', '.join(DEEMED_STARTS)}")
    return Chain(
        rule=need(c, "rule", str, at),
        when=conds(c.get("when"), f"{at}.when"),
        start=start,
        deemed_starts=deemed,
        citation=opt(c, "citation", str, at) or "",
    )


def _acts(raw: Mapping[str, Any], default: str, where: str) -> str:
    acts = raw.get("acts", default)
    if acts not in ACTORS:
        raise PackError(f"{where}.acts: {acts!r} is not one of {', '.join(ACTORS)}")
    return str(acts)


def _rule(
    raw: Any, pack: str, version: str, where: str, archived: bool = False, acts: str = "planner"
) -> Rule:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: a rule is an object")
    known(raw, _RULE_FIELDS, where)
    rid = need(raw, "id", str, where)
    where = f"{where} ({rid})"
    family = need(raw, "family", str, where)
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
        for i, t in enumerate(opt(raw, "terminators", list, where) or [])
    ]
    chains = [
        _chain(c, f"{where}.next[{i}]") for i, c in enumerate(opt(raw, "next", list, where) or [])
    ]
    readings = names(raw, "readings", where)
    if any(r not in EXTRA_READINGS for r in readings):
        raise PackError(f"{where}.readings: known: {', '.join(EXTRA_READINGS)}")
    return Rule(
        id=rid,
        pack=pack,
        version=version,
        title=need(raw, "title", str, where),
        citation=need(raw, "citation", str, where),
        family=family,
        provisional=bool(opt(raw, "provisional", bool, where)),
        provisional_note=opt(raw, "provisional_note", str, where) or "",
        source=need(raw, "source", str, where),
        effective_from=pack_date(raw, "effective_from", where),
        effective_to=pack_date(raw, "effective_to", where),
        period=_period(raw.get("period"), f"{where}.period"),
        start=_start(raw.get("start"), f"{where}.start"),
        met_by=MappingProxyType(dict(met_by)),
        met_label=opt(raw, "met_label", str, where) or "",
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
        companion=opt(raw, "companion", str, where),
        terminators=tuple(terminators),
        readings=readings,
        next=tuple(chains),
        also_takes=names(raw, "also_takes", where),
        cure=None if raw.get("cure") is None else _cure(raw["cure"], f"{where}.cure"),
        statutory=bool(opt(raw, "statutory", bool, where)),
        stopped_by=_stopped_by(raw.get("stopped_by"), f"{where}.stopped_by"),
        read_at=opt(raw, "read_at", str, where) or "",
        verified_on=_verified_on(raw, where, archived),
        acts=_acts(raw, acts, where),
    )


def _stopped_by(raw: Any, where: str) -> Mapping[str, str]:
    if raw is None:
        return MappingProxyType({})
    if not isinstance(raw, dict) or not all(isinstance(v, str) and v for v in raw.values()):
        raise PackError(f"{where}: maps an event to why it stops the clock")
    return MappingProxyType(dict(raw))


def _verified_on(raw: Mapping[str, Any], where: str, archived: bool) -> date | None:
    """When the rule was last checked against the official text (the law watch): every
    current rule says; an archived version, kept for the clocks opened under it, may not."""
    when = pack_date(raw, "verified_on", where)
    if when is None and not archived:
        raise PackError(f"{where}: missing field 'verified_on' (when the text was last checked)")
    return when


def _pack(raw: Any, source: str, archived: bool = False) -> Pack:
    if not isinstance(raw, dict):
        raise PackError(f"{source}: top level must be an object")
    known(
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
            "statutory_extensions",
            "pending_changes",
            "acts",
        },
        source,
    )
    acts = _acts(raw, "planner", source)
    key = need(raw, "key", str, source)
    version = need(raw, "version", str, source)
    kind = need(raw, "kind", str, source)
    if kind not in ("state", "building", "local", "conditions"):
        raise PackError(f"{source}.kind: must be 'state', 'building', 'local' or 'conditions'")
    rules: dict[str, Rule] = {}
    for i, r in enumerate(need(raw, "rules", list, source)):
        rule = _rule(r, key, version, f"{source}: rules[{i}]", archived, acts)
        if rule.id in rules:
            raise PackError(f"{source}: rule {rule.id!r} appears twice")
        rules[rule.id] = rule
    not_modelled = need(raw, "not_modelled", list, source)
    for i, entry in enumerate(not_modelled):
        if not isinstance(entry, dict) or not {"text", "citation", "why"} <= set(entry):
            raise PackError(f"{source}: not_modelled[{i}] needs text, citation and why")
    defaults = raw.get("fact_defaults", {})
    if not isinstance(defaults, dict):
        raise PackError(f"{source}.fact_defaults: expected an object")
    for rid, values in defaults.items():
        if not isinstance(values, dict):
            raise PackError(f"{source}.fact_defaults.{rid}: expected an object of facts")
    notes = raw.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise PackError(f"{source}.notes: expected a list of lines")
    extensions = raw.get("statutory_extensions", [])
    if not isinstance(extensions, list):
        raise PackError(f"{source}.statutory_extensions: expected a list")
    changes = raw.get("pending_changes", [])
    if not isinstance(changes, list):
        raise PackError(f"{source}.pending_changes: expected a list")
    return Pack(
        key=key,
        name=need(raw, "name", str, source),
        version=version,
        kind=kind,
        state=opt(raw, "state", str, source),
        citation=need(raw, "citation", str, source),
        rules=MappingProxyType(rules),
        not_modelled=tuple(MappingProxyType(e) for e in not_modelled),
        fact_defaults=MappingProxyType({k: MappingProxyType(v) for k, v in defaults.items()}),
        notes=tuple(notes),
        statutory_extensions=tuple(
            statutory_extension(s, f"{source}.statutory_extensions[{i}]")
            for i, s in enumerate(extensions)
        ),
        pending_changes=tuple(
            pending_change(c, f"{source}.pending_changes[{i}]") for i, c in enumerate(changes)
        ),
    )


def statutory_extension(raw: Any, at: str) -> StatutoryExtension:
    if not isinstance(raw, dict):
        raise PackError(f"{at}: expected an object")
    known(
        raw,
        {
            "id",
            "title",
            "citation",
            "months",
            "rules",
            "in_effect_on",
            "started_before",
            "expiring_before",
            "when",
            "source",
            "read_at",
            "verified_on",
            "provisional_note",
            "not_stacked",
            "lapsed_since",
        },
        at,
    )
    in_effect_on = pack_date(raw, "in_effect_on", at)
    verified_on = pack_date(raw, "verified_on", at)
    if in_effect_on is None or verified_on is None:
        raise PackError(f"{at}: needs 'in_effect_on' and 'verified_on'")
    return StatutoryExtension(
        id=need(raw, "id", str, at),
        title=need(raw, "title", str, at),
        citation=need(raw, "citation", str, at),
        months=required_positive(raw, "months", at),
        rules=names(raw, "rules", at),
        in_effect_on=in_effect_on,
        started_before=pack_date(raw, "started_before", at),
        expiring_before=pack_date(raw, "expiring_before", at),
        when=conds(raw.get("when"), f"{at}.when"),
        source=need(raw, "source", str, at),
        verified_on=verified_on,
        provisional_note=opt(raw, "provisional_note", str, at) or "",
        not_stacked=_not_stacked(raw.get("not_stacked"), f"{at}.not_stacked"),
        lapsed_since=pack_date(raw, "lapsed_since", at),
    )


def _not_stacked(raw: Any, at: str) -> NotStacked | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PackError(f"{at}: expected an object")
    known(raw, {"granted_from", "granted_before", "months", "citation"}, at)
    granted_from = pack_date(raw, "granted_from", at)
    granted_before = pack_date(raw, "granted_before", at)
    if granted_from is None or granted_before is None:
        raise PackError(f"{at}: needs 'granted_from' and 'granted_before'")
    if granted_before <= granted_from:
        raise PackError(f"{at}.granted_before: must be after granted_from")
    return NotStacked(
        granted_from,
        granted_before,
        required_positive(raw, "months", at),
        need(raw, "citation", str, at),
    )


def pending_change(raw: Any, at: str) -> PendingChange:
    if not isinstance(raw, dict):
        raise PackError(f"{at}: expected an object")
    known(raw, {"id", "title", "citation", "status", "affects", "source", "verified_on"}, at)
    verified_on = pack_date(raw, "verified_on", at)
    if verified_on is None:
        raise PackError(f"{at}: missing field 'verified_on'")
    return PendingChange(
        id=need(raw, "id", str, at),
        title=need(raw, "title", str, at),
        citation=need(raw, "citation", str, at),
        status=need(raw, "status", str, at),
        affects=need(raw, "affects", str, at),
        source=need(raw, "source", str, at),
        verified_on=verified_on,
    )


def _check_links(packs: Mapping[str, Pack], rules: Mapping[str, Rule]) -> None:
    _check_rule_links(rules)
    _check_fact_defaults(packs, rules)
    for pack in packs.values():
        for ext in pack.statutory_extensions:
            for rid in ext.rules:
                if rid not in rules or not rules[rid].statutory:
                    raise PackError(
                        f"{pack.key}.statutory_extensions ({ext.id}): {rid!r} is not a rule "
                        "that takes statutory extensions"
                    )


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


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise PackError(f"{path.name}: not a JSON document ({err})") from None


def load_packs(
    directory: Path = PACK_DIR, archived: bool = False
) -> tuple[Mapping[str, Pack], Mapping[str, Rule]]:
    packs: dict[str, Pack] = {}
    rules: dict[str, Rule] = {}
    for path in sorted(directory.glob("*.json")):
        pack = _pack(_read(path), path.name, archived)
        if pack.key in packs:
            raise PackError(f"{path.name}: pack {pack.key!r} is defined twice")
        packs[pack.key] = pack
        for rid, rule in pack.rules.items():
            if rid in rules:
                raise PackError(f"{path.name}: rule {rid!r} is also in pack {rules[rid].pack!r}")
            rules[rid] = rule
    if not archived:
        _check_links(packs, rules)
    return MappingProxyType(packs), MappingProxyType(rules)


def _load_archive(directory: Path) -> Mapping[str, tuple[Pack, Mapping[str, Rule]]]:
    """Earlier versions of packs (archive/<key>@<version>.json), kept so a clock opened
    under one keeps its rules until an administrator rebases it: version -> (pack, its
    rules with the current rules of other packs for its chains)."""
    out: dict[str, tuple[Pack, Mapping[str, Rule]]] = {}
    for path in sorted(directory.glob("*.json")):
        pack = _pack(_read(path), path.name, archived=True)
        version = f"{pack.key}@{pack.version}"
        if version != path.stem or version in out:
            raise PackError(f"archive/{path.name}: holds {version}; name it {version}.json")
        rules = {**PERMIT_RULES, **pack.rules}
        _check_rule_links(rules)
        out[version] = (pack, MappingProxyType(rules))
    return MappingProxyType(out)


PERMIT_PACKS, PERMIT_RULES = load_packs()
ARCHIVED_PACKS = _load_archive(PACK_DIR / "archive")


def rules_of(rule_version: str | None) -> Mapping[str, Rule]:
    """The rules a clock pinned to `rule_version` computes with: an archived version's
    (its own pack's rules as they were), else the current ones."""
    if rule_version and rule_version in ARCHIVED_PACKS:
        return ARCHIVED_PACKS[rule_version][1]
    return PERMIT_RULES
