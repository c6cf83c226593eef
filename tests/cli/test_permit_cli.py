"""`clearance permit ...` as staff run it: subprocesses calling the real web app with a
personal access token, acting through a real dev server and worker. Opening, recording an
inspection that moves the expiry, show and list; and the refusals (unknown rule, an event
the rule does not take, an extension after expiry, a second 65957 extension, negative
days, a role that may not) each one line, with nothing stored."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import date, timedelta

import pendulum
import pytest

from rules.kernel.jurisdictions import jurisdiction
from tests.cli.runner import Stack, assert_one_line_error, running_stack

CITY = jurisdiction("cotati")
ATTORNEY = "attorney@cotati.example"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("permit-cli"), web=True) as running:
        yield running


def today() -> date:
    return pendulum.now(CITY.time_zone).date()


def ago(days: int) -> str:
    return (today() - timedelta(days=days)).isoformat()


def new_id(prefix: str = "BP") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def events_of(stack: Stack, clock_id: str) -> list[str]:
    shown = stack.run("permit", "show", clock_id, "--json")
    if shown.returncode != 0:
        return []
    return [e["type"] for e in json.loads(shown.stdout)["events"]]


def open_bp(stack: Stack, clock_id: str, approved: str) -> dict:
    opened = stack.ok(
        "permit", "open", "--id", clock_id, "--rule", "building_permit_expiry",
        "--event", "approved", "--date", approved, "--applicant-email", "owner@example.test",
        "--json",
    )  # fmt: skip
    return json.loads(opened.stdout)


def test_open_record_show_and_list(stack: Stack) -> None:
    clock_id = new_id()
    opened = open_bp(stack, clock_id, ago(100))
    assert opened["clock"]["due_date"] == (today() + timedelta(days=80)).isoformat()
    recorded = stack.ok(
        "permit", "record", clock_id, "inspection", "--result", "approved", "--qualifying",
        "--json",
    )  # fmt: skip
    new_expiry = (today() + timedelta(days=180)).isoformat()
    assert json.loads(recorded.stdout)["clock"]["due_date"] == new_expiry
    shown = stack.ok("permit", "show", clock_id)
    assert new_expiry in shown.stdout and "inspection" in shown.stdout
    listed = json.loads(stack.ok("permit", "list", "--json").stdout)
    assert any(r["clock_id"] == clock_id and r["due_date"] == new_expiry for r in listed)
    rules = json.loads(stack.ok("permit", "rules", "--json").stdout)
    assert {"building_permit_expiry", "ca_psa_decision"} <= {r["id"] for r in rules}


def test_refusals_are_one_line_and_store_nothing(stack: Stack) -> None:
    unknown = new_id()
    result = stack.run(
        "permit", "open", "--id", unknown, "--rule", "parking_permit_expiry",
        "--event", "approved", "--date", ago(3),
    )  # fmt: skip
    assert_one_line_error(result, 2, "rule", "parking_permit_expiry")
    assert events_of(stack, unknown) == []

    expired = new_id()
    open_bp(stack, expired, ago(400))
    for args, words in (
        (["demolished"], "demolished"),
        (["extension_granted", "--days", "90", "--date", ago(1)], "expir"),
        (["extension_granted", "--days", "-5", "--date", ago(1)], "positive"),
    ):
        result = stack.run("permit", "record", expired, *args)
        assert_one_line_error(result, 1, "refused", words)
    assert events_of(stack, expired) == ["approved"]

    decision = new_id("PA")
    stack.ok(
        "permit", "open", "--id", decision, "--rule", "ca_psa_decision", "--event", "ceqa",
        "--document", "exempt", "--date", ago(40),
    )  # fmt: skip
    stack.ok("permit", "record", decision, "extension_agreed", "--days", "90", "--date", ago(2))
    second = stack.run(
        "permit", "record", decision, "extension_agreed", "--days", "30", "--date", ago(1)
    )
    assert_one_line_error(second, 1, "refused", "65957")
    assert events_of(stack, decision) == ["ceqa", "extension_agreed"]


def test_a_reader_may_not_open(stack: Stack) -> None:
    clock_id = new_id()
    result = stack.as_(ATTORNEY).run(
        "permit", "open", "--id", clock_id, "--rule", "building_permit_expiry",
        "--event", "approved", "--date", ago(1),
    )  # fmt: skip
    assert_one_line_error(result, 1, "not permitted")
    assert events_of(stack, clock_id) == []


def test_a_statutory_extension_needs_its_statute_and_stays_outside_the_cap(stack: Stack) -> None:
    clock_id = new_id("TM")
    stack.ok(
        "permit", "open", "--id", clock_id, "--rule", "ca_tentative_map_expiry",
        "--event", "approved", "--date", ago(30), "--json",
    )  # fmt: skip
    missing = stack.run("permit", "record", clock_id, "statutory_extension", "--months", "12")
    assert_one_line_error(missing, 1, "citation")
    done = stack.ok(
        "permit", "record", clock_id, "statutory_extension", "--months", "12",
        "--citation", "Gov. Code 66452.25",
    )  # fmt: skip
    assert "limit on extensions: 0 of 72 months used, 72 left" in done.stdout
    assert "12 months by statute, outside the limit" in done.stdout
    assert events_of(stack, clock_id) == ["approved", "statutory_extension"]
