"""Shot-clock rule packs as data: one JSON file per regime (rules/data/packs), loaded once
at import. A rule pack names each category's period, the rule that sets it, how the first
and later incompleteness notices act on the clock, and whether the date rolls forward."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rules.kernel.jurisdictions import DATA_DIR, FEDERAL_PACK

if TYPE_CHECKING:
    from rules.shot_clock.timeline import Timeline


@dataclass(frozen=True)
class NoticeRule:
    effect: str  # "reset" or "toll"
    within_days: int
    rule: str


@dataclass(frozen=True)
class CategoryRule:
    key: str
    label: str
    days: int
    rule: str
    small_wireless: bool
    eligible_facilities_request: bool
    roll_forward: bool
    first_notice: NoticeRule
    later_notice_within_days: int
    later_notice_rule: str
    agreement_rule: str


@dataclass(frozen=True)
class BatchRule:
    categories: frozenset[str]
    rule: str


@dataclass(frozen=True)
class RulePack:
    key: str
    name: str
    effective_from: date
    citation: str
    counting_rule: str
    categories: Mapping[str, CategoryRule]
    batch: BatchRule
    late_first_notice_rule: str
    never_tolls_rule: str
    # The pack's data as read, and a content hash of it: what a clock freezes (8.9).
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    version: str = ""


def _category(key: str, raw: dict[str, Any]) -> CategoryRule:
    first = raw["first_notice"]
    return CategoryRule(
        key=key,
        label=raw["label"],
        days=int(raw["days"]),
        rule=raw["rule"],
        small_wireless=bool(raw.get("small_wireless", False)),
        eligible_facilities_request=bool(raw.get("eligible_facilities_request", False)),
        roll_forward=bool(raw["roll_forward"]),
        first_notice=NoticeRule(first["effect"], int(first["within_days"]), first["rule"]),
        later_notice_within_days=int(raw["later_notice"]["within_days"]),
        later_notice_rule=raw["later_notice"]["rule"],
        agreement_rule=raw["agreement_rule"],
    )


def pack_version(raw: Mapping[str, Any]) -> str:
    text = json.dumps(raw, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_FROZEN_PACKS: dict[str, RulePack] = {}


def pack_from_data(raw: Mapping[str, Any]) -> RulePack:
    """A rule pack from its data (a file, or the copy a running clock froze); ValueError
    names what is wrong. Parsed once per version."""
    version = pack_version(raw)
    cached = _FROZEN_PACKS.get(version)
    if cached is not None:
        return cached
    try:
        pack = _pack(dict(raw), version)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"rule pack data is not valid: {err!r}") from None
    if len(_FROZEN_PACKS) > 256:
        _FROZEN_PACKS.clear()
    _FROZEN_PACKS[version] = pack
    return pack


def _load_pack(path: Path) -> RulePack:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return _pack(raw, pack_version(raw))


def _pack(raw: dict[str, Any], version: str) -> RulePack:
    return RulePack(
        key=raw["key"],
        name=raw["name"],
        effective_from=date.fromisoformat(raw["effective_from"]),
        citation=raw["citation"],
        counting_rule=raw["counting_rule"],
        categories=MappingProxyType({k: _category(k, v) for k, v in raw["categories"].items()}),
        batch=BatchRule(frozenset(raw["batch"]["categories"]), raw["batch"]["rule"]),
        late_first_notice_rule=raw["late_first_notice_rule"],
        never_tolls_rule=raw["never_tolls_rule"],
        data=MappingProxyType(raw),
        version=version,
    )


# Loaded eagerly so workflow code (which imports this module through the sandbox's
# pass-through) never touches the file system.
RULE_PACKS: Mapping[str, RulePack] = MappingProxyType(
    {p.key: p for p in map(_load_pack, sorted((DATA_DIR / "packs").glob("*.json")))}
)
CATEGORY_KEYS: tuple[str, ...] = tuple(RULE_PACKS[FEDERAL_PACK].categories)


def rule_pack(key: str) -> RulePack:
    try:
        return RULE_PACKS[key]
    except KeyError:
        known = ", ".join(sorted(RULE_PACKS))
        raise ValueError(f"unknown rule pack '{key}' (known: {known})") from None


def governing_category(timeline: Timeline, pack: RulePack) -> CategoryRule:
    """The category whose rules govern: the single category, or a batch's longest period."""
    if timeline.category is not None:
        return pack.categories[timeline.category]
    return max((pack.categories[c] for c in timeline.batch), key=lambda c: (c.days, c.key))
