"""Milestones (gates) and the words that name them (reference conditions.md §1).

The milestone list and its phrase patterns are data (rules/data/milestones/default.json) so a
jurisdiction can rename, reorder or add milestones without code. `detect_gates` answers
"which milestones do these words name?" in the milestones' own order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "milestones" / "default.json"
UNSPECIFIED = "unspecified"

# Patterns are written for this normalised form so the data never has to spell out
# Unicode dashes, curly quotes or line wraps.
_DASHES = re.compile(r"[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile(r"\s+")

# Words inside a permit list ("a grading, encroachment or building permit").
_LIST_TOKEN = re.compile(r"[a-z]+|[,/&]")
_ARTICLES = frozenset({"a", "an", "any", "the", "all", "each"})
_SEPARATORS = frozenset({",", "/", "&", "or", "and"})


class MilestoneDataError(ValueError):
    """The milestone file is malformed; the message names the entry."""


def search_text(text: str) -> str:
    """The form every gate and kind pattern is searched in."""
    text = _DASHES.sub("-", text)
    text = text.replace("\u2018", "'").replace("\u2019", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    return _SPACES.sub(" ", text).strip().lower()


@dataclass(frozen=True)
class Milestone:
    key: str
    label: str
    patterns: tuple[tuple[re.Pattern[str], bool], ...]  # (pattern, assumed)
    heading_patterns: tuple[re.Pattern[str], ...] = ()
    permit_words: tuple[str, ...] = ()
    period: bool = False  # monitored while it lasts, not cleared before an event


@dataclass(frozen=True)
class MilestoneSet:
    milestones: tuple[Milestone, ...]
    permit_list_trigger: re.Pattern[str] | None
    department_keywords: tuple[str, ...] = ()
    department_defaults: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = ()
    _order: Mapping[str, int] = field(default_factory=dict)
    not_gate: tuple[re.Pattern[str], ...] = ()  # "Code in effect at the time of ..."
    follows_patterns: tuple[re.Pattern[str], ...] = ()  # "prior to the first inspection"

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.milestones]

    @property
    def period_keys(self) -> frozenset[str]:
        return frozenset(m.key for m in self.milestones if m.period)

    def ordered(self, keys: Iterable[str]) -> list[str]:
        """Keys without repeats, in milestone order (unknown keys last, as given)."""
        seen = list(dict.fromkeys(keys))
        return sorted(seen, key=lambda k: self._order.get(k, len(self._order)))

    def find(self, text: str, *, heading: bool = False) -> dict[str, bool]:
        """Milestones named in `text`, each with True when only an assumed pattern named it."""
        s = search_text(text)
        for pattern in self.not_gate:
            s = pattern.sub(" ", s)
        found: dict[str, bool] = {}

        def hit(key: str, assumed: bool) -> None:
            found[key] = found.get(key, True) and assumed

        for m in self.milestones:
            # One search per milestone and confidence: its patterns joined (data order kept).
            for pattern, assumed in _joined(m.patterns):
                if pattern.search(s):
                    hit(m.key, assumed)
            if heading:
                for pattern in m.heading_patterns:
                    if pattern.search(s):
                        hit(m.key, False)
        if self.permit_list_trigger is not None:
            words = {w: m.key for m in self.milestones for w in m.permit_words}
            for match in self.permit_list_trigger.finditer(s):
                for key in _permit_list(s, match.end(), words):
                    hit(key, False)
        return {k: found[k] for k in self.ordered(found)}

    def phrases(self, text: str) -> dict[str, str]:
        """The words (in the search form) that named each milestone `find` finds: the
        evidence a reviewer reads."""
        s = search_text(text)
        for pattern in self.not_gate:
            s = pattern.sub(" ", s)
        out: dict[str, str] = {}
        for m in self.milestones:
            for pattern, _ in _joined(m.patterns):
                hit = pattern.search(s)
                if hit and m.key not in out:
                    out[m.key] = hit.group(0).strip()
        if self.permit_list_trigger is not None:
            words = {w: m.key for m in self.milestones for w in m.permit_words}
            for match in self.permit_list_trigger.finditer(s):
                for key in _permit_list(s, match.end(), words):
                    out.setdefault(key, s[match.start() : match.end() + 60].rsplit(" ", 1)[0])
        return out

    def follows(self, text: str) -> bool:
        """Words naming a moment after the permit a section gates ("prior to the first
        inspection"): such a condition does not also hold the inherited permit."""
        s = search_text(text)
        return any(p.search(s) for p in self.follows_patterns)

    def detect(self, text: str, *, heading: bool = False) -> list[str]:
        return list(self.find(text, heading=heading))

    def default_for_department(self, heading: str) -> list[str]:
        s = search_text(heading)
        for pattern, gates in self.department_defaults:
            if pattern.search(s):
                return list(gates)
        return []


_JOINED: dict[tuple[tuple[re.Pattern[str], bool], ...], list[tuple[re.Pattern[str], bool]]] = {}


def _joined(
    patterns: tuple[tuple[re.Pattern[str], bool], ...],
) -> list[tuple[re.Pattern[str], bool]]:
    """The patterns as one alternation per `assumed` flag (compiled once per milestone)."""
    joined = _JOINED.get(patterns)
    if joined is None:
        joined = [
            (re.compile("|".join(f"(?:{p.pattern})" for p, a in patterns if a is flag)), flag)
            for flag in (False, True)
            if any(a is flag for _, a in patterns)
        ]
        _JOINED[patterns] = joined
    return joined


def _permit_list(s: str, start: int, words: Mapping[str, str]) -> list[str]:
    """Milestones named by the permit list that starts at `start`: "a grading or building
    permit", "an Encroachment Permit, Grading Permit or Building Permit", "Grading/Building
    permit". Stops at the first word that is not part of the list."""
    tokens = _LIST_TOKEN.findall(s[start : start + 160])
    found: list[str] = []
    pending: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in _ARTICLES or tok in _SEPARATORS:
            continue
        if tok in ("permit", "permits"):
            nxt = tokens[i] if i < len(tokens) else ""
            if nxt.startswith("application"):
                break  # "building permit application" is its own milestone
            found.extend(pending)
            pending = []
            if nxt in _SEPARATORS:
                continue
            break
        pending.append(tok)
        if len(pending) > 3:
            break
    return [words[w] for w in found if w in words]


def _compile(source: Any, where: str) -> re.Pattern[str]:
    if not isinstance(source, str) or not source:
        raise MilestoneDataError(f"{where}: a pattern must be a non-empty string")
    try:
        return re.compile(source)
    except re.error as err:
        raise MilestoneDataError(f"{where}: {err}") from None


def parse_milestones(raw: Any) -> MilestoneSet:
    """Build a MilestoneSet from the data file's JSON shape (see default.json's notes)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("milestones"), list):
        raise MilestoneDataError("milestones: expected an object with a 'milestones' list")
    milestones: list[Milestone] = []
    for i, item in enumerate(raw["milestones"]):
        where = f"milestones[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise MilestoneDataError(f"{where}: needs a string 'key'")
        key = item["key"]
        patterns: list[tuple[re.Pattern[str], bool]] = []
        for j, p in enumerate(item.get("patterns", [])):
            if isinstance(p, dict):
                patterns.append(
                    (_compile(p.get("pattern"), f"{where}.patterns[{j}]"), bool(p.get("assumed")))
                )
            else:
                patterns.append((_compile(p, f"{where}.patterns[{j}]"), False))
        heading = tuple(
            _compile(p, f"{where}.heading_patterns[{j}]")
            for j, p in enumerate(item.get("heading_patterns", []))
        )
        milestones.append(
            Milestone(
                key=key,
                label=str(item.get("label") or key.replace("_", " ").capitalize()),
                patterns=tuple(patterns),
                heading_patterns=heading,
                permit_words=tuple(str(w).lower() for w in item.get("permit_words", [])),
                period=bool(item.get("period", False)),
            )
        )
    keys = [m.key for m in milestones]
    if len(set(keys)) != len(keys) or UNSPECIFIED in keys:
        raise MilestoneDataError("milestones: keys must be unique and not 'unspecified'")
    trigger = raw.get("permit_list_trigger")
    depts = raw.get("departments") or {}
    defaults: list[tuple[re.Pattern[str], tuple[str, ...]]] = []
    for j, d in enumerate(depts.get("defaults", [])):
        gates = tuple(d.get("gates") or [d.get("gate")])
        unknown = [g for g in gates if g not in keys]
        if unknown:
            raise MilestoneDataError(f"departments.defaults[{j}]: unknown gate(s) {unknown}")
        defaults.append((_compile(d.get("department"), f"departments.defaults[{j}]"), gates))
    return MilestoneSet(
        milestones=tuple(milestones),
        permit_list_trigger=_compile(trigger, "permit_list_trigger") if trigger else None,
        department_keywords=tuple(str(w).lower() for w in depts.get("keywords", [])),
        department_defaults=tuple(defaults),
        _order={k: i for i, k in enumerate(keys)},
        not_gate=tuple(
            _compile(p, f"not_gate_patterns[{j}]")
            for j, p in enumerate(raw.get("not_gate_patterns", []))
        ),
        follows_patterns=tuple(
            _compile(p, f"follows_patterns[{j}]")
            for j, p in enumerate(raw.get("follows_patterns", []))
        ),
    )


def load_milestones(path: Path | str | None = None) -> MilestoneSet:
    """The milestone file (default: rules/data/milestones/default.json) as a MilestoneSet:
    the one loader, which the parser detects gates by and notices.vocabulary labels and
    orders letters and pages by."""
    return parse_milestones(json.loads(Path(path or DATA_FILE).read_text("utf-8")))


DEFAULT = load_milestones()
MILESTONES: list[Milestone] = list(DEFAULT.milestones)
MILESTONE_KEYS: tuple[str, ...] = tuple(DEFAULT.keys)
PERIOD_GATES: frozenset[str] = DEFAULT.period_keys


def detect_gates(text: str, milestones: MilestoneSet | None = None) -> list[str]:
    """Milestone keys the words name, in milestone order ("prior to issuance of a grading or
    building permit" names both). Empty when none is named."""
    return (milestones or DEFAULT).detect(text)
