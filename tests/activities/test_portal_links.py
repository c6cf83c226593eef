"""Every letter to an applicant carries a signed link to the portal, built from the
public URL setting; a retried send makes no second link; staff letters carry none."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, func, select
from temporalio.testing import ActivityEnvironment

from activities.mail import OutboxTransport
from activities.notices import NoticeActivities
from activities.portal_links import PortalLinks
from models.database import session_factory
from models.schema import ApplicantLink
from notices.render import NoticeRenderer
from operations.signing import link_id_of
from tests.activities.fixtures import make_request
from tests.activities.project_fixtures import make_project_request
from tests.activities.test_outbox import bodies, read_eml

KEY = "test-signing-key"
PUBLIC = "https://permits.cotati.example"


def activities(engine: Engine, outbox: Path) -> NoticeActivities:
    return NoticeActivities(
        engine,
        NoticeRenderer(),
        OutboxTransport(outbox),
        mail_from="clearance@cotati.example",
        portal_links=PortalLinks(engine, PUBLIC, KEY, 30),
    )


def links(engine: Engine) -> list[ApplicantLink]:
    with session_factory(engine)() as session:
        return list(session.scalars(select(ApplicantLink)))


def portal_address(path: Path) -> str:
    text, html = bodies(read_eml(path))
    [line] = [w for w in text.split() if w.startswith(f"{PUBLIC}/a/")]
    assert f'href="{line}"' in html
    return line


def test_a_letter_to_the_applicant_links_to_their_portal_once(
    engine: Engine, tmp_path: Path
) -> None:
    acts = activities(engine, tmp_path / "outbox")
    req = make_request("incompleteness_notice")
    env = ActivityEnvironment()
    receipt = env.run(acts.send_notice, req)
    env.run(acts.send_notice, req)  # a retry: nothing new

    url = portal_address(Path(receipt.location))
    [link] = links(engine)
    assert link_id_of(KEY, url.rsplit("/", 1)[1]) == link.link_id
    assert (link.scope, link.scope_id, link.email) == (
        "application",
        "APP-1",
        "permits@towerco.example",
    )
    # The next letter to the same applicant reuses the live link.
    decision = env.run(acts.send_notice, make_request("decision_confirmation"))
    assert portal_address(Path(decision.location)) == url
    assert len(links(engine)) == 1


def test_a_project_letter_opens_the_project_portal(engine: Engine, tmp_path: Path) -> None:
    acts = activities(engine, tmp_path / "outbox")
    receipt = ActivityEnvironment().run(
        acts.send_project_notice, make_project_request("applicant_digest")
    )
    portal_address(Path(receipt.location))
    [link] = links(engine)
    assert (link.scope, link.scope_id) == ("project", "PA-21-29")


def test_a_letter_to_staff_carries_no_portal_link(engine: Engine, tmp_path: Path) -> None:
    acts = activities(engine, tmp_path / "outbox")
    receipt = ActivityEnvironment().run(acts.send_notice, make_request("reminder"))
    text, html = bodies(read_eml(Path(receipt.location)))
    assert "/a/" not in text and "portal" not in html
    with session_factory(engine)() as session:
        assert session.scalar(select(func.count()).select_from(ApplicantLink)) == 0
