"""The staff commands as a planner runs them: every `clearance clock ...` call is a
subprocess calling the real web app (`clearance web`) with a personal access token, which
acts through a real Temporal dev server and a real `clearance worker` process, all
configured only through the environment."""

from __future__ import annotations

import asyncio
import email
import json
import time
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path
from typing import Any

import pendulum
import pytest
from sqlalchemy import select
from temporalio.client import Client, WorkflowExecutionStatus

from models.database import make_engine, session_factory
from models.schema import Application
from models.workflow_ids import shot_clock_workflow_id
from rules.kernel.jurisdictions import jurisdiction
from rules.shot_clock.engine import compute_json
from stack.ports import free_port
from tests.cli.runner import Stack, assert_one_line_error, clean_env, clearance, running_stack
from tests.cli.test_clock_compute import CONTRACT_KEYS

CITY = jurisdiction("cotati")
PLANNER = "planner@cotati.example"
APPLICANT = "siteacq@carrier.example"
NOTICE_KEY = "X-Clearance-Notice-Key"
RF_ITEM = "A|RF report|CMC 17.44.070(A)"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("staff-cli"), web=True) as running:
        yield running


def today() -> date:
    return pendulum.now(CITY.time_zone).date()


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8].upper()}"


def expected_clock(category: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What the rules core says for the same timeline on the city's calendar."""
    return compute_json(
        {
            "category": category,
            "state": CITY.state,
            "rule_pack": CITY.rule_pack,
            "local_holidays": list(CITY.local_closures),
            "events": events,
        }
    )


def messages_for(outbox: Path, application_id: str) -> list[EmailMessage]:
    out = []
    for path in sorted(outbox.glob("*.eml")) if outbox.exists() else []:
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(msg, EmailMessage)
        if str(msg[NOTICE_KEY]).startswith(f"{application_id}:"):
            out.append(msg)
    return out


def addresses(msg: EmailMessage, header: str) -> list[str]:
    return [addr for _, addr in getaddresses(msg.get_all(header, []))]


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def workflow_status(stack: Stack, application_id: str) -> WorkflowExecutionStatus | None:
    async def describe() -> WorkflowExecutionStatus | None:
        client = await Client.connect(stack.env["CLEARANCE_TEMPORAL_ADDRESS"])
        return (
            await client.get_workflow_handle(shot_clock_workflow_id(application_id)).describe()
        ).status

    return asyncio.run(describe())


def wait_for(what: str, check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.2)


# -- a clock from opening to decision ----------------------------------------------------------


def test_planner_drives_a_clock_from_open_to_decision(stack: Stack) -> None:
    app_id = new_id("CLI")
    t = today()
    submitted = (t - timedelta(days=5)).isoformat()
    noticed = (t - timedelta(days=3)).isoformat()
    resubmitted = (t - timedelta(days=1)).isoformat()
    items = [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}]
    events: list[dict[str, Any]] = [{"type": "submitted", "date": submitted}]

    opened = stack.ok(
        "clock", "open", "--id", app_id, "--category", "macro_collocation",
        "--planner", PLANNER, "--applicant-email", APPLICANT,
        "--applicant-name", "Carrier Site Acquisition", "--site", "550 E Cotati Ave",
        "--submitted", submitted,
    )  # fmt: skip
    first = expected_clock("macro_collocation", events)
    assert f"opened {app_id}" in opened.stdout
    assert first["shot_clock_date"] in opened.stdout
    clock = stack.show_json(app_id)
    assert clock["status"] == "running"
    assert clock["start_date"] == submitted
    assert clock["period_days"] == 90
    assert clock["shot_clock_date"] == first["shot_clock_date"]

    # The notice of incompleteness tolls the clock (non-SWF, first notice by day 30).
    stack.ok("clock", "notice", app_id, "--item", RF_ITEM, "--date", noticed)
    events.append({"type": "incomplete_notice", "date": noticed, "items": items})

    table = stack.ok("clock", "show", app_id).stdout
    clock = stack.show_json(app_id)
    assert set(clock) == CONTRACT_KEYS
    assert clock["status"] == "tolled"
    assert app_id in table and "Ledger" in table and "tolled" in table
    assert len(clock["ledger"]) >= 2
    for entry in clock["ledger"]:
        assert entry["rule"] in table, f"{entry['rule']!r} not shown in:\n{table}"
    assert "1.6003(d)(2)" in table

    # While the notice is outstanding, a further notice is refused.
    refused = stack.run("clock", "notice", app_id, "--item", RF_ITEM)
    assert_one_line_error(refused, 1, "error: refused:", "outstanding")

    # The resubmission ends the tolling: the date moves by the tolled days (2).
    stack.ok("clock", "resubmit", app_id, "--date", resubmitted)
    events.append({"type": "resubmitted", "date": resubmitted})
    after = expected_clock("macro_collocation", events)
    clock = stack.show_json(app_id)
    assert clock["status"] == "running"
    assert clock["tolled_days"] == 2
    assert clock["shot_clock_date"] == after["shot_clock_date"]
    earliest = date.fromisoformat(submitted) + timedelta(days=90 + 2)
    assert date.fromisoformat(clock["shot_clock_date"]) >= earliest
    assert clock["shot_clock_date"] >= first["shot_clock_date"]
    notice_entry = next(e for e in clock["ledger"] if e["event"] == "incomplete_notice")
    assert notice_entry["days"] == 2

    # Refused actions: one line, exit 1, nothing recorded.
    ledger_before = clock["ledger"]
    refusals = [
        (
            ["clock", "notice", app_id, "--item", "B|Photo simulations|CMC 17.44.070(C)"],
            ["B", "first notice"],
        ),
        (["clock", "resubmit", app_id], ["no outstanding notice"]),
        (
            ["clock", "decide", app_id, "--outcome", "approved",
             "--date", (t + timedelta(days=3)).isoformat()],
            ["in the future"],
        ),
    ]  # fmt: skip
    for args, fragments in refusals:
        result = stack.run(*args)
        assert result.stdout == "", result
        assert_one_line_error(result, 1, "error: refused:", *fragments)

    # An item without a rule: refused by the workflow (from a file) ...
    no_rule = Path(stack.data_dir) / f"{app_id}-items.json"
    no_rule.write_text(json.dumps([{"id": "A", "text": "RF report", "rule": ""}]))
    result = stack.run("clock", "notice", app_id, "--items-file", str(no_rule))
    assert_one_line_error(result, 1, "error: refused:", "cites no rule")
    # ... and by the command line before it reaches the server (--item needs all three parts).
    result = stack.run("clock", "notice", app_id, "--item", "A|RF report|")
    assert_one_line_error(result, 2, "--item")
    assert stack.show_json(app_id)["ledger"] == ledger_before

    # A written tolling agreement extends the clock by its days.
    stack.ok("clock", "toll", app_id, "--days", "10", "--date", t.isoformat())
    events.append({"type": "tolling_agreement", "date": t.isoformat(), "days": 10})
    tolled = expected_clock("macro_collocation", events)
    clock = stack.show_json(app_id)
    assert clock["shot_clock_date"] == tolled["shot_clock_date"]
    assert date.fromisoformat(clock["shot_clock_date"]) >= earliest + timedelta(days=10)
    assert any(e["event"] == "tolling_agreement" and e["days"] == 10 for e in clock["ledger"])

    decided = stack.ok("clock", "decide", app_id, "--outcome", "approved")
    assert "decided_on_time" in decided.stdout
    clock = stack.show_json(app_id)
    assert clock["status"] == "decided_on_time"

    # The outbox holds the incompleteness letter, the resubmission letter with the new
    # dates and the decision confirmation, once each.
    msgs = messages_for(stack.outbox, app_id)
    keys = sorted(str(m[NOTICE_KEY]) for m in msgs)
    assert len(keys) == 3, keys
    assert any(k.startswith(f"{app_id}:resubmission:") for k in keys), keys
    letter_key, decision_key = (
        next(k for k in keys if k.startswith(f"{app_id}:incompleteness:")),
        next(k for k in keys if k.startswith(f"{app_id}:decision:")),
    )
    by_key = {str(m[NOTICE_KEY]): m for m in msgs}
    letter, confirmation = by_key[letter_key], by_key[decision_key]
    for msg in (letter, confirmation):
        assert addresses(msg, "To") == [APPLICANT]
        assert addresses(msg, "Cc") == [PLANNER]
        assert msg["Message-ID"]
    assert "Municipal Code § 17.44.070(A)" in text_of(letter)
    assert "RF report" in text_of(letter)

    # Closed: a further action is refused with one line.
    result = stack.run("clock", "withdraw", app_id)
    assert_one_line_error(result, 1, "refused", "closed")
    assert len(messages_for(stack.outbox, app_id)) == 3


# -- the list ------------------------------------------------------------------------------


def test_list_orders_by_conservative_date(stack: Stack) -> None:
    t = today()
    clocks = {  # id -> (category, days ago)
        new_id("LATE"): ("macro_new_structure", 0),
        new_id("SOON"): ("swf_collocation", 2),
        new_id("MID"): ("macro_collocation", 10),
    }
    for app_id, (category, ago) in clocks.items():
        stack.ok(
            "clock", "open", "--id", app_id, "--category", category, "--planner", PLANNER,
            "--submitted", (t - timedelta(days=ago)).isoformat(),
        )  # fmt: skip

    engine = make_engine(stack.database_url)
    try:

        def recorded() -> bool:
            with session_factory(engine)() as session:
                ids = set(session.scalars(select(Application.application_id)))
            return set(clocks) <= ids

        wait_for("the worker to record the three applications", recorded)
    finally:
        engine.dispose()

    rows = json.loads(stack.ok("clock", "list", "--json").stdout)
    dates = [r["clock"].get("conservative_date") or "9999-12-31" for r in rows]
    assert dates == sorted(dates)
    ours = [r["application_id"] for r in rows if r["application_id"] in clocks]
    soon, mid, late = (next(i for i in clocks if i.startswith(p)) for p in ("SOON", "MID", "LATE"))
    assert ours == [soon, mid, late]
    for row in rows:
        assert {"application_id", "jurisdiction", "risk_flagged", "clock"} <= set(row)

    table = stack.ok("clock", "list").stdout
    positions = [table.index(app_id) for app_id in (soon, mid, late)]
    assert positions == sorted(positions), table


# -- errors a planner can make ---------------------------------------------------------------


def test_open_with_unknown_category_is_one_line_exit_2(stack: Stack) -> None:
    result = stack.run(
        "clock", "open", "--id", new_id("BAD"), "--category", "small_cell", "--planner", PLANNER
    )
    assert_one_line_error(result, 2, "category", "small_cell")


def test_open_twice_with_the_same_id_is_one_clear_line(stack: Stack) -> None:
    app_id = new_id("DUP")
    args = ["clock", "open", "--id", app_id, "--category", "swf_collocation", "--planner", PLANNER]
    args += ["--applicant-email", APPLICANT]
    stack.ok(*args)
    result = stack.run(*args)
    assert result.stdout == "", result
    assert_one_line_error(result, 1, app_id, "already exists")

    # Once decided the clock's workflow completes; its id still cannot be opened again.
    stack.ok("clock", "decide", app_id, "--outcome", "denied")
    wait_for(
        "the decided clock's workflow to complete",
        lambda: workflow_status(stack, app_id) == WorkflowExecutionStatus.COMPLETED,
    )
    result = stack.run(*args)
    assert_one_line_error(result, 1, app_id, "already exists")
    assert stack.show_json(app_id)["status"] == "decided_on_time"


def test_show_unknown_application_is_one_clear_line(stack: Stack) -> None:
    result = stack.run("clock", "show", "NOPE")
    assert_one_line_error(result, 1, "no such application")


def test_no_web_app_reachable_is_one_clear_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = clean_env(
        {
            "CLEARANCE_API_URL": url,
            "CLEARANCE_API_TOKEN": "some-token",
            "CLEARANCE_DATA_DIR": str(tmp_path / "var"),
            "CLEARANCE_CLI_CONFIG": str(tmp_path / "cli.json"),
        }
    )
    for args in (
        ["clock", "show", "ANY"],
        ["clock", "open", "--id", "ANY", "--category", "macro_collocation", "--planner", PLANNER],
        ["clock", "resubmit", "ANY"],
    ):
        result = clearance(*args, env=env)
        assert_one_line_error(result, 1, f"cannot reach the web app at {url}")


def test_open_with_an_injected_address_is_one_line_exit_2(stack: Stack) -> None:
    app_id = new_id("INJ")
    result = stack.run(
        "clock", "open", "--id", app_id, "--category", "macro_collocation",
        "--planner", PLANNER, "--applicant-email", "a@b.example\r\nBcc: x@y.example",
    )  # fmt: skip
    assert_one_line_error(result, 2, "applicant_email", "is not a valid e-mail address")
    assert stack.run("clock", "show", app_id).returncode != 0  # nothing was opened
