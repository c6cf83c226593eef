"""Pure shot clock computations per second on one core.

A fixed set of realistic timelines (every category, a small-wireless batch, a California
clock with a tolling notice and a resubmission, a small-wireless reset, a tolling
agreement, a decision, an eligible facilities request with a deemed-granted notice, a
local rule pack) is parsed once; then `rules.shot_clock.engine.compute` is called round-robin
over them for a few seconds in this single process. `compute_json` (parse + compute,
what `clearance clock compute` and every workflow recomputation do) is measured the same
way.

    .venv/bin/python -m bench.compute_throughput [--seconds 3]
"""

from __future__ import annotations

from typing import Any

from bench.common import event as _ev
from bench.common import rate, rate_main
from rules.shot_clock.engine import compute, compute_json
from rules.shot_clock.timeline import parse_timeline

GOAL_PER_SECOND = 10_000

ITEMS = [
    {"id": "A", "text": "structural calculations", "rule": "CMC 17.44.070(A)"},
    {"id": "B", "text": "RF compliance report", "rule": "CMC 17.44.070(B)"},
]


def _tl(category: str | None, *events: dict[str, Any], **top: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"events": list(events), **top}
    if category is not None:
        raw["category"] = category
    return raw


# (name, contract input): what planners actually record, not toy one-liners only.
TIMELINES: list[tuple[str, dict[str, Any]]] = [
    ("swf_collocation", _tl("swf_collocation", _ev("submitted", "2026-01-05"))),
    ("macro_collocation", _tl("macro_collocation", _ev("submitted", "2026-01-06"))),
    ("swf_new_structure", _tl("swf_new_structure", _ev("submitted", "2026-01-06"))),
    ("macro_new_structure", _tl("macro_new_structure", _ev("submitted", "2026-01-05"))),
    ("efr", _tl("eligible_facilities_request", _ev("submitted", "2026-01-06"))),
    (
        "swf_batch",
        _tl(
            None,
            _ev("submitted", "2026-01-05"),
            _ev("incomplete_notice", "2026-01-12", items=ITEMS[:1]),
            _ev("resubmitted", "2026-02-02"),
            batch=["swf_collocation", "swf_new_structure", "swf_collocation"],
        ),
    ),
    (
        "ca_toll_resubmission",
        _tl(
            "macro_collocation",
            _ev("pre_application", "2026-01-26"),
            _ev("submitted", "2026-01-30"),
            _ev("incomplete_notice", "2026-02-20", items=ITEMS),
            _ev("resubmitted", "2026-03-10"),
            state="CA",
            local_holidays=["2026-12-24", "2026-12-31"],
            as_of="2026-04-01",
        ),
    ),
    (
        "swf_reset_second_notice",
        _tl(
            "swf_collocation",
            _ev("submitted", "2026-01-05"),
            _ev("incomplete_notice", "2026-01-12", items=ITEMS),
            _ev("resubmitted", "2026-02-02"),
            _ev("incomplete_notice", "2026-02-09", items=ITEMS[1:]),
            _ev("resubmitted", "2026-02-20"),
            as_of="2026-03-01",
        ),
    ),
    (
        "tolling_agreement",
        _tl(
            "macro_new_structure",
            _ev("submitted", "2026-01-05"),
            _ev("tolling_agreement", "2026-02-01", days=30),
            _ev("tolling_agreement", "2026-05-01", new_date="2026-08-03"),
            state="CA",
            as_of="2026-06-01",
        ),
    ),
    (
        "decision",
        _tl(
            "macro_collocation",
            _ev("submitted", "2026-01-06"),
            _ev("incomplete_notice", "2026-01-20", items=ITEMS[:1]),
            _ev("resubmitted", "2026-02-03"),
            _ev("hearing_notice", "2026-03-01"),
            _ev("decision", "2026-04-06", outcome="approved_with_conditions"),
            state="CA",
        ),
    ),
    (
        "efr_deemed_granted",
        _tl(
            "eligible_facilities_request",
            _ev("submitted", "2026-01-05"),
            _ev("deemed_granted_notice", "2026-03-07"),
        ),
    ),
    (
        "ca_deemed_approved",
        _tl(
            "macro_collocation",
            _ev("submitted", "2026-01-06"),
            _ev("applicant_public_notice", "2026-04-08"),
            _ev("deemed_approved_notice", "2026-04-10"),
            state="CA",
        ),
    ),
    (
        "cotati_pack",
        _tl(
            "swf_new_structure",
            _ev("submitted", "2026-03-02"),
            _ev("incomplete_notice", "2026-03-20", items=ITEMS),
            _ev("resubmitted", "2026-04-15"),
            state="CA",
            rule_pack="cotati-2024",
            local_holidays=["2026-12-24", "2026-12-31"],
            as_of="2026-05-01",
        ),
    ),
]


def run(seconds: float = 3.0, warmup: float = 0.5) -> dict[str, Any]:
    parsed = [parse_timeline(raw) for _, raw in TIMELINES]
    raws = [raw for _, raw in TIMELINES]
    # Sanity: every timeline computes (a broken one would make the figure meaningless).
    for (name, _), timeline in zip(TIMELINES, parsed, strict=True):
        if not compute(timeline).get("status"):
            raise RuntimeError(f"timeline {name} computed no status")
    rate(compute, parsed, warmup)
    rate(compute_json, raws, warmup)
    calls, elapsed, cpu = rate(compute, parsed, seconds)
    json_calls, json_elapsed, json_cpu = rate(compute_json, raws, seconds)
    result = {
        "compute_cpu_per_s": calls / cpu,
        "compute_json_cpu_per_s": json_calls / json_cpu,
        "timelines": len(parsed),
        "compute_per_s": calls / elapsed,
        "compute_us": elapsed / calls * 1e6,
        "compute_json_per_s": json_calls / json_elapsed,
        "compute_json_us": json_elapsed / json_calls * 1e6,
        "seconds": seconds,
    }
    print(
        f"compute:      {result['compute_per_s']:>10,.0f} /s "
        f"({result['compute_us']:.1f} µs each, {len(parsed)} timelines, one process)"
    )
    print(
        f"compute_json: {result['compute_json_per_s']:>10,.0f} /s "
        f"({result['compute_json_us']:.1f} µs each, parse + compute)"
    )
    print(
        f"per CPU second (unaffected by other load): compute "
        f"{result['compute_cpu_per_s']:,.0f} /s, compute_json "
        f"{result['compute_json_cpu_per_s']:,.0f} /s"
    )
    return result


def main() -> None:
    rate_main(__doc__, run, "compute_per_s", GOAL_PER_SECOND, f"goal ≥ {GOAL_PER_SECOND:,}/s")


if __name__ == "__main__":
    main()
