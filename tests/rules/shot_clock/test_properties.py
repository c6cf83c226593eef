"""Property tests: invariants of the shot clock engine over random valid timelines.

Reference: /work/shared/reference/shot-clocks.md (§2 counting, §3 tolling, §5 contract).
Deterministic (derandomized, no example database) and small enough to run in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.kernel.calendars import calendar_for
from rules.kernel.input import TimelineError
from rules.shot_clock.engine import compute_json
from tests.contract import CONTRACT_KEYS

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

CATEGORIES = [
    "swf_collocation",
    "macro_collocation",
    "swf_new_structure",
    "macro_new_structure",
    "eligible_facilities_request",
]
SWF = ["swf_collocation", "swf_new_structure"]
STATUSES = {
    "awaiting_submission",
    "running",
    "tolled",
    "reset_pending",
    "decided_on_time",
    "decided_late",
    "expired",
    "withdrawn",
    "deemed_granted",
    "deemed_approved",
}
KEYS = CONTRACT_KEYS
TERMINAL = {"decided_on_time", "decided_late", "withdrawn", "deemed_granted", "deemed_approved"}


def iso(d: date) -> str:
    return d.isoformat()


def items(ids: list[str]) -> list[dict[str, str]]:
    return [{"id": i, "text": f"missing {i}", "rule": f"CMC 17.44.070({i})"} for i in ids]


@dataclass(frozen=True)
class Case:
    """A random valid timeline, with switches to drop its tolling parts."""

    category: str | None
    batch: tuple[str, ...]
    state: str | None
    local_holidays: tuple[date, ...]
    rule_pack: str
    submitted: date
    pre_application: date | None
    notices: tuple[dict[str, Any], ...]  # notices and resubmissions, in date order
    agreement_days: tuple[date, int] | None
    agreement_new_date: tuple[date, date] | None
    decision: tuple[date, str] | None
    as_of: date | None

    @property
    def governing(self) -> str:
        if self.category is not None:
            return self.category
        return "swf_new_structure" if "swf_new_structure" in self.batch else "swf_collocation"

    def raw(self) -> dict[str, Any]:
        """The contract's input; with as_of, only the events up to it (8.7: an event
        after as_of is invalid input, so the point of view sees the timeline so far)."""
        raw = self._raw()
        if self.as_of is not None:
            raw["events"] = [e for e in raw["events"] if e["date"] <= iso(self.as_of)]
        return raw

    def _raw(self) -> dict[str, Any]:
        events: list[dict[str, Any]] = [{"type": "submitted", "date": iso(self.submitted)}]
        if self.pre_application is not None:
            events.append({"type": "pre_application", "date": iso(self.pre_application)})
        events.extend(self.notices)
        if self.agreement_days is not None:
            when, days = self.agreement_days
            events.append({"type": "tolling_agreement", "date": iso(when), "days": days})
        if self.agreement_new_date is not None:
            when, new = self.agreement_new_date
            events.append({"type": "tolling_agreement", "date": iso(when), "new_date": iso(new)})
        if self.decision is not None:
            when, outcome = self.decision
            events.append({"type": "decision", "date": iso(when), "outcome": outcome})
        raw: dict[str, Any] = {
            "events": events,
            "local_holidays": [iso(d) for d in self.local_holidays],
            "rule_pack": self.rule_pack,
        }
        if self.category is not None:
            raw["category"] = self.category
        else:
            raw["batch"] = list(self.batch)
        if self.state is not None:
            raw["state"] = self.state
        if self.as_of is not None:
            raw["as_of"] = iso(self.as_of)
        return raw


@st.composite
def cases(draw: st.DrawFn, rule_packs: tuple[str, ...] = ("federal", "cotati-2024")) -> Case:
    if draw(st.booleans()):
        category: str | None = draw(st.sampled_from(CATEGORIES))
        batch: tuple[str, ...] = ()
    else:
        category = None
        batch = tuple(draw(st.lists(st.sampled_from(SWF), min_size=1, max_size=4)))
    submitted = draw(st.dates(date(2019, 1, 1), date(2030, 12, 31)))

    def after(base: date, low: int, high: int) -> date:
        return base + timedelta(days=draw(st.integers(low, high)))

    pre = None
    if draw(st.booleans()):
        pre = submitted - timedelta(days=draw(st.integers(1, 60)))
    local = tuple(
        draw(
            st.lists(st.integers(0, 400), max_size=6).map(
                lambda offs: sorted({submitted + timedelta(days=o) for o in offs})
            )
        )
    )

    notices: list[dict[str, Any]] = []
    if draw(st.booleans()):
        first_ids = draw(st.lists(st.sampled_from("ABC"), min_size=1, max_size=3, unique=True))
        when = after(submitted, 0, 45)
        notices.append({"type": "incomplete_notice", "date": iso(when), "items": items(first_ids)})
        if draw(st.booleans()):
            resub = after(when, 0, 60)
            notices.append({"type": "resubmitted", "date": iso(resub)})
            if draw(st.booleans()):
                later_ids = draw(
                    st.lists(st.sampled_from("ABCD"), min_size=1, max_size=3, unique=True)
                )
                later = after(resub, 0, 15)
                notices.append(
                    {"type": "incomplete_notice", "date": iso(later), "items": items(later_ids)}
                )
                if draw(st.booleans()):
                    notices.append({"type": "resubmitted", "date": iso(after(later, 0, 40))})

    agreement = None
    if draw(st.booleans()):
        agreement = (after(submitted, 0, 200), draw(st.integers(1, 90)))
    agreed_date = None
    if draw(st.integers(0, 4)) == 0:
        signed = after(submitted, 0, 200)
        agreed_date = (signed, after(signed, 0, 200))
    decision = None
    if draw(st.booleans()):
        outcome = draw(st.sampled_from(["approved", "approved_with_conditions", "denied"]))
        decision = (after(submitted, 0, 300), outcome)
    as_of = after(submitted, -10, 400) if draw(st.booleans()) else None
    return Case(
        category=category,
        batch=batch,
        state=draw(st.sampled_from([None, "CA"])),
        local_holidays=local,
        rule_pack=draw(st.sampled_from(rule_packs)),
        submitted=submitted,
        pre_application=pre,
        notices=tuple(notices),
        agreement_days=agreement,
        agreement_new_date=agreed_date,
        decision=decision,
        as_of=as_of,
    )


def shot_clock(case: Case) -> date | None:
    value = compute_json(case.raw())["shot_clock_date"]
    return None if value is None else date.fromisoformat(value)


# ------------------------------------------------------------------------------ invariants


@SETTINGS
@given(cases())
def test_notices_never_make_the_clock_earlier(case: Case) -> None:
    """Notices and resubmissions toll or reset the clock, never shorten it.

    A toll adds days; a reset restarts the full period at a resubmission on or after the
    start, so in both cases: date with the notices >= date without them (when both are
    determined). An agreed new_date may move the date either way, so it is left out.
    """
    case = replace(case, agreement_new_date=None)
    with_notices = shot_clock(case)
    without = shot_clock(replace(case, notices=()))
    if with_notices is not None and without is not None:
        assert with_notices >= without


@SETTINGS
@given(cases())
def test_agreement_days_never_make_the_clock_earlier(case: Case) -> None:
    case = replace(case, agreement_new_date=None)
    with_agreement = shot_clock(case)
    without = shot_clock(replace(case, agreement_days=None))
    if with_agreement is not None and without is not None:
        assert with_agreement >= without


@SETTINGS
@given(cases())
def test_pure_toll_adds_exactly_the_tolled_days(case: Case) -> None:
    """Without a decision or agreed date, a non-SWF clock (federal pack) is the plain
    count from the start plus tolled_days, rolled forward unless it is an EFR."""
    case = replace(case, decision=None, agreement_new_date=None, rule_pack="federal")
    if case.category is None or case.category in SWF:
        return
    result = compute_json(case.raw())
    if result["shot_clock_date"] is None:
        return
    start = date.fromisoformat(result["start_date"])
    counted = start + timedelta(days=result["period_days"] + result["tolled_days"])
    if case.category != "eligible_facilities_request":
        counted = calendar_for(case.state, case.local_holidays).roll_forward(counted)[0]
    assert result["shot_clock_date"] == iso(counted)


@SETTINGS
@given(cases())
def test_rolled_date_is_a_business_day(case: Case) -> None:
    if case.governing == "eligible_facilities_request" or case.agreement_new_date is not None:
        return
    result = compute_json(case.raw())
    if result["shot_clock_date"] is None:
        return
    calendar = calendar_for(case.state, case.local_holidays)
    assert calendar.is_business_day(date.fromisoformat(result["shot_clock_date"]))


@SETTINGS
@given(cases())
def test_conservative_date_is_never_later(case: Case) -> None:
    result = compute_json(case.raw())
    shot, conservative = result["shot_clock_date"], result["conservative_date"]
    if shot is not None:
        assert conservative is not None
        assert conservative <= shot
    listed = [a["shot_clock_date"] for a in result["alternatives"] if a["shot_clock_date"]]
    if conservative is not None:
        assert all(conservative <= d for d in listed)
        assert conservative in [*listed, shot]


@SETTINGS
@given(cases())
def test_conservative_status_agrees_with_the_conservative_date_and_as_of(case: Case) -> None:
    """8.1: the conservative fields are one reading's full answer, not a mix."""
    result = compute_json(case.raw())
    status, conservative = result["conservative_status"], result["conservative_date"]
    assert status in STATUSES
    if case.as_of is None:
        assert "conservative_days_remaining" not in result
        return
    if conservative is None:
        assert result["conservative_days_remaining"] is None
        assert status in {"awaiting_submission", "tolled", "reset_pending"} | TERMINAL
        return
    day = date.fromisoformat(conservative)
    assert result["conservative_days_remaining"] == (day - case.as_of).days
    if status == "running":
        assert case.as_of <= day
    if status == "expired":
        assert case.as_of > day
    if status in {"tolled", "reset_pending"}:
        pytest.fail(f"a dated reading cannot be {status}")
    if status == "decided_late":
        assert case.decision is not None and case.decision[0] > day
    if result["status"] == "expired":
        # Expired under the literal date means expired under the earlier one too.
        assert status in {"expired"} | TERMINAL


@SETTINGS
@given(cases(), st.lists(st.integers(0, 400), min_size=1, max_size=6))
def test_a_literal_only_change_never_makes_the_conservative_date_later(
    case: Case, offsets: list[int]
) -> None:
    """8.6: one-off closures count only literally; adding some can move the literal
    date later, never the conservative one."""
    before = compute_json(case.raw())["conservative_date"]
    more = tuple(
        sorted({*case.local_holidays, *(case.submitted + timedelta(days=o) for o in offsets)})
    )
    after = compute_json(replace(case, local_holidays=more).raw())["conservative_date"]
    if before is not None and after is not None:
        assert after <= before


@SETTINGS
@given(cases(), st.randoms(use_true_random=False))
def test_event_order_does_not_matter(case: Case, rnd: Any) -> None:
    both = case.agreement_days and case.agreement_new_date
    if both and case.agreement_days[0] == case.agreement_new_date[0]:  # type: ignore[index]
        return  # 8.5: of two agreements of one date, the later in the input wins
    raw = case.raw()
    shuffled = dict(raw, events=list(raw["events"]))
    rnd.shuffle(shuffled["events"])
    assert compute_json(shuffled) == compute_json(raw)


@SETTINGS
@given(cases())
def test_contract_shape(case: Case) -> None:
    result = compute_json(case.raw())
    assert result["status"] in STATUSES
    expected = (
        KEYS if case.as_of is not None else [k for k in KEYS if not k.endswith("days_remaining")]
    )
    assert list(result) == expected
    if case.as_of is not None and result["shot_clock_date"] is not None:
        shot = date.fromisoformat(result["shot_clock_date"])
        assert result["days_remaining"] == (shot - case.as_of).days
    if result["status"] in {"tolled", "reset_pending"}:
        assert result["shot_clock_date"] is None
    for entry in result["ledger"]:
        keys = ["date", "event", "effect", "days", "rule"]
        assert list(entry) in (keys, [*keys, "notes"])  # notes: the layers marking a day
    assert [e["date"] for e in result["ledger"]] == sorted(e["date"] for e in result["ledger"])
    for window in result["notice_windows"]:
        assert {"kind", "closes", "rule"} <= set(window)
        assert window["kind"] in {"first_notice", "reset_notice", "later_notice"}


# ------------------------------------------------------------- invalid input never crashes

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 400)
    | st.sampled_from(["", "A", "2026-01-05", "2026-02-30", "CA", "swf_collocation", "approved"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["id", "text", "rule", "type", "date", "days", "new_date", "x"]),
            children,
            max_size=3,
        )
    ),
    max_leaves=6,
)


@SETTINGS
@given(cases(), st.data())
def test_corrupted_input_raises_only_timeline_error(case: Case, data: st.DataObject) -> None:
    """Replace one field (top level or inside an event) with arbitrary JSON: the result is
    either a computed clock or a TimelineError, never another exception (§5: exit 2 with
    a one-line message, no traceback)."""
    raw = case.raw()
    value = data.draw(json_values)
    if data.draw(st.booleans()):
        key = data.draw(
            st.sampled_from(
                [*KEYS[:1], "batch", "state", "local_holidays", "events", "as_of", "rule_pack"]
            )
        )
        raw[key] = value
    else:
        i = data.draw(st.integers(0, len(raw["events"]) - 1))
        key = data.draw(st.sampled_from(["type", "date", "items", "days", "new_date", "outcome"]))
        raw["events"][i] = dict(raw["events"][i], **{key: value})
    try:
        result = compute_json(raw)
    except TimelineError as err:
        assert "\n" not in str(err)
        assert ":" in str(err)
    else:
        assert result["status"] in STATUSES
