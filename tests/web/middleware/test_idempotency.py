"""Idempotency keys: a retry with the same key gets the first answer back and acts once;
the same key with another request is refused (422); keys are the user's own; a form
carries a fresh key each time it is rendered; secrets shown once are not stored."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from models.database import make_engine, session_factory
from models.schema import ApiToken, ApplicantLink, IdempotencyRecord, Project
from settings import Settings
from tests.web.helpers import csrf_of
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.auth.accounts import Accounts

PM = "pm@keys.example"
OTHER = "other@keys.example"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    settings = standalone_settings(tmp_path)
    add_user(settings, PM)
    add_user(settings, OTHER)
    with session_factory(make_engine(settings.database_url)).begin() as session:
        made = datetime.now(UTC)
        session.add(
            Project(
                project_id="P-1",
                workflow_id="project-P-1",
                name="One",
                jurisdiction="cotati",  # the users work in the default city
                created_at=made,
                updated_at=made,
            )
        )
    return settings


def count(settings: Settings, model: type) -> int:
    with session_factory(make_engine(settings.database_url))() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def bearer(settings: Settings, email: str) -> dict[str, str]:
    token = Accounts(make_engine(settings.database_url)).new_api_token(email, "keys test")
    return {"Authorization": f"Bearer {token}"}


def test_an_api_retry_with_the_same_key_returns_the_first_answer(settings: Settings) -> None:
    body = {"scope": "project", "scope_id": "P-1", "email": "a@keys.example"}
    with standalone_client(settings) as client:
        auth = bearer(settings, PM)
        first = client.post("/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "k1"})
        assert first.status_code == 201, first.text
        again = client.post("/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "k1"})
        assert again.status_code == 201
        assert again.json() == first.json()  # the same link, not a second one
        assert again.headers["idempotent-replayed"] == "true"
        assert count(settings, ApplicantLink) == 1

        # Without a key, each request acts.
        assert client.post("/api/v1/links", json=body, headers=auth).status_code == 201
        assert count(settings, ApplicantLink) == 2

        # The same key with another body: one line, nothing done.
        other = {**body, "email": "b@keys.example"}
        refused = client.post(
            "/api/v1/links", json=other, headers={**auth, "Idempotency-Key": "k1"}
        )
        assert refused.status_code == 422
        assert "already used for a different request" in refused.json()["error"]
        assert count(settings, ApplicantLink) == 2

        # A refusal is an outcome too: replayed, not re-judged.
        missing = {**body, "scope_id": "NO-SUCH"}
        no = client.post("/api/v1/links", json=missing, headers={**auth, "Idempotency-Key": "k2"})
        assert no.status_code == 400
        no_again = client.post(
            "/api/v1/links", json=missing, headers={**auth, "Idempotency-Key": "k2"}
        )
        assert (no_again.status_code, no_again.json()) == (400, no.json())

        # Keys are per user: another account's "k1" is its own.
        theirs = client.post(
            "/api/v1/links", json=body, headers={**bearer(settings, OTHER), "Idempotency-Key": "k1"}
        )
        assert theirs.status_code == 201
        assert theirs.json()["link_id"] != first.json()["link_id"]
        assert count(settings, ApplicantLink) == 3

        bad = client.post(
            "/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "x" * 201}
        )
        assert bad.status_code == 400
        assert bad.json()["error"].startswith("Idempotency-Key:")


def form_key(html: str, action: str) -> str:
    form = re.search(rf'<form[^>]*action="{re.escape(action)}"(.*?)</form>', html, re.S)
    assert form, f"no form posting to {action}"
    match = re.search(r'name="idempotency_key" value="([0-9a-f]{32})"', form.group(1))
    assert match, f"the form posting to {action} carries no idempotency key"
    return match.group(1)


def test_a_form_sent_twice_acts_once_and_a_secret_is_not_kept(settings: Settings) -> None:
    with standalone_client(settings) as client:
        assert log_in(client, PM).status_code == 303
        page = client.get("/me/tokens").text
        key = form_key(page, "/me/tokens")
        assert form_key(client.get("/me/tokens").text, "/me/tokens") != key  # fresh per render
        fields = {"csrf_token": csrf_of(page), "idempotency_key": key, "label": "twice"}
        first = client.post("/me/tokens", data={**fields, "scope": "read", "days": "30"})
        assert first.status_code == 201
        assert 'data-testid="token-value"' in first.text
        again = client.post("/me/tokens", data={**fields, "days": "30", "scope": "read"})
        assert again.status_code == 201
        assert "Done already" in again.text and 'data-testid="token-value"' not in again.text
        assert count(settings, ApiToken) == 1
        with session_factory(make_engine(settings.database_url))() as session:
            stored = session.scalars(select(IdempotencyRecord)).one()
        token = re.search(r'data-testid="token-value"[^>]*value="([^"]+)"', first.text)
        assert token is None or token.group(1).encode() not in (stored.body or b"")
        assert b"token-value" not in (stored.body or b"")


def test_a_retry_while_the_first_is_served_is_told_to_wait(settings: Settings) -> None:
    body = {"scope": "project", "scope_id": "P-1"}
    with standalone_client(settings) as client:
        auth = bearer(settings, PM)
        user_id = Accounts(make_engine(settings.database_url)).get_user(PM).id  # type: ignore[union-attr]
        from web.middleware.idempotency import IdempotencyStore

        store = IdempotencyStore(session_factory(make_engine(settings.database_url)))
        # The fingerprint of this very request, claimed as if a first attempt were running.
        client.post("/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "probe"})
        with session_factory(make_engine(settings.database_url))() as session:
            fingerprint = session.get(IdempotencyRecord, (f"user:{user_id}", "probe")).fingerprint  # type: ignore[union-attr]
        assert store.begin(f"user:{user_id}", "busy", fingerprint, "POST", "/api/v1/links") is None
        answer = client.post(
            "/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "busy"}
        )
        assert answer.status_code == 503
        assert answer.headers["retry-after"]
        assert answer.json()["outcome"] == "unknown"
        assert count(settings, ApplicantLink) == 1


def test_a_key_held_by_a_process_that_died_is_taken_over_at_once(settings: Settings) -> None:
    """The web process serving the first attempt was killed (a crash, a restart): the
    retry runs now, not after the five-minute lease, and acts once."""
    import subprocess
    import sys

    from operations.process_identity import holder_alive, this_process

    body = {"scope": "project", "scope_id": "P-1"}
    with standalone_client(settings) as client:
        auth = bearer(settings, PM)
        user_id = Accounts(make_engine(settings.database_url)).get_user(PM).id  # type: ignore[union-attr]
        client.post("/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "probe"})
        sessions = session_factory(make_engine(settings.database_url))
        with sessions() as session:
            fingerprint = session.get(IdempotencyRecord, (f"user:{user_id}", "probe")).fingerprint  # type: ignore[union-attr]
        # A process of this host that claimed the key, then exited.
        gone = subprocess.run(
            [sys.executable, "-c", "from operations.process_identity import this_process as t;"
             " print(t())"],
            capture_output=True, text=True, check=True, cwd=Path(__file__).parents[3],
        ).stdout.strip()  # fmt: skip
        assert not holder_alive(gone) and holder_alive(this_process())
        with sessions.begin() as session:
            session.add(
                IdempotencyRecord(
                    scope=f"user:{user_id}", idem_key="orphan", fingerprint=fingerprint,
                    method="POST", path="/api/v1/links", state="running", holder=gone,
                    created_at=datetime.now(UTC),
                )
            )  # fmt: skip
        answer = client.post(
            "/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "orphan"}
        )
        assert answer.status_code in (200, 201), answer.text
        assert count(settings, ApplicantLink) == 2
        again = client.post(
            "/api/v1/links", json=body, headers={**auth, "Idempotency-Key": "orphan"}
        )
        assert again.headers["idempotent-replayed"] == "true"
        assert count(settings, ApplicantLink) == 2


async def test_a_form_is_the_same_request_whatever_its_boundary_or_token() -> None:
    # A browser resends a form with a new multipart boundary, and a page loaded again
    # carries a new CSRF token: still the same action. Another file is another request.
    from starlette.requests import Request

    from web.middleware.idempotency import _fingerprint

    def multipart(boundary: str, csrf: str, content: bytes) -> tuple[Request, bytes]:
        parts = [
            (b'name="csrf_token"', csrf.encode()),
            (b'name="idempotency_key"', b"k"),
            (b'name="description"', b"Geotechnical report"),
            (b'name="file"; filename="soil.pdf"\r\nContent-Type: application/pdf', content),
        ]
        body = (
            b"".join(
                b"--"
                + boundary.encode()
                + b"\r\nContent-Disposition: form-data; "
                + head
                + b"\r\n\r\n"
                + value
                + b"\r\n"
                for head, value in parts
            )
            + b"--"
            + boundary.encode()
            + b"--\r\n"
        )
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/projects/P-1/conditions/4/evidence",
            "query_string": b"",
            "headers": [(b"content-type", f"multipart/form-data; boundary={boundary}".encode())],
        }
        return Request(scope), body

    first = await _fingerprint(*_scoped(multipart("aaa", "t1", b"%PDF-1.4 one")))
    again = await _fingerprint(*_scoped(multipart("bbbbbb", "t2", b"%PDF-1.4 one")))
    other = await _fingerprint(*_scoped(multipart("aaa", "t1", b"%PDF-1.4 two")))
    assert first == again
    assert other != first


def _scoped(pair: tuple[object, bytes]) -> tuple[object, object, bytes]:
    request, body = pair
    return request, request.scope, body  # type: ignore[attr-defined]
