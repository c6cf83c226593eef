"""The record shapes of a permit-clock rule pack (what packs.py reads JSON into)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.permit_clocks.request import PermitEvent

COUNTINGS = ("ccp12", "business_days", "months", "days")
FAMILIES = ("agency_deadline", "applicant_deadline", "expiry")
# Who acts on a clock (a rule's `acts`, else its pack's): the inboxes it reaches.
ACTORS = ("planner", "building_official", "city_attorney")
MET_EFFECTS = ("completes", "answers")
# "end": the parent's completion or, if it lapsed, its expiry (AB 130's final action
# follows the consultation however it ends).
CHAIN_STARTS = ("completion", "expiry", "end", "own_events")
DEEMED_STARTS = ("unrolled_last_day", "day_after")
EXTRA_READINGS = ("unrolled",)
EXTENSION_BASES = ("prior_expiry", "original_expiry", "event_date")
# "abs_ge": the size of a signed change (-25 is a change of 25 percent).
OPS = ("eq", "lt", "le", "gt", "ge", "abs_ge")
LATE_GRANTS = ("revives", "no_effect")
OVER_CAP = ("refuse", "limit")


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
        if self.op == "abs_ge":
            return bool(abs(value) >= self.value)
        return bool(value >= self.value)

    def holds_for(self, facts: Mapping[str, Any], event: PermitEvent | None) -> bool:
        """Whether the condition holds on a clock's facts or on the event in hand (a
        `field` condition never holds without an event, e.g. a chain's `when`)."""
        if self.source == "fact":
            return self.holds(facts.get(self.name))
        return event is not None and self.holds(getattr(event, self.name, None))

    def describe(self) -> str:
        words = {"eq": "=", "lt": "<", "le": "≤", "gt": ">", "ge": "≥", "abs_ge": "≥ ±"}
        return f"{self.name} {words[self.op]} {self.value}"


@dataclass(frozen=True)
class Case:
    when: tuple[Cond, ...]
    amount: int
    provisional_note: str = ""  # a case whose text was not confirmed (AB 130's 30 days)


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
    # Gov. Code 66452.6(b)(3): after a pause the clock runs at least this many days.
    floor_days: int | None = None
    floor_citation: str = ""


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
    # 66452.6(e): a grant after the automatic extension ended revives nothing.
    late_grant: str = "revives"
    late_grant_citation: str = ""
    # A grant past max_total_months: refused, or limited to the months left (with the
    # reading that it is void but still the decision that ends the pending request).
    over_cap: str = "refuse"
    over_cap_reading: str = ""
    # Also count an extension "from the expiry" from the unrolled last day (a reading).
    unrolled_reading: bool = False


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


STATUTORY_EVENT = "statutory_extension"


@dataclass(frozen=True)
class Cure:
    """A period reopened after the clock was met: SB 330's cure of an incomplete full
    application (Gov. Code 65941.1(d)(2)): `event` after `after` starts `amount` days
    to `met_by`; a miss is the rule's consequence."""

    event: str
    after: str
    met_by: str
    amount: int
    counting: str
    citation: str
    provisional_note: str = ""


@dataclass(frozen=True)
class NotStacked:
    """A statute's own extension is not added where the city already extended the
    clock, between `granted_from` and `granted_before`, by at least `months` (Gov. Code
    65914.4(b)). The months granted in that time are taken together: the reading that
    excludes the most clocks, so the earliest expiry."""

    granted_from: date
    granted_before: date
    months: int
    citation: str


@dataclass(frozen=True)
class StatutoryExtension:
    """An extension by operation of law (e.g. Gov. Code 65914.4, AB 2729 of 2024): a clock
    of a listed rule that started before `started_before`, whose expiry on `in_effect_on`
    is on or after that day and before `expiring_before`, gets `months` more, outside the
    discretionary cap, without a request (unless `not_stacked` excludes it)."""

    id: str
    title: str
    citation: str
    months: int
    rules: tuple[str, ...]
    in_effect_on: date
    started_before: date | None
    expiring_before: date | None
    when: tuple[Cond, ...]
    source: str
    verified_on: date
    provisional_note: str = ""
    not_stacked: NotStacked | None = None
    # A clock that lapsed on or after this day, before `in_effect_on`, is extended on
    # the later reading of a statute that names entitlements "in effect on" this day:
    # the clock keeps its date and warns what that reading would give.
    lapsed_since: date | None = None


@dataclass(frozen=True)
class PendingChange:
    """A change of the law the pack knows of but that is not in force (the law watch)."""

    id: str
    title: str
    citation: str
    status: str
    affects: str
    source: str
    verified_on: date


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
    acts: str = "planner"  # who acts on the clock (ACTORS): its owner at opening
    cure: Cure | None = None
    statutory: bool = False  # statutory extensions apply (pack data and the event)
    # Events that stop the clock for good, with why (AB 130's chain ends when the
    # city finds the project is not exempt under PRC 21080.66).
    stopped_by: Mapping[str, str] = field(default_factory=dict)
    read_at: str = ""  # where the source text was read
    verified_on: date | None = None  # when it was last checked against the official text

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
        if self.cure is not None:
            names += [self.cure.event, self.cure.met_by]
        if self.statutory:
            names.append(STATUTORY_EVENT)
        names += list(self.stopped_by)
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
    statutory_extensions: tuple[StatutoryExtension, ...] = ()
    pending_changes: tuple[PendingChange, ...] = ()
