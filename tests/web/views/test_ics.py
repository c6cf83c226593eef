"""The ICS feed: valid iCalendar (CRLF, folded lines, UID, DTSTAMP, all-day dates with
VALUE=DATE), each user's deadlines, behind a secret token that can be replaced."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from tests.web.helpers import Browser, Stackish, city_today, csrf_of
from web.views.ics import CalendarEvent, build


def parse(text: str) -> list[dict[str, list[tuple[str, str]]]]:
    """A strict reader: every line ends in CRLF, physical lines are at most 75 octets,
    BEGIN/END nest, and each VEVENT's properties are returned (name with params, value)."""
    assert text.endswith("\r\n")
    physical = text[:-2].split("\r\n")
    for line in physical:
        assert "\n" not in line and "\r" not in line
        assert len(line.encode("utf-8")) <= 75, line
    logical: list[str] = []
    for line in physical:
        if line.startswith(" "):
            logical[-1] += line[1:]
        else:
            logical.append(line)
    stack: list[str] = []
    events: list[dict[str, list[tuple[str, str]]]] = []
    for line in logical:
        name, _, value = line.partition(":")
        if name == "BEGIN":
            stack.append(value)
            if value == "VEVENT":
                events.append({})
        elif name == "END":
            assert stack.pop() == value
        elif stack and stack[-1] == "VEVENT":
            key = name.split(";")[0]
            events[-1].setdefault(key, []).append((name, value))
    assert stack == []
    assert logical[0] == "BEGIN:VCALENDAR" and "VERSION:2.0" in logical
    assert any(line.startswith("PRODID:") for line in logical)
    return events


def test_long_and_special_text_is_folded_and_escaped() -> None:
    text = build(
        "Mine",
        [CalendarEvent("u@clearance", date(2026, 12, 24), "é" * 100, "a;b,c\\d\ne")],
        now=datetime(2026, 12, 2, tzinfo=UTC),
    )
    (event,) = parse(text)  # every physical line at most 75 octets
    assert event["SUMMARY"] == [("SUMMARY", "é" * 100)]
    assert event["DESCRIPTION"] == [("DESCRIPTION", "a\\;b\\,c\\\\d\\ne")]


def test_build_is_valid_icalendar() -> None:
    text = build(
        "Deadlines, mine",
        [
            CalendarEvent(
                "x-1@clearance",
                date(2026, 12, 24),
                "Deadline; " + "x" * 120,
                "why\nnot",
                alarms_days_before=(7, 0),
            ),
        ],
        now=datetime(2026, 12, 2, 15, 0, tzinfo=UTC),
    )
    (event,) = parse(text)
    assert event["UID"] == [("UID", "x-1@clearance")]
    assert event["DTSTAMP"] == [("DTSTAMP", "20261202T150000Z")]
    assert event["DTSTART"] == [("DTSTART;VALUE=DATE", "20261224")]
    assert event["DTEND"] == [("DTEND;VALUE=DATE", "20261225")]
    assert event["SUMMARY"][0][1].startswith("Deadline\\; xxx")
    assert "BEGIN:VALARM\r\n" in text and "TRIGGER;RELATED=START:-P7D\r\n" in text


def test_a_users_feed_has_their_deadlines(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=20)
    pid = stack.new_project("ICS")
    target = (city_today() + timedelta(days=30)).isoformat()
    browser.api(
        "pm@cotati.example",
        "POST",
        f"/api/v1/projects/{pid}/plan",
        {"milestone_targets": {"grading_permit": target}},
    )
    client = browser.as_("pm@cotati.example")
    me = client.get("/me")
    made = client.post("/me/calendar", data={"csrf_token": csrf_of(me.text)})
    url = re.search(r"http://testserver(/calendar/[^ <]+\.ics)", made.text).group(1)  # type: ignore[union-attr]

    feed = browser.as_(None).get(url)  # no session: the token is the key
    assert feed.status_code == 200
    assert feed.headers["content-type"].startswith("text/calendar")
    events = parse(feed.text)
    uids = [e["UID"][0][1] for e in events]
    assert len(uids) == len(set(uids))
    clock = next(e for e in events if e["UID"][0][1] == f"clock-{app_id}-conservative@clearance")
    conservative = browser.api("pm@cotati.example", "GET", f"/api/v1/applications/{app_id}").json()[
        "conservative_date"
    ]
    assert clock["DTSTART"] == [("DTSTART;VALUE=DATE", conservative.replace("-", ""))]
    assert any(e["UID"][0][1] == f"project-{pid}-grading_permit@clearance" for e in events)
    assert any("Notice window closes" in e["SUMMARY"][0][1] for e in events)

    again = browser.as_("pm@cotati.example").post(
        "/me/calendar", data={"csrf_token": csrf_of(me.text)}
    )
    assert 'class="flash ok"' in again.text
    assert browser.as_(None).get(url).status_code == 404  # the old address stopped working
    assert browser.as_(None).get("/calendar/guessed.ics").status_code == 404
