"""The pages as a user meets them: log-in, sessions and CSRF, escaping, the dashboard,
the notice builder's refusal, sign-off refused with blockers then allowed, review, and
read pages that keep working when Temporal is down."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select

from models.database import make_engine, session_factory
from models.schema import ClosureDay, User, WebSession
from settings import Settings
from tests.web.helpers import SCRIPT, Browser, Stackish, city_today, csrf_of
from web.app import create_app
from web.context import SESSION_COOKIE

PM = "pm@cotati.example"
ENGINEER = "engineer@cotati.example"
PUBLIC_WORKS = "publicworks@cotati.example"


def test_login_is_required_and_wrong_password_is_refused(browser: Browser) -> None:
    client = browser.as_(None)
    response = client.get("/projects", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Fprojects"
    page = client.get("/login")
    wrong = client.post(
        "/login",
        data={"email": PM, "password": "not-it", "csrf_token": csrf_of(page.text)},
        follow_redirects=False,
    )
    assert wrong.status_code == 401
    assert "do not match" in wrong.text and 'class="flash error"' in wrong.text
    assert SESSION_COOKIE not in wrong.cookies


def test_session_cookie_is_httponly_lax_and_logout_ends_it(browser: Browser) -> None:
    client = browser.as_(None)
    page = client.get("/login")
    response = client.post(
        "/login",
        data={"email": ENGINEER, "password": "clearance-demo", "csrf_token": csrf_of(page.text)},
        follow_redirects=False,
    )
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    token = response.cookies[SESSION_COOKIE]
    assert token not in str(browser.client.app.state.ctx.settings)  # type: ignore[attr-defined]
    client.cookies.set(SESSION_COOKIE, token)
    home = client.get("/")
    assert home.status_code == 200
    out = client.post("/logout", data={"csrf_token": csrf_of(home.text)}, follow_redirects=False)
    assert out.status_code == 303
    client.cookies.set(SESSION_COOKIE, token)
    assert client.get("/", follow_redirects=False).status_code == 303  # the row is gone


def test_passwords_and_sessions_are_stored_hashed(web_settings: Settings, browser: Browser) -> None:
    token = browser.login(PM)
    with session_factory(make_engine(web_settings.database_url))() as s:
        user = s.scalar(select(User).where(User.email == PM))
        assert user is not None and user.password_hash.startswith("$argon2id$")
        assert "clearance-demo" not in user.password_hash
        assert s.get(WebSession, token) is None  # only the sha256 is kept


def test_forms_without_the_csrf_token_are_refused(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("CSRF")
    client = browser.as_(ENGINEER)
    for data in ({}, {"csrf_token": "forged"}):
        response = client.post(f"/projects/{pid}/milestones/grading_permit/sign-off", data=data)
        assert response.status_code == 403
        assert "security token (CSRF)" in response.text
    # Another user's token does not do either.
    other = csrf_of(browser.as_(PM).get("/me").text)
    client = browser.as_(ENGINEER)
    response = client.post(
        f"/projects/{pid}/milestones/grading_permit/sign-off", data={"csrf_token": other}
    )
    assert response.status_code == 403
    # Nothing happened.
    page = client.get(f"/projects/{pid}/milestones/grading_permit/sign-off")
    assert 'data-testid="signoff-state">not yet' in page.text
    # The log-in form has its own token; the API wants X-CSRF-Token with a session cookie.
    assert browser.as_(None).post("/login", data={"email": PM, "password": "x"}).status_code == 403
    api = browser.as_(ENGINEER).post(f"/api/v1/projects/{pid}/milestones/grading_permit/sign-off")
    assert api.status_code == 403 and "CSRF" in api.json()["error"]


def test_condition_text_with_a_script_tag_renders_inert(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("XSS")
    client = browser.as_(PM)
    escaped = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
    for path in (f"/projects/{pid}", f"/projects/{pid}/conditions/5", f"/projects/{pid}?q=sewer"):
        html = client.get(path).text
        assert SCRIPT not in html
        assert escaped in html or "&lt;script&gt;" in html
        assert "<script" not in html  # the app itself needs no script at all
    response = client.get(f"/projects/{pid}")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    # A search for the tag is echoed escaped too.
    html = client.get(f"/projects/{pid}", params={"q": SCRIPT}).text
    assert SCRIPT not in html


def test_dashboard_sections_and_risk_order(browser: Browser, stack: Stackish) -> None:
    stack.new_clock(days_ago=85)  # 90-day clock: 5 days left
    stack.new_project("DASH")
    html = browser.as_("publicworks@cotati.example").get("/").text
    for section in ('id="clocks"', 'id="projects"', 'id="review-queue"'):
        assert section in html
    dates = re.findall(r'data-testid="clock-row".*?<td data-date="([^"]*)">', html, re.S)
    real = [d for d in dates if d]
    assert real == sorted(real) and real
    assert "risk-urgent" in html
    assert "My review queue: Public Works / Engineering" in html


def test_project_page_groups_and_filters(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("FLT")
    client = browser.as_(PM)
    html = client.get(f"/projects/{pid}").text
    assert "Grading permit" in html or "grading" in html.lower()
    assert html.count('data-testid="condition-row"') == 5
    only = client.get(f"/projects/{pid}", params={"department": "planning"}).text
    assert re.findall(r'data-number="(\d+)"', only) == ["2", "3"]
    blocking = client.get(f"/projects/{pid}", params={"status": "blocking"}).text
    assert sorted(
        set(re.findall(r'data-testid="condition-row" data-number="(\d+)"', blocking))
    ) == [
        "1",
        "2",
        "5",
    ]
    text = client.get(f"/projects/{pid}", params={"q": "park fees"}).text
    assert re.findall(r'data-testid="condition-row" data-number="(\d+)"', text) == ["2"]


def test_sign_off_refused_with_blockers_then_allowed(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("SO")
    url = f"/projects/{pid}/milestones/grading_permit/sign-off"
    engineer = browser.as_(ENGINEER)
    page = engineer.get(url)
    assert page.text.count('data-testid="blocker-row"') == 2
    # Blocked: a short summary with a link to the table, and the button disabled.
    assert re.search(r'disabled aria-disabled="true" data-testid="signoff-submit"', page.text)
    assert "2 conditions still block Grading permit issued" in page.text
    assert 'href="#blockers"' in page.text
    refused = engineer.post(url, data={"csrf_token": csrf_of(page.text)})
    assert refused.status_code == 409
    assert 'class="flash error"' in refused.text
    assert (
        "Refused: 2 conditions still block Grading permit issued: 1 Planning Division"
        in refused.text
    )
    # Clear #1 through the pages (PM submits, public works clears), waive #2 by API.
    pm = browser.as_(PM)
    detail = pm.get(f"/projects/{pid}/conditions/1")
    submitted = pm.post(
        f"/projects/{pid}/conditions/1/submit-evidence",
        data={"csrf_token": csrf_of(detail.text), "description": "Erosion control plan"},
        files={"file": ("plan.pdf", b"%PDF-1.4 plan", "application/pdf")},
    )
    assert submitted.status_code == 200 and 'class="flash ok"' in submitted.text
    assert "plan.pdf" in submitted.text
    reviewer = browser.as_(PUBLIC_WORKS)
    queue = reviewer.get("/").text
    assert f'href="/projects/{pid}/conditions/1"' in queue
    detail = reviewer.get(f"/projects/{pid}/conditions/1")
    cleared = reviewer.post(
        f"/projects/{pid}/conditions/1/review",
        data={"csrf_token": csrf_of(detail.text), "decision": "cleared", "comment": "Looks right"},
    )
    assert 'class="flash ok"' in cleared.text
    assert 'data-testid="condition-status">cleared' in cleared.text
    browser.api(
        "manager@cotati.example",
        "POST",
        f"/api/v1/projects/{pid}/conditions/2/resolve",
        {"resolution": "waived", "reason": "Paid under the development agreement"},
    )
    engineer = browser.as_(ENGINEER)
    page = engineer.get(url)
    assert 'data-testid="blocker-row"' not in page.text
    assert "disabled" not in re.search(r"<button[^>]*signoff-submit[^>]*>", page.text)[0]
    # A sign-off is final: the first post asks for confirmation and records nothing.
    confirm = engineer.post(url, data={"csrf_token": csrf_of(page.text)})
    assert confirm.status_code == 200 and 'data-testid="confirm-panel"' in confirm.text
    assert "not yet" in engineer.get(url).text
    signed = engineer.post(url, data={"csrf_token": csrf_of(page.text), "confirmed": "yes"})
    assert signed.status_code == 200 and 'class="flash ok"' in signed.text
    assert "signed off" in signed.text and "by engineer@cotati.example" in signed.text


def test_a_return_needs_a_comment_and_says_so(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("RET")
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    reviewer = browser.as_(PUBLIC_WORKS)
    detail = reviewer.get(f"/projects/{pid}/conditions/1")
    refused = reviewer.post(
        f"/projects/{pid}/conditions/1/review",
        data={"csrf_token": csrf_of(detail.text), "decision": "returned", "comment": ""},
    )
    assert refused.status_code == 409
    assert "returning evidence needs a comment" in refused.text


def test_notice_builder_refuses_a_defective_notice(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=4)
    client = browser.as_(PM)
    page = client.get(f"/applications/{app_id}/notice")
    data = {
        "csrf_token": csrf_of(page.text),
        "use_0": "1",
        "id_0": "A",
        "text_0": "Structural analysis",
        "rule_0": "",
    }
    for step in ("preview", "send"):
        refused = client.post(f"/applications/{app_id}/notice", data={**data, "step": step})
        assert refused.status_code == 409
        assert 'class="flash error"' in refused.text
        assert "cites no rule" in refused.text
        assert 'value="Structural analysis"' in refused.text  # what was typed is kept
    page = client.get(f"/applications/{app_id}")
    assert 'data-testid="clock-status">running' in page.text
    assert page.text.count('data-testid="timeline-event"') == 1


def test_application_page_explains_the_dates(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=12)
    html = browser.as_("attorney@cotati.example").get(f"/applications/{app_id}").text
    assert "47 CFR 1.6003(c)(1)" in html  # the rule behind the period
    assert 'data-testid="ledger-row"' in html and 'data-testid="window-row"' in html
    assert "days left" in html
    assert 'data-testid="open-notice-builder"' not in html  # the attorney only reads
    page = browser.as_(PM)
    form = page.get(f"/applications/{app_id}")
    ok = page.post(
        f"/applications/{app_id}/events/non-tolling-event",
        data={"csrf_token": csrf_of(form.text), "kind": "moratorium", "note": "Council moratorium"},
    )
    assert 'class="flash ok"' in ok.text and "Council moratorium" in ok.text


def test_read_pages_work_when_temporal_is_down(
    web_settings: Settings, browser: Browser, stack: Stackish
) -> None:
    app_id = stack.new_clock(days_ago=3)
    down = dataclasses.replace(web_settings, temporal_address="127.0.0.1:9")
    with TestClient(create_app(down)) as client:
        client.cookies.set(SESSION_COOKIE, browser.login(PM))
        for path in ("/", f"/applications/{app_id}", "/projects", "/outbox", "/admin/calendar"):
            assert client.get(path).status_code == 200, path
        assert client.get("/readyz").status_code == 503
        assert client.get("/healthz").status_code == 200
        form = client.get(f"/applications/{app_id}")
        response = client.post(
            f"/applications/{app_id}/events/resubmission",
            data={"csrf_token": csrf_of(form.text)},
        )
        assert response.status_code == 503
        assert "cannot reach the Temporal server" in response.text
        assert 'class="flash error"' in response.text


def test_reports_and_csv_export(browser: Browser, stack: Stackish) -> None:
    pid = stack.new_project("REP")
    client = browser.as_("attorney@cotati.example")
    html = client.get(f"/reports/{pid}/clearance.html")
    assert html.status_code == 200 and "Grading" in html.text
    assert SCRIPT not in html.text
    csv = client.get(f"/reports/{pid}/clearance.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert f'filename="{pid}-clearance.csv"' in csv.headers["content-disposition"]
    assert csv.text.splitlines()[0].startswith("project,milestone,number")
    assert client.get(f"/reports/{pid}/mmrp.csv").status_code == 200
    assert client.get("/reports/NOPE/mmrp.html").status_code == 404
    # The audit log: a page in the city's time, and a CSV with the ISO instant beside it.
    log = client.get(f"/reports/{pid}/audit.html")
    assert log.status_code == 200 and "Audit log" in log.text
    assert re.search(r"<td>\w+ \d{1,2}, \d{4}, \d{1,2}:\d\d [AP]M P[SD]T</td>", log.text)
    header = client.get(f"/reports/{pid}/audit.csv").text.splitlines()[0]
    assert header.startswith("project,at,at_city_time,audit_id")


def test_outbox_shows_delivery_state(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=7)
    item = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}
    browser.api(PM, "POST", f"/api/v1/applications/{app_id}/notice", {"items": [item]})
    html = browser.as_(PM).get(f"/applications/{app_id}").text
    key = re.search(r'href="/outbox/([^"]+)"', html)
    assert key, html
    notice = browser.as_(PM).get(f"/outbox/{key.group(1)}")
    assert notice.status_code == 200 and "RF report" in notice.text
    outbox = browser.as_(PM).get("/outbox").text
    assert 'data-testid="outbox-row"' in outbox
    assert re.search(r'data-state="(delivered|pending|failed)"', outbox)


def test_admin_adds_a_closure_to_every_open_clock(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    app_id = stack.new_clock(days_ago=2)
    day = (city_today() + timedelta(days=300)).isoformat()
    admin = browser.as_("admin@cotati.example")
    page = admin.get("/admin/calendar")
    assert "Christmas" in page.text and 'data-testid="calendar-day"' in page.text
    added = admin.post(
        "/admin/calendar/closures",
        data={
            "csrf_token": csrf_of(page.text),
            "jurisdiction": "cotati",
            "date": day,
            "reason": "Fire",
        },
    )
    assert added.status_code == 200 and 'class="flash ok"' in added.text
    assert "open clock(s) recounted" in added.text
    with session_factory(make_engine(web_settings.database_url))() as s:
        row = s.scalar(select(ClosureDay).where(ClosureDay.date == day))
    assert row is not None and app_id in row.applications
    again = admin.post(
        "/admin/calendar/closures",
        data={"csrf_token": csrf_of(page.text), "jurisdiction": "cotati", "date": day},
    )
    assert again.status_code == 409 and "already a closure day" in again.text
    year = admin.get(f"/admin/calendar?year={day[:4]}").text
    assert day in year
    # Stored before the fan-out (shot-clocks.md 8.10): a clock opened afterwards through
    # the action layer starts with the day frozen into its calendar.
    later_id = f"APP-LATER-{day}"
    opened = browser.api(
        "pm@cotati.example",
        "POST",
        "/api/v1/applications",
        {
            "application_id": later_id,
            "planner_email": "pm@cotati.example",
            "category": "macro_collocation",
        },
    )
    assert opened.status_code in (200, 201), opened.text
    summary = browser.api("pm@cotati.example", "GET", f"/api/v1/applications/{later_id}/summary")
    calendar = summary.json()["application"]["calendar"]
    assert {"date": day, "note": "Fire"} in calendar["layers"]["closures"]
    assert calendar["pack_data"]["key"] == "cotati-2024"


def test_admin_manages_users(browser: Browser) -> None:
    admin = browser.as_("admin@cotati.example")
    page = admin.get("/admin/users")
    assert page.status_code == 200 and "publicworks@cotati.example" in page.text
    bad = admin.post(
        "/admin/users",
        data={
            "csrf_token": csrf_of(page.text),
            "email": "fire@cotati.example",
            "role": "department_reviewer",
            "password": "long enough password",
        },
    )
    assert bad.status_code == 400 and "needs a department" in bad.text
    added = admin.post(
        "/admin/users",
        data={
            "csrf_token": csrf_of(page.text),
            "email": "fire@cotati.example",
            "role": "department_reviewer",
            "department": "fire",
            "password": "long enough password",
        },
    )
    assert 'class="flash ok"' in added.text
    browser.login("fire@cotati.example", "long enough password")
    assert "My review queue: Fire" in browser.as_("fire@cotati.example").get("/").text
    user_id = re.search(
        r'data-email="fire@cotati.example">.*?/admin/users/(\d+)/disable', added.text, re.S
    )
    assert user_id
    admin = browser.as_("admin@cotati.example")
    done = admin.post(
        f"/admin/users/{user_id.group(1)}/disable", data={"csrf_token": csrf_of(page.text)}
    )
    assert 'class="flash ok"' in done.text
    assert browser.as_("fire@cotati.example").get("/", follow_redirects=False).status_code == 303
    assert browser.as_("pm@cotati.example").get("/admin/users").status_code == 403


def test_repeated_wrong_passwords_are_throttled(browser: Browser) -> None:
    client = browser.as_(None)
    email = "manager@cotati.example"
    statuses = []
    for _ in range(6):
        page = client.get("/login")
        response = client.post(
            "/login", data={"email": email, "password": "guess", "csrf_token": csrf_of(page.text)}
        )
        statuses.append(response.status_code)
    assert statuses == [401] * 5 + [429]
    assert "Too many failed log-ins" in response.text
    page = client.get("/login")
    right = client.post(
        "/login",
        data={"email": email, "password": "clearance-demo", "csrf_token": csrf_of(page.text)},
    )
    assert right.status_code == 429  # even the right password waits out the window
    browser.client.app.state.ctx.throttle.succeeded(email, "testclient")  # type: ignore[attr-defined]


def test_lists_keep_a_conditions_sub_items(browser: Browser, stack: Stackish) -> None:
    """A condition cut at its colon in a list would hide what it asks for: the inbox, the
    review queue and the project page keep every sub-item, one click away."""
    from models.schema import ConditionRow

    pid = stack.new_project("SUB")
    browser.api(PM, "POST", f"/api/v1/projects/{pid}/conditions/1/evidence", {"description": "d"})
    engine = make_engine(stack.settings.database_url)
    with session_factory(engine).begin() as s:
        row = s.scalars(
            select(ConditionRow).where(ConditionRow.project_id == pid, ConditionRow.number == "1")
        ).one()
        row.text = "Prior to grading permit, submit the following:"
        # The oldest submission: first in the queue, whatever else the shared city holds.
        row.submitted_at = "2000-01-03T17:00:00+00:00"
        row.sub_items = [
            {"label": "a.", "text": "an erosion control plan;", "sub_items": []},
            {"label": "b.", "text": "a haul route for the trucks.", "sub_items": []},
        ]
    engine.dispose()
    reviewer = browser.as_("publicworks@cotati.example")
    for page in (f"/projects/{pid}", "/queues/engineering", "/"):
        html = reviewer.get(page).text
        assert "submit the following:" in html, page
        assert "a haul route for the trucks." in html, page
        assert "2 sub-items" in html, page
