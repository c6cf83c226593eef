"""An action that was sent but got no answer is "outcome unknown" (504 or 503), never
409, which stays "refused on the facts"; pages and the API say so and name the object to
check; an update under an idempotency key carries an id made from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.service import RPCError, RPCStatusCode

from actions.errors import ActionFailed, OutcomeUnknown, sent_but_unanswered
from actions.idempotency import attempt, start_memo, started_by_this_key, update_id
from tests.web.helpers import csrf_of
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.views.object_links import object_link


@pytest.mark.parametrize(
    ("raised", "status"),
    [
        (WorkflowUpdateRPCTimeoutOrCancelledError(), 504),
        (RPCError("deadline", RPCStatusCode.DEADLINE_EXCEEDED, b""), 504),
        (RPCError("gone", RPCStatusCode.UNAVAILABLE, b""), 503),
        (RPCError("boom", RPCStatusCode.INTERNAL, b""), 503),
        (ConnectionResetError("reset by peer"), 503),
    ],
)
def test_no_answer_is_an_unknown_outcome_never_a_refusal(raised: Exception, status: int) -> None:
    failed = sent_but_unanswered(raised)
    assert isinstance(failed, OutcomeUnknown)
    assert failed.status == status
    assert failed.message.startswith("outcome unknown: check before retrying")


def test_what_temporal_refused_stays_a_refusal() -> None:
    failed = sent_but_unanswered(RPCError("no such workflow", RPCStatusCode.NOT_FOUND, b""))
    assert isinstance(failed, ActionFailed) and failed.status == 404
    refused = sent_but_unanswered(RPCError("bad", RPCStatusCode.INVALID_ARGUMENT, b""))
    assert isinstance(refused, ActionFailed)


def test_update_ids_come_from_the_key_and_differ_per_update() -> None:
    assert update_id("shot-clock-A", "record_resubmission") is None  # no key: Temporal's own
    assert start_memo() == {}
    with attempt("user:1", "k") as first:
        a = update_id("shot-clock-A", "record_resubmission")
        b = update_id("shot-clock-A", "record_resubmission")
        memo = start_memo()
        assert started_by_this_key(memo)
        assert first.scope == "user:1"
    with attempt("user:1", "k"):  # the retry: the same ids, in the same order
        assert update_id("shot-clock-A", "record_resubmission") == a
        assert update_id("shot-clock-A", "record_resubmission") == b
    assert a != b and a is not None and "k" not in a.split("-")[1:2]
    with attempt("user:2", "k"):  # another user's key is another key
        assert update_id("shot-clock-A", "record_resubmission") != a
        assert not started_by_this_key(memo)


def test_the_object_to_check() -> None:
    assert object_link("/api/v1/applications/A-1/notice", True) == "/api/v1/applications/A-1"
    assert object_link("/applications/A-1/events/decision", False) == "/applications/A-1"
    assert object_link("/applications/new", False) == "/applications"
    assert object_link("/api/v1/applications", True) == "/api/v1/applications"
    assert (
        object_link("/api/v1/projects/P-1/conditions/4/review", True)
        == "/api/v1/projects/P-1/conditions/4"
    )
    assert object_link("/projects/P-1/milestones/grading/sign-off", False) == "/projects/P-1"
    assert object_link("/projects/import", False) == "/projects"
    assert object_link("/permits/PC-1/events", False) == "/permits/PC-1"
    assert object_link("/admin/calendar/closures", False) == "/admin/calendar"


def test_pages_and_the_api_say_outcome_unknown_with_the_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = standalone_settings(tmp_path)
    add_user(settings, "pm@unknown.example")
    with standalone_client(settings) as client:
        actions = client.app.state.ctx.actions  # type: ignore[attr-defined]

        async def no_answer(*args: Any, **kwargs: Any) -> Any:
            raise OutcomeUnknown("no answer within the time allowed", 504)

        monkeypatch.setattr(actions.shot_clocks, "record_event", no_answer)
        monkeypatch.setattr(actions.shot_clocks, "record_from_fields", no_answer)
        assert log_in(client, "pm@unknown.example").status_code == 303
        page = client.post(
            "/applications/A-7/events/resubmission",
            data={"csrf_token": csrf_of(client.get("/me").text)},
        )
        assert page.status_code == 504
        assert "Outcome unknown" in page.text
        assert "outcome unknown: check before retrying" in page.text
        assert 'href="/applications/A-7" data-testid="check-link"' in page.text
        assert "Refused" not in page.text

        csrf = csrf_of(client.get("/me").text)
        api = client.post(
            "/api/v1/applications/A-7/resubmission", json={}, headers={"X-CSRF-Token": csrf}
        )
        assert api.status_code == 504
        assert api.json() == {
            "error": "outcome unknown: check before retrying (no answer within the time allowed)",
            "outcome": "unknown",
            "check": "/api/v1/applications/A-7",
        }
