"""A notice's e-mail as a mail client reads it: the headers and both bodies are what the
standard library's EmailMessage would have built, for plain ASCII and for accented
subjects, names and bodies, and long lines survive unfolded."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from activities.mail import MAIL_POLICY, NOTICE_KEY_HEADER, build_message, message_id_for
from notices.letter import RenderedNotice

WHEN = datetime(2026, 12, 4, 8, 0, tzinfo=UTC)
HEADERS = ("From", "To", "Cc", "Subject", "Date", "Message-ID", NOTICE_KEY_HEADER)


def reference(
    key: str, rendered: RenderedNotice, mail_from: str, to: list[str], cc: list[str]
) -> EmailMessage:
    """The message as EmailMessage builds it (what notices were built with before)."""
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = mail_from
    msg["To"] = ", ".join(to)
    msg["Cc"] = ", ".join(cc)
    msg["Subject"] = rendered.subject
    msg["Date"] = email.utils.format_datetime(WHEN)
    msg["Message-ID"] = message_id_for(key)
    msg[NOTICE_KEY_HEADER] = key
    msg.set_content(rendered.text)
    msg.add_alternative(rendered.html, subtype="html")
    return msg


def read(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


CASES = [
    (
        "Reminder: the shot clock for WTA-2026-0001 (small wireless facility at 123 Main "
        "Street) ends in 10 days",
        "Dear applicant,\n\n" + "The shot clock ends on 2026-12-20. " * 30 + "\n",
        "<p>" + "The shot clock ends on 2026-12-20. " * 30 + "</p>",
        "City of Cotati <noreply@cotati.example>",
    ),
    (
        "Résolution: Cañada condition №5 — due",
        "Café, ü, naïve\n" + "x" * 300 + "\n.\nFrom the start of a line\n",
        "<p>Café — ü</p>",
        "Ciudad de Cañada <noreply@canada.example>",
    ),
    ("Plain", "no newline at the end", "<b>bold</b>", "a@b.example"),
]


@pytest.mark.parametrize(("subject", "text", "html", "mail_from"), CASES)
def test_notice_message_reads_as_the_email_message_would(
    subject: str, text: str, html: str, mail_from: str
) -> None:
    rendered = RenderedNotice(subject=subject, text=text, html=html)
    to, cc = ["c@d.example", "e@f.example"], ["g@h.example"]
    ours = build_message("reminder/APP-1", rendered, mail_from=mail_from, to=to, cc=cc, date=WHEN)
    theirs = reference("reminder/APP-1", rendered, mail_from, to, cc)
    got, want = read(ours.as_bytes()), read(theirs.as_bytes())
    for header in HEADERS:
        assert str(got[header]) == str(want[header]), header
    assert [p.get_content_type() for p in got.walk()] == [
        "multipart/alternative",
        "text/plain",
        "text/html",
    ]
    for kind in ("plain", "html"):
        got_body, want_body = got.get_body((kind,)), want.get_body((kind,))
        assert got_body is not None and want_body is not None
        assert got_body.get_content() == want_body.get_content(), kind


def test_ascii_bodies_stay_readable_in_the_raw_message() -> None:
    rendered = RenderedNotice(subject="s", text="The clock ends 2026-12-20.", html="<p>x</p>")
    raw = build_message("k", rendered, mail_from="a@b.example", to=["c@d.example"], cc=[])
    assert b"The clock ends 2026-12-20." in raw.as_bytes()


@pytest.mark.parametrize(
    "subject",
    [
        "City of Cotati: Resubmission received, new dates for APP-31891524 — act by March 11, 2027",
        "Judicial review deadline: APP-328ee97c may be deemed approved — 0 days to 2027-04-06",
        "Résolution: Cañada condition №5 — due",
        "Two — – dashes, and a word that looks encoded: =?utf-8?q?x?=",
    ],
)
def test_accented_subjects_keep_their_plain_words_readable_in_the_raw_message(
    subject: str,
) -> None:
    """As EmailMessage wrote them: only the non-ASCII words are RFC 2047 words, so a filter
    or a person reading the raw message still finds "Resubmission received"."""
    rendered = RenderedNotice(subject=subject, text="t", html="<p>t</p>")
    msg = build_message("k", rendered, mail_from="a@b.example", to=["c@d.example"], cc=[])
    raw_subject = email.message_from_bytes(msg.as_bytes())["Subject"]  # compat32: not decoded
    assert "\n" not in raw_subject, "one line"
    plain = [w for w in subject.split(" ") if w.isascii() and "=?" not in w]
    for word in plain:
        assert f" {word}" in f" {raw_subject}", word
    assert str(read(msg.as_bytes())["Subject"]) == subject
