"""Applicant links: signed, scoped to one project or application, expiring, revocable;
the portal shows only what is owed and takes evidence as the applicant."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from models.database import make_engine, session_factory
from models.schema import ApplicantLink, EvidenceFile
from settings import Settings
from tests.web.helpers import Browser, Stackish, csrf_of
from web.auth.accounts import now
from web.uploads.evidence import stored_path

PM = "pm@cotati.example"
PUBLIC_WORKS = "publicworks@cotati.example"


def _link(browser: Browser, scope: str, scope_id: str) -> dict:
    made = browser.api(
        PM,
        "POST",
        "/api/v1/links",
        {"scope": scope, "scope_id": scope_id, "email": "applicant@test.example"},
    )
    assert made.status_code == 201, made.text
    return made.json()


def _path(link: dict) -> str:
    return link["url"].removeprefix("http://testserver")


def test_applicant_uploads_evidence_and_a_reviewer_clears_it(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    pid = stack.new_project("PORTAL")
    link = _link(browser, "project", pid)
    anonymous = browser.as_(None)
    page = anonymous.get(_path(link))
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"  # the applicant's own data
    owed = page.text.count('data-testid="owed-condition"')
    assert owed == 3  # #1, #2, #5: not the advisory #3 nor the untriggered #4
    assert 'data-number="3"' not in page.text and 'data-number="4"' not in page.text
    assert "<script>alert" not in page.text
    assert 'data-testid="nav-dashboard"' not in page.text  # no staff navigation

    content = b"%PDF-1.4 erosion control plan"
    uploaded = anonymous.post(
        f"{_path(link)}/conditions/1/evidence",
        data={"csrf_token": csrf_of(page.text), "description": "Erosion control plan, rev C"},
        files={"file": ("../../etc/plan.pdf", content, "application/pdf")},
    )
    assert uploaded.status_code == 200, uploaded.text
    assert 'class="flash ok"' in uploaded.text and "Received: plan.pdf" in uploaded.text
    assert 'data-testid="awaiting-condition"' in uploaded.text

    sha = hashlib.sha256(content).hexdigest()
    with session_factory(make_engine(web_settings.database_url))() as s:
        row = s.query(EvidenceFile).filter_by(scope_id=pid).one()
    assert (row.filename, row.sha256, row.size, row.uploaded_by) == (
        "plan.pdf",
        sha,
        len(content),
        "applicant@test.example",
    )
    assert stored_path(web_settings.data_dir, sha).read_bytes() == content

    detail = browser.as_(PUBLIC_WORKS).get(f"/projects/{pid}/conditions/1")
    assert "Erosion control plan, rev C" in detail.text and sha in detail.text
    history = browser.api(PUBLIC_WORKS, "GET", f"/api/v1/projects/{pid}/conditions/1").json()[
        "history"
    ]
    assert history[-1]["role"] == "applicant" and history[-1]["actor"] == "applicant@test.example"
    download = browser.as_(PUBLIC_WORKS).get(f"/evidence/{row.id}")
    assert download.content == content
    assert "attachment" in download.headers["content-disposition"]
    cleared = browser.api(
        PUBLIC_WORKS, "POST", f"/api/v1/projects/{pid}/conditions/1/review", {"decision": "cleared"}
    )
    assert cleared.status_code == 200
    assert browser.as_(None).get(_path(link)).text.count('data-testid="owed-condition"') == 2


def test_a_link_cannot_reach_another_project(browser: Browser, stack: Stackish) -> None:
    mine, theirs = stack.new_project("MINE"), stack.new_project("THEIRS")
    link = _link(browser, "project", mine)
    client = browser.as_(None)
    page = client.get(_path(link))
    assert theirs not in page.text
    # The link's token names its project: there is no path to another one.
    token = _path(link).split("/a/")[1]
    assert client.get(f"/projects/{theirs}", follow_redirects=False).status_code == 303
    forged = client.get(f"/a/{token[:-2]}xx")
    assert forged.status_code == 404 and "not valid" in forged.text
    # A condition it does not owe (advisory #3) is refused and nothing is submitted.
    refused = client.post(
        f"{_path(link)}/conditions/3/evidence",
        data={"csrf_token": csrf_of(page.text), "description": "x"},
        files={"file": ("a.pdf", b"x", "application/pdf")},
    )
    assert refused.status_code == 404 and "not one you owe" in refused.text
    # A staff session does not make a portal form valid without the link's own token.
    no_token = client.post(
        f"{_path(link)}/conditions/1/evidence",
        data={"description": "x"},
        files={"file": ("a.pdf", b"x", "application/pdf")},
    )
    assert no_token.status_code == 403


def test_expired_and_revoked_links_stop_working(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    pid = stack.new_project("EXP")
    expiring, revoking = _link(browser, "project", pid), _link(browser, "project", pid)
    client = browser.as_(None)
    page = client.get(_path(expiring))
    assert page.status_code == 200
    with session_factory(make_engine(web_settings.database_url)).begin() as s:
        s.get(ApplicantLink, expiring["link_id"]).expires_at = now() - timedelta(minutes=1)
    gone = client.get(_path(expiring))
    assert gone.status_code == 410 and "expired" in gone.text
    upload = client.post(
        f"{_path(expiring)}/conditions/1/evidence",
        data={"csrf_token": csrf_of(page.text), "description": "late"},
        files={"file": ("a.pdf", b"late", "application/pdf")},
    )
    assert upload.status_code == 410
    condition = browser.api(PM, "GET", f"/api/v1/projects/{pid}/conditions/1").json()
    assert condition["status"] == "open" and condition["evidence"] == []

    assert client.get(_path(revoking)).status_code == 200
    project = browser.as_(PM).get(f"/projects/{pid}")
    revoked = browser.as_(PM).post(
        f"/links/{revoking['link_id']}/revoke", data={"csrf_token": csrf_of(project.text)}
    )
    assert 'class="flash ok"' in revoked.text and 'data-state="revoked"' in revoked.text
    gone = browser.as_(None).get(_path(revoking))
    assert gone.status_code == 410 and "revoked" in gone.text


def test_application_link_shows_outstanding_items(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=6)
    item = {"id": "B", "text": "Photo simulations", "rule": "CMC 17.44.070(C)"}
    assert (
        browser.api(
            PM, "POST", f"/api/v1/applications/{app_id}/notice", {"items": [item]}
        ).status_code
        == 200
    )
    page_html = browser.as_(PM).get(f"/applications/{app_id}").text
    created = browser.as_(PM).post(
        "/links",
        data={"csrf_token": csrf_of(page_html), "scope": "application", "scope_id": app_id},
    )
    assert 'class="flash ok"' in created.text
    url = created.text.split("Applicant link created")[1].split(": ", 1)[1].split("<")[0].strip()
    portal = browser.as_(None).get(url.removeprefix("http://testserver"))
    assert (
        "Photo simulations" in portal.text and "Cotati Municipal Code § 17.44.070(C)" in portal.text
    )
    uploaded = browser.as_(None).post(
        url.removeprefix("http://testserver") + "/files",
        data={"csrf_token": csrf_of(portal.text), "item": "B"},
        files={"file": ("sims.pdf", b"%PDF sims", "application/pdf")},
    )
    assert 'class="flash ok"' in uploaded.text
    assert "sims.pdf" in browser.as_(PM).get(f"/applications/{app_id}").text


def test_an_applicant_upload_reaches_the_planner_and_the_resubmission_sends_new_dates(
    browser: Browser, stack: Stackish
) -> None:
    from sqlalchemy import select

    from models.database import make_engine, session_factory
    from models.schema import Notice

    def notices(kind: str) -> list[Notice]:
        engine = make_engine(stack.settings.database_url)
        with session_factory(engine)() as s:
            return list(
                s.scalars(
                    select(Notice).where(Notice.application_id == app_id, Notice.kind == kind)
                )
            )

    app_id = stack.new_clock(days_ago=8)
    item = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}
    browser.api(PM, "POST", f"/api/v1/applications/{app_id}/notice", {"items": [item]})
    link = browser.api(
        PM, "POST", "/api/v1/links", {"scope": "application", "scope_id": app_id}
    ).json()
    path = link["url"].removeprefix("http://testserver")
    portal = browser.as_(None).get(path)
    uploaded = browser.as_(None).post(
        path + "/files",
        data={"csrf_token": csrf_of(portal.text), "item": "A"},
        files={"file": ("rf.pdf", b"%PDF rf report", "application/pdf")},
    )
    assert "The planner has been told." in uploaded.text
    told = notices("applicant_upload")
    assert len(told) == 1 and "rf.pdf" in told[0].subject
    assert told[0].to_addrs == [
        browser.api(PM, "GET", f"/api/v1/applications/{app_id}").json()["planner_email"]
    ]
    # The planner's inbox has it, with the next action: record the resubmission.
    inbox = browser.api(PM, "GET", "/api/v1/inbox").json()["items"]
    upload = next(i for i in inbox if i["kind"] == "upload" and app_id in i["title"])
    assert upload["action_href"] == f"/applications/{app_id}#record-resubmission"
    assert "uploaded 1 document" in upload["why"]
    # Recording it sends the applicant the new dates, once.
    page = browser.as_(PM).get(f"/applications/{app_id}").text
    done = browser.as_(PM).post(
        f"/applications/{app_id}/events/resubmission", data={"csrf_token": csrf_of(page)}
    )
    assert 'class="flash ok"' in done.text
    letters = notices("resubmission_confirmation")
    assert len(letters) == 1 and "act by" in letters[0].subject
    # Answered: it leaves the inbox.
    inbox = browser.api(PM, "GET", "/api/v1/inbox").json()["items"]
    assert not [i for i in inbox if i["kind"] == "upload" and app_id in i["title"]]
