"""Project letters (conditions of approval): every kind renders text and HTML with the
right subject, escapes the resolution's text in HTML, groups the digest by milestone and
department, labels milestones from the milestone file and refuses what it cannot state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notices.letter import InvalidNoticeDetails, UnknownNoticeKind
from notices.project import PROJECT_NOTICE_KINDS
from notices.render import NoticeRenderer
from notices.vocabulary import milestone_keys, milestone_label
from rules.conditions.gates import load_milestones
from tests.activities.project_fixtures import (
    PROJECT_NOTICE_KINDS as FIXTURE_KINDS,
)
from tests.activities.project_fixtures import (
    SCRIPT,
    make_project_request,
)
from tests.notices.milestones import use_keys_only_milestones, use_milestone_file

EXPECTED_SUBJECTS = {
    "review_reminder": (
        "Review reminder — Cotati Village: condition #3 awaiting Planning Division review, "
        "due January 19, 2027"
    ),
    "review_escalation": (
        "Overdue review — Cotati Village: condition #3 5 business days past the January 19, "
        "2027 review date (Planning Division)"
    ),
    "applicant_digest": (
        "Cotati Village: 4 conditions still owed before Grading permit (target March 1, 2027)"
    ),
    "window_reminder": (
        "Cotati Village: condition #109 (BIO-3) due February 24, 2027 — Pre-construction nesting "
        "bird survey within 7 days before groundbreaking <scr..."
    ),
    "construction_checkin": (
        "Cotati Village: construction check-in, 2 conditions to verify (March 1, 2027 to "
        "March 30, 2027)"
    ),
    "signoff_confirmation": (
        "Cotati Village: milestone signed off — Grading permit (12 conditions cleared)"
    ),
    "condition_returned": "Cotati Village: condition #7 returned with comments",
}


@pytest.fixture(autouse=True)
def canonical_milestones(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Labels from the canonical keys, whatever labels rules/data/milestones/ holds today."""
    use_keys_only_milestones(monkeypatch, tmp_path)


def test_every_kind_has_a_fixture() -> None:
    assert set(FIXTURE_KINDS) == set(PROJECT_NOTICE_KINDS) == set(EXPECTED_SUBJECTS)


@pytest.mark.parametrize("kind", PROJECT_NOTICE_KINDS)
def test_each_kind_renders_text_and_html(kind: str) -> None:
    req = make_project_request(kind)
    out = NoticeRenderer().render_project(req)

    assert out.subject == EXPECTED_SUBJECTS[kind]
    for body in (out.text, out.html):
        assert "Cotati Village" in body
        assert "PA-21-29" in body
        assert "City of Cotati" in body
        # Plain words: the notice key is the message's header, not the reader's business.
        assert req.notice_key not in body and "Notice key" not in body
    assert "conditions of approval tracker" in out.text
    assert out.html.lstrip().startswith("<!DOCTYPE html>")
    assert f"<title>{out.subject.replace('<', '&lt;')}" in out.html
    # Plain text shows the resolution as printed; HTML shows it inert.
    assert "<script" not in out.html
    # Nothing unrendered.
    assert "{{" not in out.text + out.html and "{%" not in out.text + out.html


def test_html_escapes_condition_text_and_text_keeps_it() -> None:
    renderer = NoticeRenderer()
    for kind in ("review_reminder", "review_escalation", "applicant_digest", "window_reminder"):
        out = renderer.render_project(make_project_request(kind))
        assert "<script" not in out.html, kind
        assert "&lt;script&gt;" in out.html, kind
        assert SCRIPT in out.text, kind


def test_review_notices_list_evidence_and_service_level() -> None:
    renderer = NoticeRenderer()
    reminder = renderer.render_project(make_project_request("review_reminder"))
    for body in (reminder.text, reminder.html):
        assert "Recorded inclusionary housing agreement" in body
        assert "agreement.pdf" in body
        assert "10 business days" in body
        assert "January 19, 2027" in body
        # Submission time in the city's time zone.
        assert "January 4, 2027, 9:30 AM PST" in body
    escalation = renderer.render_project(make_project_request("review_escalation"))
    for body in (escalation.text, escalation.html):
        assert "5 business days overdue" in body.replace("</strong>", "").replace("<strong>", "")


def test_digest_groups_by_milestone_and_department_with_comments() -> None:
    out = NoticeRenderer().render_project(make_project_request("applicant_digest"))
    text = out.text
    # The digest's milestone first, then the others in the project's milestone order.
    grading = text.index("Grading permit (1 condition):")
    ipa = text.index("Improvement plan approval (1 condition):")
    building = text.index("Building permit (2 conditions):")
    assert grading < ipa < building
    assert text.index("Public Works / Engineering", grading) < ipa
    assert grading < text.index("#60: open") < ipa
    assert ipa < text.index("#7: returned for changes") < building
    assert building < text.index("Planning Division", building)
    # The reviewer's comment on the returned item, with who and when.
    assert "older than 3 months. Please resubmit." in text
    assert "engineer@cotati.example, January 10, 2027, 8:00 AM PST" in text
    assert "including 1 returned by a reviewer with comments" in text
    assert "You set a target date of Monday, March 1, 2027" in text

    html = out.html
    assert html.index("<h2>Grading permit (1 condition)</h2>") < html.index(
        "<h2>Improvement plan approval (1 condition)</h2>"
    )
    assert "<h3>Public Works / Engineering</h3>" in html
    assert "older than 3 months. Please resubmit." in html
    assert 'class="returned"' in html


def test_weekly_digest_without_target_or_milestone_label() -> None:
    req = make_project_request("applicant_digest")
    req.details = {**req.details, "reason": "weekly", "target_date": None}
    out = NoticeRenderer().render_project(req)
    assert out.subject == "Cotati Village: 4 conditions still owed before Grading permit"
    assert "target date" not in out.text

    req.details = {**req.details, "milestone": None, "owed": []}
    out = NoticeRenderer().render_project(req)
    assert out.subject == "Cotati Village: nothing owed before the next milestone"


def test_milestone_labels_come_from_the_data_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert milestone_label("grading_permit") == "Grading permit"
    assert milestone_label("some_local_gate") == "Some local gate"
    assert milestone_label("unspecified") == "Unspecified (no gate assigned)"
    assert milestone_label(None) == milestone_label("") == ""

    listed = tmp_path / "list.json"
    listed.write_text(
        json.dumps(
            {
                "milestones": [
                    {"key": "grading_permit", "label": "Grading permit issued"},
                    {"key": "building_permit"},
                ]
            }
        )
    )
    use_milestone_file(monkeypatch, listed)
    assert milestone_keys() == ["grading_permit", "building_permit"]
    assert milestone_label("grading_permit") == "Grading permit issued"
    assert milestone_label("building_permit") == "Building permit"
    out = NoticeRenderer().render_project(make_project_request("signoff_confirmation"))
    assert out.subject == (
        "Cotati Village: milestone signed off — Grading permit issued (12 conditions cleared)"
    )
    # An explicit label in the details wins.
    req = make_project_request("applicant_digest")
    req.details["milestone_label"] = "Rough grading permit"
    assert "before Rough grading permit (target" in NoticeRenderer().render_project(req).subject


def test_the_milestone_file_is_read_through_the_rules_loader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One loader: the labels and the order are the rules' MilestoneSet's, from the data
    file by default; a file the loader cannot read falls back to the canonical set."""
    canonical = load_milestones()
    monkeypatch.undo()  # the data file itself, not the keys-only copy
    assert milestone_keys() == canonical.keys
    assert [milestone_label(k) for k in canonical.keys] == [m.label for m in canonical.milestones]
    for name, text in (
        ("broken.json", "{not json"),
        ("mapping.json", json.dumps({"grading_permit": {"label": "Grading permit issued"}})),
    ):
        bad = tmp_path / name
        bad.write_text(text)
        use_milestone_file(monkeypatch, bad)
        assert milestone_keys() == canonical.keys, name
        assert milestone_label(canonical.keys[0]) == canonical.milestones[0].label
    use_milestone_file(monkeypatch, tmp_path / "missing.json")
    assert milestone_keys() == canonical.keys


def test_renderer_errors_directly() -> None:
    renderer = NoticeRenderer()
    req = make_project_request("construction_checkin")
    req.details["conditions"] = [{"text": "no number"}]
    with pytest.raises(InvalidNoticeDetails, match="needs at least a number"):
        renderer.render_project(req)
    req.kind = "nope"
    with pytest.raises(UnknownNoticeKind):
        renderer.render_project(req)
