"""Properties of revision 3 over generated map and decision timelines: a grant never
carries a map past its hard stop, the conservative date is never later than the literal
one (nor than any reading listed), and statutory extensions never count against the
cap on discretionary extensions."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.kernel.counting import add_months
from rules.permit_clocks import compute_permit_clock

MAP = "ca_tentative_map_expiry"
APPROVED = st.dates(min_value=date(2021, 1, 1), max_value=date(2030, 12, 31))


def iso(d: date) -> str:
    return d.isoformat()


@st.composite
def map_timelines(draw: st.DrawFn, approved: st.SearchStrategy[date] = APPROVED) -> dict[str, Any]:
    """A map with, in date order: maybe a moratorium, then requests and grants of any
    size (past the cap too, late or not)."""
    day = draw(approved)
    events: list[dict[str, Any]] = [{"type": "approved", "date": iso(day)}]
    if draw(st.booleans()):
        day += timedelta(days=draw(st.integers(1, 900)))
        events.append({"type": "paused", "date": iso(day), "reason": "moratorium"})
        day += timedelta(days=draw(st.integers(0, 400)))
        events.append({"type": "resumed", "date": iso(day)})
    for _ in range(draw(st.integers(0, 3))):
        day += timedelta(days=draw(st.integers(1, 1200)))
        events.append({"type": "extension_requested", "date": iso(day)})
        day += timedelta(days=draw(st.integers(0, 200)))
        months = draw(st.integers(1, 90))
        events.append({"type": "extension_granted", "date": iso(day), "months": months})
    return {
        "rule": MAP,
        "facts": {"ordinance_months": draw(st.integers(0, 12)), "housing": draw(st.booleans())},
        "events": events,
    }


def every_date(result: dict[str, Any]) -> list[str]:
    dates = [result["due_date"], result["conservative_date"]]
    dates += [a["due_date"] for a in result["alternatives"]]
    return [d for d in dates if d]


@settings(max_examples=150, deadline=None)
@given(map_timelines())
def test_a_grant_never_passes_the_hard_stop(request: dict[str, Any]) -> None:
    r = compute_permit_clock(request)
    assert r["hard_stop"] is not None
    for day in every_date(r):
        assert day <= r["hard_stop"], (day, r["hard_stop"])
    ext = r["extensions"]
    assert 0 <= ext["months_used"] <= ext["cap_months"] == 72
    assert ext["months_left"] == 72 - ext["months_used"]


@st.composite
def decision_timelines(draw: st.DrawFn) -> dict[str, Any]:
    """A PSA decision whose deadline may roll, with one agreed extension."""
    start = draw(st.dates(min_value=date(2025, 7, 1), max_value=date(2029, 12, 31)))
    document = draw(
        st.sampled_from(["exempt", "eir", "eir_housing", "negative_declaration", "exempt_21080_66"])
    )
    agreed = start + timedelta(days=draw(st.integers(0, 60)))
    return {
        "rule": "ca_psa_decision",
        "events": [
            {"type": "ceqa", "date": iso(start), "document": document},
            {"type": "extension_agreed", "date": iso(agreed), "days": draw(st.integers(1, 90))},
        ],
        "calendar": {"closures": [iso(d) for d in draw(st.lists(APPROVED, max_size=4))]},
    }


@settings(max_examples=150, deadline=None)
@given(st.one_of(map_timelines(), decision_timelines()))
def test_the_conservative_date_is_never_later_than_the_literal_one(request: dict[str, Any]) -> None:
    r = compute_permit_clock(request)
    if r["conservative_date"] is None:
        return
    assert r["conservative_date"] <= r["due_date"]
    for alt in r["alternatives"]:
        if alt["due_date"]:
            assert r["conservative_date"] <= alt["due_date"], alt["reading"]


# Approved from 2024 on, so that no statutory extension of the pack (AB 2729 reaches
# entitlements issued before 2024-01-01) changes with the recorded one.
LATER = st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31))


@settings(max_examples=150, deadline=None)
@given(map_timelines(LATER), st.integers(1, 36), st.integers(0, 400))
def test_statutory_extensions_never_count_against_the_cap(
    request: dict[str, Any], months: int, after: int
) -> None:
    last = max(date.fromisoformat(e["date"]) for e in request["events"])
    statute = {
        "type": "statutory_extension",
        "date": iso(last + timedelta(days=after)),
        "months": months,
        "citation": "Gov. Code 66452.25",
    }
    without = compute_permit_clock(request)
    extended = compute_permit_clock({**request, "events": [*request["events"], statute]})
    for key in ("months_used", "months_left", "cap_months"):
        assert extended["extensions"][key] == without["extensions"][key], key
    added = extended["extensions"]["statutory_months"]
    assert added in (0, months)  # none when the map had already expired that day
    if added:
        # The end of the discretionary cap moves by the statutory months, and so does
        # the expiry unless the hard stop already held it.
        stop = date.fromisoformat(without["hard_stop"])
        assert extended["hard_stop"] == iso(add_months(stop, months))
        assert extended["due_date"] > without["due_date"]
    else:
        assert extended["due_date"] == without["due_date"]
