"""Related conditions (step 8 of rules.conditions.parser): the same mitigation code, or a
substantive sentence that two conditions (and no third) share near-verbatim."""

from __future__ import annotations

import re
from collections import Counter

from models.conditions import ConditionSpec
from rules.conditions.gates import search_text

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_MIN_DISTINCT = 4  # distinctive words a shared sentence needs
_COMMON_SHARE = 0.08  # a word in this share of the conditions is not distinctive


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text) if len(w) >= 3)


def link_related(specs: list[ConditionSpec], warnings: list[str]) -> None:
    """Link the same mitigation code, and two conditions that share a sentence: every
    distinctive word of the shorter sentence is in the longer (words used by many conditions,
    such as "review and approval by the City Engineer", do not count), and no third condition
    shares it (boilerplate links nothing). A changed subject ("storm drain" against "sewer")
    leaves a word out, so templated sentences about different things stay apart."""
    links = _same_code(specs)
    pairs = {pair for pair in _sharing_a_sentence(specs) if pair[1] not in links[pair[0]]}
    for a, b in sorted(pairs, key=lambda p: (_key(p[0]), _key(p[1]))):
        links[a].add(b)
        links[b].add(a)
        warnings.append(f"Conditions {a} and {b} look like the same obligation; linked as related")
    for s in specs:
        s.related = sorted(links[s.number], key=_key)


def _same_code(specs: list[ConditionSpec]) -> dict[str, set[str]]:
    """Condition number -> the other conditions with its mitigation code."""
    links: dict[str, set[str]] = {s.number: set() for s in specs}
    by_code: dict[str, list[str]] = {}
    for s in specs:
        if s.code:
            by_code.setdefault(s.code, []).append(s.number)
    for numbers in by_code.values():
        for a in numbers:
            links[a].update(n for n in numbers if n != a)
    return links


def _distinctive_sentences(specs: list[ConditionSpec]) -> list[tuple[str, frozenset[str]]]:
    """(condition number, distinctive words) of every sentence with enough of them."""
    split = {
        s.number: [
            _words(x)
            for x in _SENTENCE_END.split(search_text(s.text))
            if not x.rstrip().endswith(":")  # a list's introduction, not its content
        ]
        for s in specs
    }
    df = Counter(w for sentences in split.values() for w in frozenset().union(*sentences))
    common = max(4, _COMMON_SHARE * len(specs))
    sentences: list[tuple[str, frozenset[str]]] = []
    for number, parts in split.items():
        for words in parts:
            distinct = frozenset(w for w in words if df[w] < common)
            if len(distinct) >= _MIN_DISTINCT:
                sentences.append((number, distinct))
    return sentences


def _sharing_a_sentence(specs: list[ConditionSpec]) -> set[tuple[str, str]]:
    """Pairs of conditions (in number order) of which one holds a sentence of the other's,
    or whose sentence holds one of the other's, and no third condition does."""
    sentences = _distinctive_sentences(specs)
    index: dict[str, set[int]] = {}
    for i, (_, words) in enumerate(sentences):
        for w in words:
            index.setdefault(w, set()).add(i)
    pairs: set[tuple[str, str]] = set()
    for number, words in sentences:
        holding = set.intersection(*(index[w] for w in words))  # sentences holding all of it
        sharing = set.union(*(index[w] for w in words))
        held = {i for i in sharing if sentences[i][1] <= words}  # sentences it holds
        others = {sentences[i][0] for i in holding | held} - {number}
        if len(others) == 1:
            other = next(iter(others))
            pairs.add(tuple(sorted((number, other), key=_key)))  # type: ignore[arg-type]
    return pairs


def _key(number: str) -> tuple[int, str]:
    m = re.match(r"\d+", number)
    return (int(m.group(0)) if m else 0, number)
