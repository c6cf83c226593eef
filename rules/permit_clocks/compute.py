"""compute_permit_clock: the §4 contract. Every reading is a full pass; the earliest
drives `conservative_date` and `conservative_status`; chained clocks come back whole
under `next`.

Readings are the cross product of the rule's ambiguities: how the last day rolls
(literal calendar, conservative calendar, or unrolled where the rule lists it), where
an extension counts from (where the rule names an alternative base), and, for a
chained clock, which day the parent's completion is taken to be. Only readings whose
result differs from the literal one are listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache
from itertools import product
from typing import Any

from rules.kernel.counting import ONE_DAY, iso
from rules.permit_clocks.calendar import PermitCalendar
from rules.permit_clocks.extensions import extension_limit
from rules.permit_clocks.packs import PERMIT_PACKS, Chain, Rule, rules_of
from rules.permit_clocks.passes import Issue, Pass
from rules.permit_clocks.readings import VOID_OVER_CAP, Reading, StartCandidate
from rules.permit_clocks.request import PermitEvent, PermitRequest, parse_request

_ROLL_TEXT = {
    ("conservative", "ccp12"): "the last day rolls only past weekends and judicial and adopted "
    "holidays: a one-off city closure may not move it",
    ("conservative", "business_days"): "a one-off city closure is counted as a business day",
    ("unrolled", "ccp12"): "the period ends on the day counted, without rolling past a "
    "weekend or holiday",
}
_DEEMED_TEXT = {
    "unrolled_last_day": "the application is deemed complete on the last day counted, before "
    "any roll (CEQA Guidelines 15101: 'on the 30th day')",
    "day_after": "the application is deemed complete the day after the last day",
}


def _order(events: Sequence[PermitEvent], rule: Rule) -> list[PermitEvent]:
    """The rule's own events in date order; same-day events in the order the rules need
    them (start, answer, restart, pause, resume, extension, completion, end), so a
    result never depends on the order of the input."""
    ranks = _ranks(rule.id, rule.rule_version)
    own = [e for e in events if e.type in ranks]
    if len(own) > 1:
        own.sort(key=lambda e: (e.date, ranks[e.type], e.index))
    return own


@lru_cache(maxsize=256)
def _ranks(rule_id: str, version: str) -> Mapping[str, int]:
    rule = rules_of(version)[rule_id]

    def rank(kind: str) -> int:
        if kind in rule.start.events and kind not in rule.start.restart:
            return 0
        if rule.met_by.get(kind) == "answers":
            return 1
        if kind in rule.start.restart:
            return 2
        if rule.pauses and kind == rule.pauses.pause:
            return 3
        if rule.pauses and kind == rule.pauses.resume:
            return 3  # same rank as a pause: a pause and a resume of one day keep their order
        if rule.extensions and kind == rule.extensions.request:
            return 5
        if rule.extensions and kind in (rule.extensions.grant, rule.extensions.deny):
            return 6
        if kind == "withdrawn" or kind in rule.stopped_by:
            return 9
        if rule.cure is not None and kind == rule.cure.event:
            return 7  # after the full application it answers (rank 8)
        if kind in rule.met_by:
            return 8
        return 7

    return {kind: rank(kind) for kind in rule.own_events}


def _readings(
    rule: Rule, events: Sequence[PermitEvent], starts: Sequence[StartCandidate]
) -> tuple[Reading, ...]:
    ext = rule.extensions
    grants = [e for e in events if ext is not None and e.type == ext.grant]
    alternative = bool(ext and grants and (ext.alternative_base or ext.unrolled_reading))
    over_cap = bool(
        ext is not None
        and ext.over_cap == "limit"
        and ext.max_total_months is not None
        and sum(e.months or 0 for e in grants) > ext.max_total_months
    )
    labels = tuple([s.label for s in starts]) or ("literal",)
    return _reading_grid(rule.id, rule.rule_version, alternative, over_cap, labels)


def _bases(rule: Rule, alternative: bool, over_cap: bool) -> list[str]:
    """Where a grant counts from under each reading (ext_base of Reading): the rule's
    base, its alternative, either counted from the unrolled last day (the expiry
    before any roll, permit-clocks' reading 7), and a grant past the cap taken as void."""
    bases = ["literal"]
    ext = rule.extensions
    if ext is None:
        return bases
    if alternative and ext.alternative_base:
        bases.append(f"extension_from_{ext.alternative_base}")
    if alternative and ext.unrolled_reading:
        for kind in (ext.base, ext.alternative_base):
            if kind in ("prior_expiry", "original_expiry"):
                bases.append(f"extension_from_unrolled_{kind}")
    if over_cap:
        bases.append(VOID_OVER_CAP)
    return bases


@lru_cache(maxsize=1024)
def _reading_grid(
    rule_id: str, version: str, alternative: bool, over_cap: bool, labels: tuple[str, ...]
) -> tuple[Reading, ...]:
    rule = rules_of(version)[rule_id]
    rolls = ["literal"]
    if rule.period.counting in ("ccp12", "business_days"):
        rolls.append("conservative")
    if "unrolled" in rule.readings and rule.period.counting == "ccp12":
        rolls.append("unrolled")
    bases = _bases(rule, alternative, over_cap)
    combos = [Reading(r, b, s) for r, b, s in product(rolls, bases, labels)]
    return tuple(sorted(combos, key=lambda r: r.switches))


def _describe(reading: Reading, rule: Rule, starts: Mapping[str, StartCandidate]) -> str:
    parts = []
    if reading.roll != "literal":
        parts.append(_ROLL_TEXT.get((reading.roll, rule.period.counting), reading.roll))
    ext = rule.extensions
    if reading.ext_base == VOID_OVER_CAP and ext is not None:
        parts.append(ext.over_cap_reading or "a grant past the limit is void")
    elif reading.ext_base.startswith("extension_from_unrolled_"):
        parts.append(
            "the extension counts from the expiry as counted, before it rolled past a "
            "weekend or holiday (Code Civ. Proc. 12a)"
        )
    elif reading.ext_base != "literal" and ext is not None:
        parts.append(ext.alternative_reading or "the extension counts from another base")
    if reading.start != "literal" and reading.start in starts:
        parts.append(starts[reading.start].description)
    return "; ".join(parts)


def _run(
    rule: Rule,
    facts: Mapping[str, Any],
    events: Sequence[PermitEvent],
    calendar: PermitCalendar,
    as_of: date | None,
    reading: Reading,
    chained: bool,
    candidate: StartCandidate | None,
) -> Pass:
    start = None if candidate is None else candidate.date
    p = Pass(
        rule,
        facts,
        calendar,
        reading,
        as_of,
        chained=chained,
        chained_start=start,
        keep_ledger=reading.switches == 0,
    )
    for event in events:
        p.apply(event)
    p.finish()
    return p


def _closure_matters(calendar: PermitCalendar, twin: Pass) -> bool:
    """Whether a one-off closure falls on a day the literal twin of a conservative
    reading asked its calendar about. The conservative calendar differs from the
    literal one only by those closures, so when none falls there the conservative pass
    would take every step its twin took and give the same dates: it need not run."""
    low, high = twin.probe_low, twin.probe_high
    return low is not None and high is not None and calendar.closure_between(low, high)


def _completions(rule: Rule, chain: Chain, passes: Sequence[Pass]) -> list[StartCandidate]:
    """The days a chained clock may start on: the literal parent's first (None while
    the parent is not complete), then one per other distinct reading."""
    cands: list[StartCandidate] = []
    for i, p in enumerate(passes):
        label = "literal" if i == 0 else f"parent:{p.reading_label}"
        text = "" if i == 0 else f"the {rule.id} clock read so: {p.reading_label}"
        options: list[tuple[str, str, date]] = []
        consequence, _ = p.consequence()
        lapsed = p.state == "lapsed" and p.terminated is None
        if chain.start in ("expiry", "end") and lapsed:
            options.append((label, text, p.final))  # type: ignore[arg-type]
        elif chain.start == "expiry":
            pass
        elif p.completion is not None and p.state in ("met", "met_late"):
            options.append((label, text, p.completion))
        elif p.state == "lapsed" and p.terminated is None and consequence == "deemed_complete":
            due = p.final
            assert due is not None and p.nominal is not None
            options.append((label, text, due))
            for kind in chain.deemed_starts:
                when = p.nominal if kind == "unrolled_last_day" else due + ONE_DAY
                options.append((kind if i == 0 else f"{label}+{kind}", _DEEMED_TEXT[kind], when))
        if i == 0 and not options:
            cands.append(StartCandidate("literal", "", None))
        for lab, txt, when in options:
            if all(c.date != when for c in cands):
                cands.append(StartCandidate(lab, txt, when))
    return cands


def _result(
    rule: Rule,
    facts: Mapping[str, Any],
    events: Sequence[PermitEvent],
    calendar: PermitCalendar,
    as_of: date | None,
    chained: bool = False,
    starts: Sequence[StartCandidate] = (),
    rule_version: str | None = None,
    sink: list[Issue] | None = None,
) -> dict[str, Any]:
    own = _order(events, rule)
    by_label = {s.label: s for s in starts} if starts else {}
    passes = _passes(rule, facts, own, calendar, as_of, chained, starts, by_label)
    literal = passes[0]
    if sink is not None:
        sink.extend(literal.issues)
    earliest = literal
    for p in passes[1:]:
        if p.final is not None and (earliest.final is None or p.final < earliest.final):
            earliest = p

    consequence, consequence_citation = literal.consequence()
    alternatives = _alternatives(rule, passes, consequence, by_label)
    extensions = _extensions(rule, literal, earliest)
    provisional_notes = list(dict.fromkeys(literal.provisional_notes))
    if rule.provisional:
        provisional_notes.insert(0, f"{rule.id}: {rule.provisional_note or 'provisional rule'}")
    warnings = [i.message for i in literal.issues]
    for note in provisional_notes:
        warnings.append(f"provisional: {note}")
    warnings += _version_warnings(rule, literal, consequence_citation, rule_version)
    due = literal.final

    out: dict[str, Any] = {
        "rule": rule.id,
        "title": rule.title,
        "citation": rule.citation,
        "rule_version": rule.rule_version,
        "provisional": bool(provisional_notes),
        "family": rule.family,
        "unit": rule.period.unit,
        "counting": rule.period.counting,
        "start_date": (iso(literal.start_date) if literal.start_date else None),
        "due_date": (iso(due) if due else None),
        "conservative_date": (iso(earliest.final) if earliest.final else None),
        "hard_stop": (iso(literal.hard_stop) if literal.hard_stop else None),
        "status": literal.final_status,
        "conservative_status": earliest.final_status,
        "consequence": consequence,
        "consequence_text": rule.consequence.text
        if consequence == rule.consequence.default
        else consequence,
        "consequence_citation": consequence_citation,
        "as_of": (iso(as_of) if as_of else None),
        "days_remaining": literal.days_remaining(),
        "conservative_days_remaining": earliest.days_remaining(),
        "met_date": (iso(literal.met_date) if literal.met_date else None),
        "extensions": extensions,
        "ledger": literal.ledger,
        "alternatives": alternatives,
        "next": [],
        "warnings": warnings,
    }
    for chain in rule.next:
        child = _chain(rule, chain, facts, events, calendar, as_of, passes, out["warnings"], sink)
        if child is not None:
            out["next"].append(child)
    return out


def _passes(
    rule: Rule,
    facts: Mapping[str, Any],
    own: list[PermitEvent],
    calendar: PermitCalendar,
    as_of: date | None,
    chained: bool,
    starts: Sequence[StartCandidate],
    by_label: Mapping[str, StartCandidate],
) -> list[Pass]:
    """One pass per reading, the literal one first; a conservative reading runs only
    where a one-off closure can change what its literal twin did."""
    readings = _readings(rule, own, starts)
    passes = [
        _run(rule, facts, own, calendar, as_of, r, chained, by_label.get(r.start))
        for r in readings
        if r.roll != "conservative"
    ]
    if len(passes) < len(readings) and calendar.closures:
        # Dates only move earlier with an earlier start or fewer closed days, so the
        # conservative calendar is combined with the earliest chained start only.
        dated = [c for c in starts if c.date is not None]
        first = min(dated, key=lambda c: c.date).label if dated else "literal"  # type: ignore[arg-type,return-value]
        twins = {(p.reading.ext_base, p.reading.start): p for p in passes}
        # Without a closure where its twin looked, a conservative pass changes nothing.
        extra = [
            _run(rule, facts, own, calendar, as_of, r, chained, by_label.get(r.start))
            for r in readings
            if r.roll == "conservative"
            and r.start in (first, "literal")
            and _closure_matters(calendar, twins[r.ext_base, r.start])
        ]
        if extra:
            passes += extra
            passes.sort(key=lambda p: p.reading.switches)
    return passes


def _alternatives(
    rule: Rule,
    passes: Sequence[Pass],
    consequence: str | None,
    by_label: Mapping[str, StartCandidate],
) -> list[dict[str, Any]]:
    """The readings whose date, status or consequence differs from the literal one's
    (and from every reading listed before them)."""
    literal = passes[0]
    alternatives: list[dict[str, Any]] = []
    seen = {(literal.final, literal.final_status, consequence)}
    for p in passes[1:]:
        alt_consequence, alt_citation = p.consequence()
        key = (p.final, p.final_status, alt_consequence)
        if key in seen:
            continue
        seen.add(key)
        alternatives.append(
            {
                "reading": p.reading_label,
                "explanation": _describe(p.reading, rule, by_label),
                "due_date": (iso(p.final) if p.final else None),
                "status": p.final_status,
                "days_remaining": p.days_remaining(),
                "consequence": alt_consequence,
                "consequence_citation": alt_citation,
            }
        )
    return alternatives


def _extensions(rule: Rule, literal: Pass, earliest: Pass) -> dict[str, Any]:
    """Extensions used and left, a pending request, and by when to ask for one."""
    ext = rule.extensions
    extensions: dict[str, Any] = {"used": literal.ext_used, "left": 0}
    if rule.statutory:
        extensions["statutory_months"] = literal.statutory_months
    if ext is not None:
        limit = extension_limit(literal)
        extensions["left"] = None if limit is None else max(0, limit - literal.ext_used)
        if ext.max_total_months is not None:
            # The cap on discretionary extensions: statutory months never count here.
            extensions["cap_months"] = ext.max_total_months
            extensions["cap_citation"] = ext.citation
            extensions["months_used"] = literal.ext_months
            extensions["months_left"] = ext.max_total_months - literal.ext_months
        extensions["pending_request"] = (
            iso(literal.pending_request) if literal.pending_request else None
        )
        can_ask = (
            literal.final_status == "running"
            and extensions["left"] != 0
            and extensions.get("months_left") != 0  # the cap is used up
        )
        extensions["request_by"] = (
            (iso(earliest.final) if earliest.final else None) if can_ask else None
        )
        extensions["how"] = ext.help
    return extensions


def _version_warnings(
    rule: Rule, literal: Pass, consequence_citation: str, rule_version: str | None
) -> list[str]:
    """A clock that spans a change of the law's version, or a rule record newer than
    the one the clock was opened under."""
    warnings = []
    versions = rule.consequence.versions
    due = literal.final
    if versions and literal.start_date is not None and due is not None:
        for version in versions:
            edge = version.due_from
            if edge is not None and literal.start_date < edge <= due:
                warnings.append(
                    f"the clock started before {iso(edge)} and ends after it: which "
                    f"version of {rule.citation} governs is a question for counsel "
                    f"(computed under: {consequence_citation})"
                )
    if rule_version is not None and rule_version != rule.rule_version:
        warnings.append(
            f"the clock was opened under {rule_version}; computed with {rule.rule_version}"
        )
    current = PERMIT_PACKS[rule.pack]
    if rule.version != current.version:
        warnings.append(
            f"computed under the rules frozen when the clock opened ({rule.rule_version}); "
            f"the current version is {current.key}@{current.version}: an administrator's "
            "rebase applies it"
        )
    return warnings


def _chain(
    rule: Rule,
    chain: Chain,
    facts: Mapping[str, Any],
    events: Sequence[PermitEvent],
    calendar: PermitCalendar,
    as_of: date | None,
    passes: Sequence[Pass],
    warnings: list[str],
    sink: list[Issue] | None,
) -> dict[str, Any] | None:
    if not all(c.holds_for(facts, None) for c in chain.when):
        return None
    child = rules_of(rule.rule_version)[chain.rule]
    missing = [n for n, spec in child.facts.items() if spec.required and n not in facts]
    if missing:
        warnings.append(
            f"the {child.title} clock ({child.id}) follows this one once fact "
            f"{missing[0]} ({child.facts[missing[0]].label}) is given"
        )
        return None
    if chain.start == "own_events":
        return _result(child, facts, events, calendar, as_of, sink=sink)
    starts = _completions(rule, chain, passes)
    return _result(child, facts, events, calendar, as_of, chained=True, starts=starts, sink=sink)


def compute_request(request: PermitRequest, sink: list[Issue] | None = None) -> dict[str, Any]:
    """Compute a parsed request; `sink` collects the literal passes' issues (checks.py)."""
    return _result(
        request.rule,
        request.facts,
        request.events,
        request.calendar,
        request.as_of,
        rule_version=request.rule_version,
        sink=sink,
    )


def compute_permit_clock(request: dict[str, Any]) -> dict[str, Any]:
    """The §4 contract: a JSON-decoded request in, the JSON-ready result out.
    Raises PermitClockError (one line naming the field) on invalid input."""
    return compute_request(parse_request(request))
