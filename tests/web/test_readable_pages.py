"""Pages people can read: the clock's timeline with its words, the project's milestone
progress, conditions grouped by milestone and collapsed with counts, and the applicant's
stepper with what is owed next first."""

from __future__ import annotations

import re
from datetime import timedelta

from tests.web.helpers import Browser, Stackish, city_today

PM = "pm@cotati.example"


def test_a_clock_page_draws_its_timeline_with_a_text_equivalent(
    browser: Browser, stack: Stackish
) -> None:
    app_id = stack.new_clock(days_ago=12)
    item = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}
    notice = browser.api(PM, "POST", f"/api/v1/applications/{app_id}/notice", {"items": [item]})
    assert notice.status_code == 200, notice.text
    html = browser.as_(PM).get(f"/applications/{app_id}").text
    svg = re.search(r'<svg class="timeline".*?</svg>', html, re.S)[0]
    assert 'role="img"' in svg and 'aria-describedby="clock-words"' in svg
    assert 'data-kind="tolled"' in svg and 'data-kind="today"' in svg
    words = re.search(r'<ol class="sr-only" id="clock-words".*?</ol>', html, re.S)[0]
    assert "Tolled (notice outstanding)" in words and "Today is" in words
    # Days tolled so far while the notice is outstanding: not 0.
    days = re.search(r'data-testid="days-tolled">(\d+) so far', html)
    assert days is not None


def test_the_project_page_is_grouped_collapsed_and_counted(
    browser: Browser, stack: Stackish
) -> None:
    pid = stack.new_project("GRP")
    target = (city_today() + timedelta(days=15)).isoformat()
    browser.api(
        PM,
        "POST",
        f"/api/v1/projects/{pid}/plan",
        {"milestone_targets": {"building_permit": target}},
    )
    client = browser.as_(PM)
    html = client.get(f"/projects/{pid}").text
    assert 'data-testid="milestone-progress"' in html
    assert re.search(r'data-milestone="grading_permit" data-resolved="0" data-gated="2"', html)
    groups = re.findall(
        r'<details class="milestone-group"[^>]*data-milestone="(\w+)"([^>]*)>', html
    )
    assert [g for g, _ in groups] == ["grading_permit", "building_permit"]
    assert all("open" not in rest for _, rest in groups)  # collapsed until asked
    assert re.search(r"Grading permit issued</strong> <span class=\"muted\">· 3 conditions", html)
    assert 'data-testid="most-urgent">most urgent' in html
    # A filter opens the groups it leaves.
    filtered = client.get(f"/projects/{pid}", params={"status": "blocking"}).text
    assert re.search(r'data-milestone="grading_permit" open>', filtered)


def test_the_applicant_sees_what_is_owed_next_first(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("STP")
    link = browser.api(PM, "POST", "/api/v1/links", {"scope": "project", "scope_id": pid}).json()
    page = browser.as_(None).get(link["url"].replace("http://testserver", "")).text
    steps = re.findall(r'data-testid="step" data-milestone="(\w+)" data-state="(\w+)"', page)
    assert steps[:2] == [("grading_permit", "next"), ("building_permit", "later")]
    # The next milestone's items come first, the later ones are folded away.
    first = page.index('data-testid="owed-next"')
    later = page.index('data-testid="owed-later"')
    assert first < later
    numbers = re.findall(r'data-testid="owed-condition" data-number="(\d+)"', page[first:later])
    assert numbers == ["1", "2"]
    assert "Unspecified" not in page
