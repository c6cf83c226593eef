"""Tests for rules.kernel.calendars: the business-day calendar behind shot-clock roll-forward."""

from __future__ import annotations

import time
from datetime import date, timedelta

import holidays
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.kernel.calendars import COURT, BusinessCalendar, calendar_for, jurisdiction_layers
from rules.kernel.holidays import available_states, federal_regime, state_regime

FEDERAL = calendar_for(None)
CA = calendar_for("CA")

# The holidays library's names for the 5 U.S.C. 6103(a) holidays, mapped to ours.
# Anything else it lists (e.g. Inauguration Day for DC) is not a 6103(a) holiday.
LIBRARY_TO_6103 = {
    "New Year's Day": "New Year's Day",
    "Martin Luther King Jr. Day": "Birthday of Martin Luther King, Jr.",
    "Washington's Birthday": "Washington's Birthday",
    "Memorial Day": "Memorial Day",
    "Juneteenth National Independence Day": "Juneteenth National Independence Day",
    "Independence Day": "Independence Day",
    "Labor Day": "Labor Day",
    "Columbus Day": "Columbus Day",
    "Veterans Day": "Veterans Day",
    "Thanksgiving Day": "Thanksgiving Day",
    "Christmas Day": "Christmas Day",
}


def _library_6103(year: int) -> dict[date, str]:
    """The holidays library's US calendar for ``year``, restricted to 6103(a) names."""
    out: dict[date, str] = {}
    for when, joined in holidays.US(years=year, observed=True).items():
        for name in joined.split("; "):
            observed = name.endswith(" (observed)")
            base = name.removesuffix(" (observed)")
            if base in LIBRARY_TO_6103:
                ours = LIBRARY_TO_6103[base] + (" (observed)" if observed else "")
                assert when not in out, f"two 6103 holidays on {when}"
                out[when] = ours
    return out


# ------------------------------------------------------------------ federal vs library


@pytest.mark.parametrize("year", range(2000, 2041))
def test_federal_matches_holidays_library(year: int) -> None:
    ours = FEDERAL.holidays_in(year)
    theirs = _library_6103(year)
    assert ours == theirs


def test_library_cross_check_covers_the_tricky_years() -> None:
    # Guard against a vacuous cross-check: these cases must actually be present.
    assert _library_6103(2021)[date(2021, 12, 31)] == "New Year's Day (observed)"
    assert _library_6103(2021)[date(2021, 6, 18)].startswith("Juneteenth")
    assert date(2020, 6, 19) not in _library_6103(2020)
    assert date(2020, 6, 19) not in FEDERAL.holidays_in(2020)


def test_every_federal_observed_day_is_a_weekday() -> None:
    for year in range(1990, 2100):
        for when, name in FEDERAL.holidays_in(year).items():
            if name.endswith("(observed)"):
                assert when.weekday() in (0, 4), (when, name)


def test_mlk_day_only_from_1986() -> None:
    assert date(1985, 1, 21) not in FEDERAL.holidays_in(1985)
    assert FEDERAL.holidays_in(1986)[date(1986, 1, 20)] == ("Birthday of Martin Luther King, Jr.")


# ----------------------------------------------------------------------- known cases


def test_independence_day_observed_friday_2026() -> None:
    assert FEDERAL.closure_reason(date(2026, 7, 3)) == (
        "federal holiday: Independence Day (observed)"
    )
    assert FEDERAL.holidays_in(2026)[date(2026, 7, 3)] == "Independence Day (observed)"
    assert FEDERAL.closure_reason(date(2026, 7, 4)) == "Saturday"


def test_new_year_2022_observed_on_dec_31_2021() -> None:
    assert FEDERAL.holidays_in(2021)[date(2021, 12, 31)] == "New Year's Day (observed)"
    assert date(2021, 12, 31) not in FEDERAL.holidays_in(2022)
    assert FEDERAL.closure_reason(date(2021, 12, 31)) == (
        "federal holiday: New Year's Day (observed)"
    )
    assert not FEDERAL.is_business_day(date(2021, 12, 31))


def test_christmas_observed_reason() -> None:
    # Christmas 2022 was a Sunday: observed Monday Dec 26.
    assert FEDERAL.closure_reason(date(2022, 12, 26)) == (
        "federal holiday: Christmas Day (observed)"
    )


def test_day_after_thanksgiving_is_not_a_gov_code_6700_holiday() -> None:
    # Revision 2 (shot-clocks.md 8.6): the day after Thanksgiving is a court holiday
    # (CCP 135) and a city-adopted day, never a Gov. Code 6700 day.
    day = date(2026, 11, 27)
    assert FEDERAL.is_business_day(day)
    assert CA.is_business_day(day)
    court = jurisdiction_layers("CA").calendar(COURT)
    assert court.closure_reason(day) == "California judicial holiday: Day after Thanksgiving"


def test_cesar_chavez_day_is_california_only() -> None:
    day = date(2026, 3, 31)  # a Tuesday
    assert FEDERAL.is_business_day(day)
    assert CA.closure_reason(day) == "California legal holiday: Cesar Chavez Day"


def test_california_sunday_holiday_moves_to_monday() -> None:
    assert date(2024, 3, 31).weekday() == 6
    assert CA.closure_reason(date(2024, 4, 1)) == (
        "California legal holiday: Cesar Chavez Day (observed)"
    )
    assert FEDERAL.is_business_day(date(2024, 4, 1))


def test_california_saturday_veterans_day_moves_to_friday() -> None:
    # Gov. Code 6701: November 11 on a Saturday is observed the Friday before.
    assert date(2023, 11, 11).weekday() == 5
    assert CA.closure_reason(date(2023, 11, 10)) == ("federal holiday: Veterans Day (observed)")
    layer = state_regime("CA")
    assert layer.dates_in(2023)[date(2023, 11, 10)] == ["Veterans Day (observed)"]


def test_california_saturday_holiday_is_not_moved_to_friday() -> None:
    # Admission Day, Sep 9 2023, was a Saturday: no Friday closure in California.
    assert date(2023, 9, 9).weekday() == 5
    assert CA.is_business_day(date(2023, 9, 8))
    assert CA.is_business_day(date(2023, 9, 11))


def test_federal_rules_still_apply_in_california() -> None:
    # Independence Day 2026 (Saturday) is observed Friday federally; CA inherits it.
    assert CA.closure_reason(date(2026, 7, 3)) == ("federal holiday: Independence Day (observed)")


def test_susan_b_anthony_day_is_not_a_closure_in_california() -> None:
    # Feb 15 on a weekday that is not Washington's Birthday: an ordinary business day.
    for day in (date(2024, 2, 15), date(2028, 2, 15), date(2030, 2, 15)):
        assert day.weekday() < 5
        assert CA.is_business_day(day), day
    # 2026: Feb 15 is a Sunday and Feb 16 is closed only as Washington's Birthday.
    assert CA.closure_reason(date(2026, 2, 15)) == "Sunday"
    assert CA.closure_reason(date(2026, 2, 16)) == "federal holiday: Washington's Birthday"
    # 2027: Feb 15 is the third Monday of February, i.e. Washington's Birthday.
    assert CA.closure_reason(date(2027, 2, 15)) == "federal holiday: Washington's Birthday"
    names = {n for y in range(2020, 2040) for n in CA.holidays_in(y).values()}
    assert not any("Anthony" in n for n in names)
    assert any("Anthony" in note for note in state_regime("CA").notes)


def test_good_friday_is_a_business_day_in_california() -> None:
    assert CA.is_business_day(date(2026, 4, 3))  # Good Friday 2026


def test_california_includes_its_own_holidays() -> None:
    cal = CA.holidays_in(2026)
    assert cal[date(2026, 2, 12)] == "Lincoln Day"
    assert cal[date(2026, 9, 9)] == "Admission Day"
    assert cal[date(2026, 9, 25)] == "Native American Day"  # 4th Friday of Sep
    assert cal[date(2026, 12, 25)] == "Christmas Day"


# -------------------------------------------------------------------- local closures


def test_local_closures_are_honoured() -> None:
    closed = date(2026, 4, 6)  # a Monday
    cal = calendar_for("CA", [closed])
    assert cal.closure_reason(closed) == "local closure"
    assert cal.holidays_in(2026)[closed] == "local closure"
    assert CA.is_business_day(closed)  # the shared CA calendar is unaffected


def test_local_closure_on_a_holiday_reports_the_holiday() -> None:
    cal = calendar_for(None, [date(2026, 12, 25)])
    assert cal.closure_reason(date(2026, 12, 25)) == "federal holiday: Christmas Day"


def test_calendar_for_is_cached_by_state_and_closure_set() -> None:
    a = calendar_for("CA", [date(2026, 4, 6), date(2026, 4, 7)])
    b = calendar_for("CA", (date(2026, 4, 7), date(2026, 4, 6)))
    assert a is b
    assert calendar_for("CA") is CA
    assert calendar_for(None) is not CA


# ---------------------------------------------------------------------- roll forward


def test_roll_forward_of_a_business_day_is_itself() -> None:
    day = date(2026, 3, 4)  # a Wednesday
    assert CA.roll_forward(day) == (day, [])


def test_roll_forward_explains_each_skipped_day() -> None:
    cal = calendar_for("CA", [date(2026, 11, 30)])
    result, skipped = cal.roll_forward(date(2026, 11, 25))
    assert result == date(2026, 11, 25)
    cal = calendar_for("CA", [date(2026, 11, 27), date(2026, 11, 30)])
    result, skipped = cal.roll_forward(date(2026, 11, 26))
    assert result == date(2026, 12, 1)
    assert skipped == [
        (date(2026, 11, 26), "federal holiday: Thanksgiving Day"),
        (date(2026, 11, 27), "local closure"),
        (date(2026, 11, 28), "Saturday"),
        (date(2026, 11, 29), "Sunday"),
        (date(2026, 11, 30), "local closure"),
    ]


def test_roll_forward_over_observed_new_year() -> None:
    result, skipped = FEDERAL.roll_forward(date(2021, 12, 31))
    assert result == date(2022, 1, 3)
    assert [reason for _, reason in skipped] == [
        "federal holiday: New Year's Day (observed)",
        "Saturday",
        "Sunday",
    ]


def test_spec_worked_example_dates() -> None:
    # shot-clocks.md section 6 (federal only): 2025-11-30 is a Sunday -> Mon 2025-12-01.
    assert FEDERAL.roll_forward(date(2025, 11, 30))[0] == date(2025, 12, 1)
    assert FEDERAL.roll_forward(date(2026, 5, 29))[0] == date(2026, 5, 29)


def test_dates_must_be_plain_dates() -> None:
    from datetime import datetime

    with pytest.raises(TypeError):
        FEDERAL.roll_forward(datetime(2026, 7, 3))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        calendar_for(None, [datetime(2026, 7, 3)])  # type: ignore[list-item]


closure_offsets = st.lists(st.integers(min_value=-5, max_value=40), max_size=25)


@settings(max_examples=400, deadline=None)
@given(
    start=st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)),
    state=st.sampled_from([None, "CA"]),
    offsets=closure_offsets,
)
def test_roll_forward_property(start: date, state: str | None, offsets: list[int]) -> None:
    closures = {start + timedelta(days=k) for k in offsets}
    cal = calendar_for(state, closures)
    result, skipped = cal.roll_forward(start)
    assert result >= start
    assert cal.is_business_day(result)
    between = [start + timedelta(days=k) for k in range((result - start).days)]
    assert [d for d, _ in skipped] == between
    for day, reason in skipped:
        assert not cal.is_business_day(day)
        assert cal.closure_reason(day) == reason
    for closure in closures:
        assert not cal.is_business_day(closure)


# --------------------------------------------------------------------- configuration


def test_unknown_state_raises_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="no holiday calendar configured for state 'XX'"):
        calendar_for("XX")


def test_available_states() -> None:
    assert available_states() == ["CA"]


def test_regimes_carry_citations() -> None:
    for regime in (federal_regime(), state_regime("CA")):
        assert regime.citation
        assert all(h.citation for h in regime.holidays)
    assert "6103" in federal_regime().citation
    assert "6700" in state_regime("CA").citation


def test_calendar_is_immutable() -> None:
    with pytest.raises(AttributeError):
        CA.state = None  # type: ignore[misc]
    assert isinstance(CA, BusinessCalendar)


def test_fast_enough_for_the_engine() -> None:
    # The engine needs >= 10,000 computations/s, each a few roll_forward calls.
    cal = calendar_for("CA", [date(2026, 4, 6)])
    days = [date(2026, 1, 1) + timedelta(days=k) for k in range(365)]
    for day in days:  # warm the per-year cache
        cal.roll_forward(day)
    # CPU time: on a loaded machine wall time also counts the waits for a core.
    begin = time.process_time()
    calls = 0
    for _ in range(100):
        for day in days:
            cal.roll_forward(day)
            calls += 1
    rate = calls / (time.process_time() - begin)
    assert rate > 100_000, f"{rate:.0f} roll_forward calls/s"
