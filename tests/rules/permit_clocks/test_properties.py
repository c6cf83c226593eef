"""Properties over generated timelines: the conservative date never follows the literal
one, business-day deadlines land on business days, and an extension never shortens."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.permit_clocks import PERMIT_RULES, PermitClockError, compute_permit_clock
from rules.permit_clocks.request import parse_request

DAYS = st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31))
OFFSET = st.integers(min_value=0, max_value=400)


def iso(d: date) -> str:
    return d.isoformat()


def clocks(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = [result]
    for child in result["next"]:
        out += clocks(child)
    return out


@st.composite
def timelines(draw: st.DrawFn) -> dict[str, Any]:
    start = draw(DAYS)
    later = [start + timedelta(days=draw(OFFSET)) for _ in range(3)]
    later.sort()
    units = draw(st.integers(min_value=1, max_value=400))
    closures = draw(st.lists(DAYS, max_size=6))
    adopted = draw(st.lists(DAYS, max_size=6))
    choice = draw(st.sampled_from(range(7)))
    if choice == 0:
        rule, facts = "ca_psa_completeness", {"housing": True, "units": units}
        events = [{"type": "received", "date": iso(start)}]
        events += draw(
            st.sampled_from(
                [
                    [],
                    [{"type": "complete", "date": iso(later[0])}],
                    [
                        {"type": "incomplete_notice", "date": iso(later[0]), "items": ["a"]},
                        {"type": "resubmitted", "date": iso(later[1])},
                    ],
                ]
            )
        )
    elif choice == 1:
        rule, facts = "ca_post_entitlement_review", {"units": units}
        events = [{"type": "complete", "date": iso(start)}]
        if draw(st.booleans()):
            events += [
                {"type": "paused", "date": iso(later[0]), "reason": "outside_agency_review"},
                {"type": "resumed", "date": iso(later[1])},
            ]
    elif choice == 2:
        rule, facts = "ca_psa_decision", {}
        document = draw(st.sampled_from(["exempt", "eir", "eir_housing", "negative_declaration"]))
        events = [{"type": "ceqa", "date": iso(start), "document": document}]
        if draw(st.booleans()):
            days = draw(st.integers(min_value=1, max_value=90))
            events.append({"type": "extension_agreed", "date": iso(later[0]), "days": days})
    elif choice == 3:
        rule, facts = "building_permit_expiry", {}
        events = [{"type": "approved", "date": iso(start)}]
        for when in later[:2]:
            events.append(
                draw(
                    st.sampled_from(
                        [
                            {
                                "type": "inspection",
                                "date": iso(when),
                                "result": "approved",
                                "qualifying": True,
                            },
                            {"type": "inspection", "date": iso(when), "result": "failed"},
                            {"type": "extension_granted", "date": iso(when), "days": 180},
                        ]
                    )
                )
            )
    elif choice == 4:
        rule, facts = "ca_tentative_map_expiry", {"ordinance_months": draw(st.integers(0, 12))}
        events = [{"type": "approved", "date": iso(start)}]
        if draw(st.booleans()):
            events += [
                {"type": "extension_requested", "date": iso(later[1])},
                {"type": "extension_granted", "date": iso(later[2]), "months": 12},
            ]
    elif choice == 5:
        rule, facts = "ca_sb330_full_application", {}
        events = [{"type": "preliminary_application", "date": iso(start)}]
    else:
        rule, facts = "cotati_sign_permit_expiry", {}
        events = [
            {"type": "approved", "date": iso(start)},
            {"type": "companion_expiry", "date": iso(later[0]), "until": iso(later[2])},
        ]
    as_of = max(date.fromisoformat(e["date"]) for e in events) + timedelta(days=draw(OFFSET))
    return {
        "rule": rule,
        "facts": facts,
        "events": events,
        "calendar": {"adopted": [iso(d) for d in adopted], "closures": [iso(d) for d in closures]},
        "as_of": iso(as_of),
    }


@settings(max_examples=200, deadline=None)
@given(timelines())
def test_conservative_date_never_after_the_literal_date(request: dict[str, Any]) -> None:
    for clock in clocks(compute_permit_clock(request)):
        if clock["due_date"] and clock["conservative_date"]:
            assert clock["conservative_date"] <= clock["due_date"], clock["rule"]
        for alt in clock["alternatives"]:
            if alt["due_date"] and clock["conservative_date"]:
                assert clock["conservative_date"] <= alt["due_date"]


@settings(max_examples=200, deadline=None)
@given(
    DAYS,
    st.integers(min_value=1, max_value=400),
    st.lists(DAYS, max_size=15),
    st.lists(DAYS, max_size=15),
    st.sampled_from(["ca_post_entitlement_review", "ca_post_entitlement_completeness"]),
)
def test_business_day_deadlines_land_on_business_days(
    start: date, units: int, adopted: list[date], closures: list[date], rule: str
) -> None:
    event = "complete" if rule == "ca_post_entitlement_review" else "received"
    request = {
        "rule": rule,
        "facts": {"units": units},
        "events": [{"type": event, "date": iso(start)}],
        "calendar": {"adopted": [iso(d) for d in adopted], "closures": [iso(d) for d in closures]},
    }
    result = compute_permit_clock(request)
    due = date.fromisoformat(result["due_date"])
    conservative = date.fromisoformat(result["conservative_date"])
    assert due.weekday() < 5 and due not in adopted and due not in closures
    assert conservative.weekday() < 5 and conservative not in adopted
    assert due > start
    calendar = parse_request(request).calendar
    assert calendar.closed("business_days", "literal").reason(due) is None


@st.composite
def extended(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    start = draw(DAYS)
    kind = draw(st.sampled_from(["decision", "building", "map", "ltp", "sign"]))
    if kind == "decision":
        base = {
            "rule": "ca_psa_decision",
            "events": [{"type": "ceqa", "date": iso(start), "document": "exempt"}],
        }
        grant = [
            {
                "type": "extension_agreed",
                "date": iso(start + timedelta(days=draw(st.integers(0, 58)))),
                "days": draw(st.integers(1, 90)),
            }
        ]
    elif kind == "building":
        base = {
            "rule": "building_permit_expiry",
            "events": [{"type": "approved", "date": iso(start)}],
        }
        grant = [
            {
                "type": "extension_granted",
                "date": iso(start + timedelta(days=draw(st.integers(0, 180)))),
                "days": draw(st.integers(1, 180)),
            }
        ]
    elif kind == "map":
        base = {
            "rule": "ca_tentative_map_expiry",
            "events": [{"type": "approved", "date": iso(start)}],
        }
        when = start + timedelta(days=draw(st.integers(0, 700)))
        grant = [
            {"type": "extension_requested", "date": iso(when)},
            {
                "type": "extension_granted",
                "date": iso(when + timedelta(days=draw(st.integers(0, 120)))),
                "months": draw(st.integers(1, 72)),
            },
        ]
    elif kind == "ltp":
        base = {"rule": "cotati_ltp_term", "events": [{"type": "approved", "date": iso(start)}]}
        grant = [
            {
                "type": "extension_granted",
                "date": iso(start + timedelta(days=draw(st.integers(0, 360)))),
                "months": draw(st.integers(1, 12)),
            }
        ]
    else:
        base = {
            "rule": "cotati_sign_permit_expiry",
            "events": [{"type": "approved", "date": iso(start)}],
        }
        when = start + timedelta(days=draw(st.integers(0, 360)))
        grant = [
            {"type": "extension_requested", "date": iso(when)},
            {
                "type": "extension_granted",
                "date": iso(when + timedelta(days=draw(st.integers(0, 60)))),
            },
        ]
    return base, {**base, "events": [*base["events"], *grant]}


@settings(max_examples=200, deadline=None)
@given(extended())
def test_an_extension_never_shortens_a_clock(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
    before, after = (compute_permit_clock(r) for r in pair)
    assert after["due_date"] >= before["due_date"]
    assert after["conservative_date"] >= before["conservative_date"]
    for alt in after["alternatives"]:
        assert alt["due_date"] >= before["conservative_date"]


EVENT_TYPES = sorted(
    {
        "received", "resubmitted", "complete", "incomplete_notice", "ceqa", "decision",
        "extension_agreed", "extension_granted", "extension_requested", "extension_denied",
        "paused", "resumed", "approved", "exercised", "inspection", "companion_expiry",
        "withdrawn", "public_notice", "project_changed", "preliminary_application",
        "full_application", "appeal_filed", "inconsistency_notice", "restored",
    }
)  # fmt: skip


@st.composite
def any_event(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(EVENT_TYPES))
    event: dict[str, Any] = {"type": kind, "date": iso(draw(DAYS))}
    extras = {
        "items": st.just(["a"]),
        "document": st.sampled_from(["exempt", "eir", "eir_housing"]),
        "days": st.integers(min_value=-3, max_value=400),
        "months": st.integers(min_value=0, max_value=100),
        "reason": st.sampled_from(["moratorium", "outside_agency_review", "other"]),
        "until": DAYS.map(iso),
        "result": st.sampled_from(["approved", "failed"]),
        "qualifying": st.booleans(),
        "units_change_pct": st.floats(min_value=0, max_value=50),
    }
    for name in draw(st.lists(st.sampled_from(sorted(extras)), max_size=3, unique=True)):
        event[name] = draw(extras[name])
    return event


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(PERMIT_RULES)),
    st.lists(any_event(), max_size=8),
    st.none() | DAYS.map(iso),
    st.integers(min_value=0, max_value=300),
)
def test_any_timeline_computes_or_names_what_is_wrong(
    rule: str, events: list[dict[str, Any]], as_of: str | None, units: int
) -> None:
    facts = {name: units for name in ("units",) if name in PERMIT_RULES[rule].facts}
    request = {"rule": rule, "events": events, "facts": facts, "as_of": as_of}
    try:
        result = compute_permit_clock(request)
    except PermitClockError as err:
        assert "\n" not in str(err) and ":" in str(err)
        return
    for clock in clocks(result):
        assert clock["status"] in {
            "awaiting_start", "running", "paused", "met", "met_late", "lapsed", "withdrawn",
        }  # fmt: skip
        if clock["due_date"] and clock["conservative_date"]:
            assert clock["conservative_date"] <= clock["due_date"]
