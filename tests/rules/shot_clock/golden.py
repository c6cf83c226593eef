"""Helpers of the golden tests (test_golden_*.py): timelines built in a line each, and
readers of the compute contract's result.

Reference: /work/shared/reference/shot-clocks.md (§1 categories, §2 counting, §3 tolling,
§4 outcomes, §5 contract, §6 worked examples). Every expected date in the golden tests
is worked out by hand from the rules (the arithmetic is in the comments), never by
asking the engine.

Counting convention (§2): shot clock date = start + period + tolled days, counted from
the day after the start; then roll forward over weekends and holidays (not for EFRs).
"""

from __future__ import annotations

from typing import Any

from rules.shot_clock.engine import compute_json

RULE_A = "CMC 17.44.070(A)"
RULE_B = "CMC 17.44.070(B)"


def ev(kind: str, when: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "date": when, **fields}


def submitted(when: str) -> dict[str, Any]:
    return ev("submitted", when)


def notice(when: str, *ids: str) -> dict[str, Any]:
    """A notice of incompleteness listing items, each citing a rule (1.6003(d))."""
    rules = {"A": RULE_A, "B": RULE_B}
    items = [{"id": i, "text": f"item {i}", "rule": rules.get(i, RULE_A)} for i in ids or ("A",)]
    return ev("incomplete_notice", when, items=items)


def resubmitted(when: str) -> dict[str, Any]:
    return ev("resubmitted", when)


def timeline(
    category: str | None = None,
    *events: dict[str, Any],
    batch: list[str] | None = None,
    state: str | None = None,
    local_holidays: list[str] | None = None,
    as_of: str | None = None,
    rule_pack: str | None = None,
) -> dict[str, Any]:
    raw: dict[str, Any] = {"events": list(events)}
    if category is not None:
        raw["category"] = category
    if batch is not None:
        raw["batch"] = batch
    if state is not None:
        raw["state"] = state
    if local_holidays is not None:
        raw["local_holidays"] = local_holidays
    if as_of is not None:
        raw["as_of"] = as_of
    if rule_pack is not None:
        raw["rule_pack"] = rule_pack
    return raw


def run(category: str | None = None, *events: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return compute_json(timeline(category, *events, **kw))


def ledger(result: dict[str, Any]) -> list[tuple[str, str, int | None, str]]:
    """The ledger as (date, event, days, rule) rows; the effect text is checked apart."""
    return [(e["date"], e["event"], e["days"], e["rule"]) for e in result["ledger"]]


def entries(result: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [e for e in result["ledger"] if e["event"] == event]


def only_entry(result: dict[str, Any], event: str) -> dict[str, Any]:
    found = entries(result, event)
    assert len(found) == 1, found
    return found[0]


def windows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(w["kind"], w["closes"], w["rule"]) for w in result["notice_windows"]]


def alt_dates(result: dict[str, Any]) -> list[str | None]:
    return [a["shot_clock_date"] for a in result["alternatives"]]


def has_warning(result: dict[str, Any], *needles: str) -> bool:
    return any(all(n in w for n in needles) for w in result["warnings"])


MACRO_NEW = "macro_new_structure"


def example_2_events() -> list[dict[str, Any]]:
    # §6 example 2: notice on day 21, resubmitted Feb 20 → 25 tolled days.
    return [submitted("2026-01-05"), notice("2026-01-26", "A", "B"), resubmitted("2026-02-20")]


def macro_apr_6(*events: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """macro_collocation submitted Tue Jan 6, 2026: Jan 6 + 90 = Mon Apr 6."""
    return run("macro_collocation", submitted("2026-01-06"), *events, **kw)
