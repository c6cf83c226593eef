"""Journey: every kind of letter to an applicant carries a signed portal link built from
the public URL setting, and following it in the browser opens the right page.

Letters staff cause (incompleteness notice, resubmission confirmation, decision, digest,
a return with comments) go through the running stack from the command line. Letters
that wait for a date (a condition's due-date reminder, a permit's expiry reminder) are
sent by the same notice activity, against the stack's database and signing key, now.
"""

from __future__ import annotations

import asyncio
import email
import os
import re
import time
from datetime import timedelta
from email.message import Message
from pathlib import Path
from unittest import mock

import pytest
from playwright.async_api import expect
from temporalio.testing import ActivityEnvironment

from activities.mail import OutboxTransport
from activities.notices import NoticeActivities
from activities.portal_links import PortalLinks
from models.database import make_engine
from models.permit_clock import PermitContacts
from notices.render import NoticeRenderer
from operations.signing import secret_key
from settings import load_settings
from tests.activities.project_fixtures import make_project_request
from tests.browser.harness import Journey, RunningStack
from tests.browser.steps import APPLICANT, city_today, import_birch_lane, new_id, open_when_ready
from tests.notices.test_permit_clock import requests as permit_requests

pytestmark = pytest.mark.browser

SITE_ACQ = "siteacq@carrier.example"


def letters(outbox: Path) -> list[Message]:
    if not outbox.exists():
        return []
    return [email.message_from_bytes(p.read_bytes()) for p in sorted(outbox.glob("*.eml"))]


def text_of(msg: Message) -> str:
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode(part.get_content_charset() or "utf-8")
    raise AssertionError("no plain-text part")


async def portal_link(outbox: Path, key_part: str, to: str, base_url: str) -> str:
    """The portal address in the letter whose key contains `key_part`, once it is sent."""
    deadline = time.monotonic() + 60
    while True:
        found = [m for m in letters(outbox) if key_part in m["X-Clearance-Notice-Key"]]
        if found:
            break
        if time.monotonic() > deadline:
            keys = [m["X-Clearance-Notice-Key"] for m in letters(outbox)]
            raise AssertionError(f"no letter {key_part!r} after 60 s (sent: {keys})")
        await asyncio.sleep(0.5)
    msg = found[-1]
    assert to in msg["To"], (key_part, msg["To"])
    match = re.search(re.escape(base_url) + r"/a/\S+", text_of(msg))
    assert match, f"{key_part}: no portal link in\n{text_of(msg)}"
    return match.group(0)


def send_scheduled_letters(stack: RunningStack, project_id: str, permit_id: str) -> Path:
    """A condition's due-date reminder and a permit's expiry reminder, sent now by the
    worker's notice activity on the stack's database, key and public URL."""
    with mock.patch.dict(os.environ, stack.env):
        settings = load_settings()
    engine = make_engine(settings.database_url)
    outbox = stack.data_dir.parent / "scheduled-outbox"
    acts = NoticeActivities(
        engine,
        NoticeRenderer(),
        OutboxTransport(outbox),
        portal_links=PortalLinks(
            engine, settings.public_url, secret_key(settings), settings.applicant_link_days
        ),
    )
    window = make_project_request("window_reminder", project_id)
    window.project.applicant_email = APPLICANT
    window.to = [APPLICANT]
    expiry = permit_requests("building_permit_expiry", "approved", {})["permit_expiry_reminder"]
    expiry.info.clock_id = permit_id
    expiry.info.contacts = PermitContacts(
        staff_email="pm@cotati.example",
        supervisor_email="manager@cotati.example",
        attorney_email="attorney@cotati.example",
        applicant_email=SITE_ACQ,
    )
    expiry.to = [SITE_ACQ]
    env = ActivityEnvironment()
    env.run(acts.send_project_notice, window)
    env.run(acts.send_permit_notice, expiry)
    engine.dispose()
    return outbox


async def test_every_applicant_letter_links_to_the_right_portal_page(
    journey: Journey, tmp_path: Path
) -> None:
    stack = journey.stack
    base = stack.base_url
    today = city_today()
    applicant = await journey.person()

    # A wireless application: the notice, the resubmission, the decision.
    app_id = new_id("WTF")
    stack.ok(
        "clock", "open", "--id", app_id, "--category", "macro_collocation",
        "--planner", "pm@cotati.example", "--applicant-email", SITE_ACQ,
        "--site", "5 Portal Way", "--submitted", (today - timedelta(days=20)).isoformat(),
    )  # fmt: skip
    pm = stack.login("pm@cotati.example")
    pm.ok(
        "clock", "notice", app_id, "--item", "A|RF emissions report|CMC 17.44.070(A)",
        "--date", (today - timedelta(days=12)).isoformat(),
    )  # fmt: skip
    url = await portal_link(stack.outbox, f"{app_id}:incompleteness:", SITE_ACQ, base)
    await applicant.goto(url)
    await expect(applicant.get_by_role("heading", level=1)).to_have_text(
        f"Wireless application {app_id}"
    )
    await expect(applicant.get_by_test_id("owed-item")).to_contain_text("RF emissions report")
    await journey.shot("incompleteness notice opens the application's portal", applicant)

    pm.ok("clock", "resubmit", app_id, "--date", (today - timedelta(days=2)).isoformat())
    url = await portal_link(stack.outbox, f"{app_id}:resubmission:", SITE_ACQ, base)
    await applicant.goto(url)
    await expect(applicant.get_by_role("heading", level=1)).to_have_text(
        f"Wireless application {app_id}"
    )
    await expect(applicant.get_by_test_id("portal-owed")).to_contain_text("Nothing is owed")

    pm.ok("clock", "decide", app_id, "--outcome", "approved", "--date", today.isoformat())
    url = await portal_link(stack.outbox, f"{app_id}:decision:", SITE_ACQ, base)
    await applicant.goto(url)
    await expect(applicant.get_by_role("heading", level=1)).to_have_text(
        f"Wireless application {app_id}"
    )
    await journey.shot("the decision opens the same portal", applicant)

    # A project: the digest, then a return with comments.
    project_id = import_birch_lane(stack, tmp_path)
    await open_when_ready(applicant, f"{base}/login")  # the read model has the project
    pm.ok("project", "digest", project_id)
    url = await portal_link(stack.outbox, f"{project_id}:digest:requested", APPLICANT, base)
    await applicant.goto(url)
    await expect(applicant.get_by_role("heading", level=1)).to_contain_text(
        "what the city still needs from you"
    )
    await expect(applicant.get_by_test_id("owed-condition")).to_have_count(3)
    await journey.shot("the digest opens the project's portal", applicant)

    pm.ok("project", "submit", project_id, "1", "--description", "Drainage report")
    reviewer = stack.login("publicworks@cotati.example")
    reviewer.ok(
        "project", "review", project_id, "1", "--decision", "returned",
        "--comment", "Sheet C-3 is missing",
    )  # fmt: skip
    url = await portal_link(stack.outbox, f"{project_id}:returned:1:", APPLICANT, base)
    await applicant.goto(url)
    returned = applicant.locator("[data-testid=owed-condition][data-number='1']")
    await expect(returned).to_contain_text("The reviewer said: Sheet C-3 is missing")
    await journey.shot("the return with comments opens the returned condition", applicant)

    # The project manager finds the returned condition in their inbox, to follow up.
    staff = await journey.login("pm@cotati.example", await journey.person())
    await staff.goto("/inbox")
    returned_item = staff.locator("[data-testid=inbox-item][data-kind=returned]").filter(
        has_text=f"Birch Lane Townhomes {project_id}: condition #1"
    )
    await expect(returned_item).to_contain_text("Sheet C-3 is missing")
    await expect(returned_item.get_by_test_id("inbox-action")).to_have_text(
        "Follow up with the applicant"
    )
    await journey.shot("the returned condition in the project manager's inbox", staff)

    # Letters that wait for a date: a condition's due date, a permit's expiry.
    permit_id = new_id("BP")
    stack.ok(
        "permit", "open", "--id", permit_id, "--rule", "building_permit_expiry",
        "--event", "approved", "--date", (today - timedelta(days=30)).isoformat(),
        "--applicant-email", SITE_ACQ, "--title", f"Building permit {permit_id}",
    )  # fmt: skip
    outbox = send_scheduled_letters(stack, project_id, permit_id)
    url = await portal_link(outbox, f"{project_id}/window:", APPLICANT, base)
    await applicant.goto(url)
    await expect(applicant.get_by_test_id("portal-stepper")).to_be_visible()
    url = await portal_link(outbox, ":reminder:", SITE_ACQ, base)
    await open_when_ready(applicant, url)
    await expect(applicant.get_by_role("heading", level=1)).to_have_text(
        f"Building permit {permit_id}"
    )
    await expect(applicant.get_by_test_id("portal-permit")).to_contain_text("Expires")
    await journey.shot("the expiry reminder opens the permit's page", applicant)
