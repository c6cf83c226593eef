"""Search as staff meet it: the page groups what it found by kind, marks the matched
words (escaped: condition text is user text) and links each hit; the API answers the
same; a blank query finds nothing and fails nothing."""

from __future__ import annotations

from tests.web.helpers import Browser, Stackish

PM = "pm@cotati.example"


def test_search_page_and_api(browser: Browser, stack: Stackish) -> None:
    project_id = stack.new_project("FIND")
    app_id = stack.new_clock(prefix="FIND")
    client = browser.as_(PM)
    assert 'href="/search"' in client.get("/").text
    page = client.get("/search", params={"q": project_id}).text
    assert f'href="/projects/{project_id}"' in page and 'data-testid="search-projects"' in page
    clock = client.get("/search", params={"q": app_id}).text
    assert f'href="/applications/{app_id}"' in clock
    people = client.get("/search", params={"q": "pm cotati"}).text
    assert "pm@cotati.example" in people and 'data-testid="search-people"' in people
    hostile = client.get("/search", params={"q": "<script>alert(1)</script>"}).text
    assert "<script>alert(1)</script>" not in hostile
    assert client.get("/search", params={"q": "   "}).status_code == 200
    answer = browser.api(PM, "GET", f"/api/v1/search?q={project_id}&kind=projects")
    assert answer.status_code == 200, answer.text
    assert [h["url"] for h in answer.json()["groups"]["projects"]] == [f"/projects/{project_id}"]
