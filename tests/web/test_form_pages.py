"""The pages that open or import a record share one pattern (templates/web/_form_page.html.j2):
one heading, an intro, the error summary at the top naming each wrong field with a link to
it, labelled fields in fieldsets that keep what was typed and are marked when wrong, and one
primary button. Every GET page the app serves at .../new or .../import is held to it, so a
new such page that drifts fails here."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser

from tests.polling import polls
from tests.web.helpers import Browser, city_today, csrf_of
from tests.web.test_matrix import app_routes
from web.views.form_errors import fields_named

PM = "pm@cotati.example"
MANAGER = "manager@cotati.example"
RESOLUTION = (
    "RESOLUTION NO. 2026-41 OF THE CITY COUNCIL APPROVING THE ALDER COURT SUBDIVISION\n"
    "CONDITIONS OF APPROVAL\n"
    "PLANNING DIVISION\n"
    "1. Prior to issuance of building permits, the applicant shall submit a landscape plan.\n"
    "2. Prior to final inspection, street trees shall be planted as shown on the plan.\n"
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    inside: list[str] = field(default_factory=list)  # tags of its open ancestors


class Page(HTMLParser):
    """The elements of <main>, in document order, with their ancestors and own text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, inside=[e.tag for e in self._open])
        self.elements.append(element)
        if tag not in ("input", "meta", "link", "br", "img", "hr", "option"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data

    def main(self) -> list[Element]:
        return [e for e in self.elements if "main" in e.inside]

    def by_testid(self, testid: str) -> list[Element]:
        return [e for e in self.elements if e.attrs.get("data-testid") == testid]


def assert_the_pattern(html: str, wrong: tuple[str, ...] = (), kept: tuple[str, ...] = ()) -> None:
    """The shared page pattern; `wrong`: the fields the refusal must name, `kept`: values
    typed before the refusal that must be back in the form."""
    page = Page(html)
    main = page.main()
    headings = [e for e in main if e.tag in ("h1", "h2")]
    assert [e.tag for e in headings][:1] == ["h1"], "the page starts with one <h1>"
    assert sum(e.tag == "h1" for e in main) == 1, "exactly one <h1>"
    h1 = headings[0]
    assert h1.attrs.get("data-testid") == "form-heading", "the heading comes from form_heading()"
    intro = page.by_testid("form-intro")
    assert len(intro) == 1 and intro[0].text.strip(), "an intro says what happens"
    assert main.index(intro[0]) > main.index(h1), "the intro follows the heading"

    forms = [e for e in main if e.tag == "form" and e.attrs.get("method") == "post"]
    assert forms, "a form"
    assert any(e.tag == "legend" and e.text.strip() for e in main), "fieldsets with legends"
    ids = {e.attrs["id"] for e in main if e.attrs.get("id", "").startswith("field-")}
    labelled = {e.attrs.get("for") for e in main if e.tag == "label"}
    assert ids and ids <= labelled, f"every field has its label: {sorted(ids - labelled)}"
    buttons = [e for e in main if e.tag == "button" and e.attrs.get("type") == "submit"]
    primary = [b for b in buttons if "primary" in b.attrs.get("class", "")]
    assert len(primary) == 1 and "div" in primary[0].inside, "one primary button"
    assert page.by_testid("form-buttons") or any(
        "form-buttons" in e.attrs.get("class", "") for e in main
    ), "the buttons come from form_buttons()"

    summary = page.by_testid("flash-error")
    if not wrong and not kept:
        assert not summary
        return
    assert len(summary) == 1, "one error summary"
    box = summary[0]
    assert "error-summary" in box.attrs.get("class", "") and box.attrs.get("role") == "alert"
    assert main.index(box) < main.index(h1), "the error summary is at the top"
    links = [
        e.attrs["href"].removeprefix("#field-")
        for e in page.elements
        if e.tag == "a" and "div" in e.inside and e.attrs.get("href", "").startswith("#field-")
    ]
    for name in wrong:
        assert name in links, f"the summary names {name}: {links}"
        (target,) = [e for e in main if e.attrs.get("id") == f"field-{name}"]
        assert target.attrs.get("aria-invalid") == "true", f"{name} is marked wrong"
    assert {f"field-{n}" for n in links} <= ids, "each link in the summary leads to a field"
    for value in kept:
        assert f'value="{value}"' in html or f">{value}</textarea>" in html, value


def test_fields_named_finds_the_field_a_refusal_names() -> None:
    fields = {
        "submitted": "Submitted on",
        "planner_email": "Planner (reminders)",
        "start_date": "Date of that event",
        "rule": "Rule",
    }
    assert fields_named("submitted: 2027-01-02 is in the future", fields) == [
        ("submitted", "Submitted on")
    ]
    assert fields_named("planner_email: 'x' is not an e-mail address", fields) == [
        ("planner_email", "Planner (reminders)")
    ]
    assert fields_named("there is no rule 'x' (rules: a, b)", fields) == [("rule", "Rule")]
    assert fields_named("start date: give a date", fields) == [("start_date", "Date of that event")]
    # Part of a word or of another key is not a mention.
    assert fields_named("the rules engine is unreachable", fields) == []
    assert fields_named("resubmitted too early", fields) == []


def test_opening_an_application_follows_the_pattern(browser: Browser) -> None:
    client = browser.as_(MANAGER)
    page = client.get("/applications/new")
    assert_the_pattern(page.text)
    app_id = f"PAT-{uuid.uuid4().hex[:8]}"
    refused = client.post(
        "/applications/new",
        data={
            "csrf_token": csrf_of(page.text),
            "application_id": app_id,
            "category": "macro_collocation",
            "planner_email": "planner@cotati.example",
            "submitted": (city_today() + timedelta(days=5)).isoformat(),
            "site_address": "8 Pattern Way",
        },
    )
    assert refused.status_code == 400
    assert_the_pattern(refused.text, wrong=("submitted",), kept=(app_id, "8 Pattern Way"))


def test_opening_a_permit_clock_follows_the_pattern(browser: Browser) -> None:
    client = browser.as_(PM)
    page = client.get("/permits/new")
    assert_the_pattern(page.text)
    refused = client.post(
        "/permits/new",
        data={
            "csrf_token": csrf_of(page.text),
            "clock_id": f"BP-{uuid.uuid4().hex[:6]}",
            "rule": "no_such_rule",
            "jurisdiction": "cotati",
            "start_event": "approved",
            "start_date": city_today().isoformat(),
            "title": "Pattern shed",
        },
    )
    assert refused.status_code in (400, 409)
    assert_the_pattern(refused.text, wrong=("rule",), kept=("Pattern shed",))


def test_importing_a_resolution_follows_the_pattern(browser: Browser) -> None:
    client = browser.as_(PM)
    page = client.get("/projects/import")
    assert_the_pattern(page.text)
    assert 'aria-current="step">Upload the resolution' in page.text
    nothing = client.post("/projects/import", data={"csrf_token": csrf_of(page.text)})
    assert nothing.status_code == 400
    assert_the_pattern(nothing.text, wrong=("file", "text"))

    read = client.post(
        "/projects/import",
        data={"csrf_token": csrf_of(page.text), "text": RESOLUTION},
        follow_redirects=False,
    )
    assert read.status_code == 303, read.text[:400]
    review = client.get(read.headers["location"])
    for _ in polls():
        if 'data-testid="import-progress"' not in review.text:
            break
        # The progress page is the middle step of the same pattern.
        assert 'aria-current="step">Read its conditions' in review.text
        time.sleep(0.05)
        review = client.get(read.headers["location"])
    assert_the_pattern(review.text)
    assert 'aria-current="step">Review and import' in review.text
    form = dict(
        csrf_token=csrf_of(review.text),
        target="new",
        project_id="not an id!",
        name="Alder Court",
        project_manager_email=PM,
        jurisdiction="cotati",
    )
    refused = client.post(read.headers["location"], data=form)
    assert refused.status_code == 400
    assert_the_pattern(refused.text, wrong=("project_id",), kept=("not an id!", "Alder Court"))


def test_every_open_or_import_page_follows_the_pattern(browser: Browser) -> None:
    """Driven by the app's routes: a new page at .../new or .../import must follow it too."""
    client = browser.as_("admin@cotati.example")
    pages = sorted(
        path
        for method, path in app_routes(client.app)  # type: ignore[arg-type]
        if method == "GET"
        and not path.startswith("/api/")
        and "{" not in path
        and path.rsplit("/", 1)[-1] in ("new", "import")
    )
    assert {"/applications/new", "/permits/new", "/projects/import"} <= set(pages)
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        assert_the_pattern(response.text)


def test_importing_the_caseload_follows_the_pattern(browser: Browser) -> None:
    client = browser.as_("admin@cotati.example")
    page = client.get("/admin/import")
    assert_the_pattern(page.text)
    assert 'aria-current="step">Upload a file' in page.text
    nothing = client.post("/admin/import", data={"csrf_token": csrf_of(page.text)})
    assert nothing.status_code == 400
    assert_the_pattern(nothing.text, wrong=("file",))
