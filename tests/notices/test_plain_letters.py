"""Letters a person can read: from the city with the responsible planner as Reply-To,
plain words (no notice keys, no "notice periods on record ... (used)"), how many days
remain, and each rule cited by its title, never by a seed document's file name."""

from __future__ import annotations

import re
from functools import cache

import pytest

from notices.letter import RenderedNotice
from notices.permit_clock import PermitNoticeRenderer
from notices.project import PROJECT_NOTICE_KINDS
from notices.render import NoticeRenderer
from notices.shot_clock import NOTICE_KINDS
from tests.activities.fixtures import make_request
from tests.activities.project_fixtures import make_project_request
from tests.notices.test_permit_clock import requests as permit_requests

CITY = "City of Cotati Planning <planning@cotati.example>"
DEBUG_WORDS = re.compile(r"Notice key|Notice periods on record|\(used\)|\.txt:\d|\.md\b")


def shot_clock_letters() -> dict[str, RenderedNotice]:
    out = {}
    for kind in NOTICE_KINDS:
        try:
            req = make_request(kind)
        except ValueError:  # a kind the fixtures do not build (uploads, resubmissions)
            continue
        out[kind] = NoticeRenderer().render(req)
    return out


def permit_letters() -> dict[str, RenderedNotice]:
    renderer = PermitNoticeRenderer()
    cotati = permit_requests("cotati_sign_permit_expiry", "approved", {})
    appeal = permit_requests("cotati_sign_appeal_decision", "appeal_filed", {})
    review = permit_requests("ca_post_entitlement_review", "complete", {"units": 12})
    out = {f"cotati/{k}": renderer.render_permit(r) for k, r in {**review, **cotati}.items()}
    return out | {f"appeal/{k}": renderer.render_permit(r) for k, r in appeal.items()}


def project_letters() -> dict[str, RenderedNotice]:
    return {
        kind: NoticeRenderer().render_project(make_project_request(kind))
        for kind in PROJECT_NOTICE_KINDS
    }


@cache
def every_letter() -> dict[str, RenderedNotice]:
    return {**shot_clock_letters(), **permit_letters(), **project_letters()}


@pytest.mark.parametrize("name", sorted(every_letter()))
def test_every_letter_comes_from_the_city_in_plain_words(name: str) -> None:
    letter = every_letter()[name]
    assert letter.sender == CITY, name
    assert letter.reply_to, name  # the responsible planner, staff contact or PM
    for body in (letter.subject, letter.text, letter.html):
        assert not DEBUG_WORDS.search(body), (name, DEBUG_WORDS.search(body))


def test_the_reply_goes_to_the_person_responsible_for_the_record() -> None:
    assert shot_clock_letters()["incompleteness_notice"].reply_to == "planner@cotati.example"
    assert project_letters()["applicant_digest"].reply_to == "pm@cotati.example"


def test_a_cotati_permit_letter_cites_the_code_by_its_title() -> None:
    letter = every_letter()["cotati/permit_expiry_reminder"]
    # The rule: its title and the law, not "cotati-fod-overlay-ordinance.txt:157-158".
    assert "Sign permit expiration, Cotati Municipal Code § 17.38" in letter.text
    assert "Sign permit expiration, Cotati Municipal Code § 17.38" in letter.html


def test_the_incompleteness_notice_says_how_many_days_remain_and_what_the_city_may_still_do() -> (
    None
):
    req = make_request("incompleteness_notice")
    # A clock still counting (tolled, not reset) has a date; say how far away it is.
    req.clock = {**req.clock, "shot_clock_date": "2026-04-20", "conservative_date": "2026-04-20"}
    req.clock["notice_windows"] = [
        {"kind": "first_notice", "closes": "2026-03-12", "state": "used", "rule": "x"},
        {
            "kind": "later_notice",
            "closes": "2026-04-09",
            "state": "open",
            "rule": "47 CFR 1.6003(d)(3)",
        },
    ]
    letter = NoticeRenderer().render(req)
    for body in (letter.text, letter.html):
        assert "April 20, 2026; 41 days remain from the date of this letter" in body
        assert (
            "Until April 9, 2026, the City may send a further notice of incompleteness, only "
            "about items the first notice asked for (47 CFR 1.6003(d)(3))."
        ) in body
        assert "first_notice" not in body and "used" not in body


def test_every_letter_template_shows_the_portal_link_when_there_is_one() -> None:
    url = "https://permits.cotati.example/a/signed-token"
    for kind in PROJECT_NOTICE_KINDS:
        req = make_project_request(kind)
        req.details = {**req.details, "portal_url": url}
        letter = NoticeRenderer().render_project(req)
        assert url in letter.text and f'href="{url}"' in letter.html, kind
    for kind in shot_clock_letters():
        req = make_request(kind)
        req.details = {**req.details, "portal_url": url}
        letter = NoticeRenderer().render(req)
        assert url in letter.text and f'href="{url}"' in letter.html, kind
