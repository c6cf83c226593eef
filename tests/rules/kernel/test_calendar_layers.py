"""Calendar layers (shot-clocks.md 8.6; permit-clocks-research.md 2.2): which layer
marks which day, which reading rolls over which layer, and the frozen snapshot."""

from __future__ import annotations

import json
from datetime import date, timedelta

import holidays
import pytest

from rules.kernel.calendars import (
    ALL,
    CONSERVATIVE,
    COURT,
    LITERAL,
    CalendarLayers,
    adopted_layer_from_dates,
    jurisdiction_layers,
    reading_name,
)
from rules.kernel.holidays import HolidayDataError, judicial_regime, parse_layer, state_regime
from rules.kernel.jurisdictions import jurisdiction

CA_6700 = state_regime("CA")
CA_135 = judicial_regime("CA")
COTATI = jurisdiction("cotati").calendar_layers()


def _days(layer, year: int) -> set[date]:
    return set(layer.dates_in(year))


# The 2026 columns of permit-clocks-research.md 2.2 (Gov. Code 6700 and CCP 135).
GOV_6700_2026 = {
    date(2026, 1, 1),
    date(2026, 1, 19),
    date(2026, 2, 12),
    date(2026, 2, 16),
    date(2026, 2, 17),  # Lunar New Year
    date(2026, 3, 31),
    date(2026, 4, 24),  # Genocide Remembrance Day
    date(2026, 5, 25),
    date(2026, 6, 19),
    date(2026, 7, 4),  # a Saturday; 6701 moves only Sunday holidays
    date(2026, 9, 7),
    date(2026, 9, 9),
    date(2026, 9, 25),
    date(2026, 10, 12),
    date(2026, 11, 11),
    date(2026, 11, 26),
    date(2026, 12, 25),
}
CCP_135_2026 = {
    date(2026, 1, 1),
    date(2026, 1, 19),
    date(2026, 2, 12),
    date(2026, 2, 16),
    date(2026, 3, 31),
    date(2026, 5, 25),
    date(2026, 6, 19),
    date(2026, 7, 3),  # Rule 1.11: Saturday holiday observed the Friday before
    date(2026, 7, 4),
    date(2026, 9, 7),
    date(2026, 9, 25),
    date(2026, 11, 11),
    date(2026, 11, 26),
    date(2026, 11, 27),
    date(2026, 12, 25),
}


def test_gov_code_6700_layer_2026_matches_the_research_table() -> None:
    assert _days(CA_6700, 2026) == GOV_6700_2026


def test_gov_code_6700_has_no_day_after_thanksgiving_and_no_good_friday() -> None:
    for year in range(2023, 2035):
        names = {n for found in CA_6700.dates_in(year).values() for n in found}
        assert not any("after Thanksgiving" in n for n in names), year
        assert not any("Good Friday" in n for n in names), year


def test_ccp_135_layer_2026_matches_the_court_calendars() -> None:
    assert CA_135 is not None
    assert _days(CA_135, 2026) == CCP_135_2026


def test_columbus_day_left_the_judicial_holidays_in_2022() -> None:
    assert CA_135 is not None
    assert date(2021, 10, 11) in CA_135.dates_in(2021)
    assert date(2022, 10, 10) not in CA_135.dates_in(2022)
    assert date(2022, 10, 10) in CA_6700.dates_in(2022)


def test_the_2022_additions_start_in_2023() -> None:
    assert date(2022, 6, 19) not in CA_6700.dates_in(2022)
    assert date(2023, 6, 19) in CA_6700.dates_in(2023)
    assert date(2022, 4, 24) not in CA_6700.dates_in(2022)
    assert date(2023, 4, 24) in CA_6700.dates_in(2023)


@pytest.mark.parametrize("year", range(2023, 2041))
def test_lunar_new_year_dates_match_the_chinese_calendar(year: int) -> None:
    spring = [d for d, n in holidays.China(years=year).items() if "Spring Festival" in n]
    ours = [d for d, names in CA_6700.dates_in(year).items() if "Lunar New Year" in names]
    assert min(spring) == ours[0]


def test_every_layer_carries_citations() -> None:
    for layer in COTATI.layers:
        assert layer.citation, layer.key
        assert all(h.citation for h in layer.holidays), layer.key
    adopted = COTATI.of_kind("adopted")[0]
    assert adopted.source and "NOT YET ENTERED" in adopted.source


def test_conservative_rolls_only_over_weekends_federal_and_adopted() -> None:
    lincoln = date(2026, 2, 12)  # Gov. Code 6700 and CCP 135, not federal, not adopted
    assert not COTATI.calendar(LITERAL).is_business_day(lincoln)
    assert COTATI.calendar(CONSERVATIVE).is_business_day(lincoln)
    assert not COTATI.calendar(COURT).is_business_day(lincoln)
    after_thanksgiving = date(2026, 11, 27)  # adopted by the city: every reading rolls
    for reading in (LITERAL, CONSERVATIVE, COURT):
        assert not COTATI.calendar(reading).is_business_day(after_thanksgiving)
    closure = date(2026, 12, 31)  # a one-off closure: not the conservative reading
    assert not COTATI.calendar(LITERAL).is_business_day(closure)
    assert COTATI.calendar(CONSERVATIVE).is_business_day(closure)


def test_research_golden_admission_day_and_columbus_day() -> None:
    # 2.4: a 90-day clock from 2026-06-11 ends on Admission Day 2026-09-09.
    counted = date(2026, 6, 11) + timedelta(days=90)
    assert counted == date(2026, 9, 9)
    layers = jurisdiction_layers("CA")
    assert layers.calendar(LITERAL).roll_forward(counted)[0] == date(2026, 9, 10)
    assert layers.calendar(COURT).roll_forward(counted)[0] == counted
    # A 60-day clock from 2026-08-13 ends on Columbus Day (federal).
    counted = date(2026, 8, 13) + timedelta(days=60)
    assert layers.calendar(CONSERVATIVE).roll_forward(counted)[0] == date(2026, 10, 13)
    assert layers.calendar(COURT).roll_forward(counted)[0] == counted


def test_readings_are_named() -> None:
    assert reading_name(LITERAL) == "literal"
    assert reading_name(CONSERVATIVE) == "conservative"
    assert reading_name(COURT) == "court"
    assert reading_name(ALL) == "all"
    assert reading_name(frozenset({"federal", "state"})) == "federal+state"


def test_notes_name_every_layer_and_whether_it_counts() -> None:
    notes = COTATI.notes_for(date(2026, 11, 27), CONSERVATIVE)
    assert any(n.startswith("California judicial holiday") and "not counted" in n for n in notes)
    assert any(n.startswith("City of Cotati holiday") and "not counted" not in n for n in notes)
    assert COTATI.notes_for(date(2026, 3, 4)) == []


def test_snapshot_round_trips_through_json() -> None:
    raw = json.loads(json.dumps(COTATI.to_dict()))
    again = CalendarLayers.from_dict(raw)
    assert again == COTATI
    assert again.fingerprint == COTATI.fingerprint
    fresh = CalendarLayers.from_dict({k: v for k, v in raw.items() if k != "fingerprint"})
    assert fresh.fingerprint == COTATI.fingerprint
    for day in (date(2026, 2, 12), date(2026, 11, 27), date(2026, 12, 31)):
        assert again.calendar(LITERAL).closure_reason(day) == COTATI.calendar(
            LITERAL
        ).closure_reason(day)


def test_a_tampered_snapshot_is_refused() -> None:
    raw = json.loads(json.dumps(COTATI.to_dict()))
    raw["fingerprint"] = "0" * 16
    raw["closures"].append({"date": "2026-06-01", "note": ""})
    with pytest.raises(HolidayDataError, match="fingerprint"):
        CalendarLayers.from_dict(raw)


def test_changes_from_says_what_moved() -> None:
    older = jurisdiction_layers("CA", None, [date(2026, 12, 24)])
    newer = COTATI
    lines = newer.changes_from(older, date(2026, 1, 1), date(2026, 12, 31))
    assert any(line.startswith("layer cotati_adopted added") for line in lines)
    assert "cotati_adopted: 2026-11-27 Day after Thanksgiving added" in lines
    assert "closures: 2026-12-31 added" in lines
    assert newer.changes_from(newer, date(2026, 1, 1), date(2026, 12, 31)) == []


def test_adopted_layers_need_a_source() -> None:
    raw = COTATI.of_kind("adopted")[0].to_dict()
    del raw["source"]
    with pytest.raises(HolidayDataError, match="source"):
        parse_layer(raw, "cotati.json: adopted_holidays")


def test_adopted_layer_from_plain_dates() -> None:
    layer = adopted_layer_from_dates([date(2026, 4, 6), date(2027, 4, 5)])
    assert set(layer.dates_in(2026)) == {date(2026, 4, 6)}
    layers = jurisdiction_layers(None, layer)
    assert not layers.calendar(CONSERVATIVE).is_business_day(date(2026, 4, 6))
