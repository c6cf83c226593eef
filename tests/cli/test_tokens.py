"""The trust boundary as a user meets it: the CLI's staff commands carry a personal access
token to the web app's API, and the role comes from the token's account. Tokens are made
and revoked on the web app's page (or by `clearance login` with a password), stored only
as hashes, and a revoked or missing token acts on nothing."""

from __future__ import annotations

import hashlib
import re
import stat
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from models.database import make_engine, session_factory
from models.schema import ApiToken
from stack.demo import DEMO_PASSWORD
from tests.cli.runner import Stack, assert_one_line_error, reviewer_email, running_stack

MANAGER = "manager@cotati.example"
ENGINEER = "engineer@cotati.example"
PLANNER = "planner@cotati.example"
RESOLUTION = """\
RESOLUTION NO. 2026-07
CONDITIONS OF APPROVAL
Public Works / Engineering
The following shall be satisfied prior to issuance of a grading permit:
1. The Applicant shall submit a final drainage report prepared by a registered civil engineer.
2. The Applicant shall pay all plan check and inspection fees.
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("tokens"), web=True) as running:
        yield running


def logged_out(stack: Stack, config: Path) -> Stack:
    """The CLI with no token in the environment and its own (empty) login file."""
    env = {k: v for k, v in stack.env.items() if k != "CLEARANCE_API_TOKEN"}
    env["CLEARANCE_CLI_CONFIG"] = str(config)
    return Stack(env, stack.data_dir, stack.worker_log, stack.server_log, stack.tokens)


def open_args(app_id: str) -> list[str]:
    return [
        "clock", "open", "--id", app_id, "--category", "macro_collocation", "--planner", PLANNER,
    ]  # fmt: skip


def exists(stack: Stack, app_id: str) -> bool:
    result = stack.run("clock", "show", app_id, "--json")
    return result.returncode == 0


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8].upper()}"


def test_a_staff_command_without_a_token_is_refused(stack: Stack, tmp_path: Path) -> None:
    cli = logged_out(stack, tmp_path / "cli.json")
    app_id = new_id("NOTOKEN")
    result = cli.run(*open_args(app_id))
    assert result.stdout == "", result
    assert_one_line_error(result, 1, "not logged in", "clearance login")
    # A made-up token is refused by the web app, and nothing was opened either way.
    forged = dict(cli.env, CLEARANCE_API_TOKEN="not-a-real-token")
    result = Stack(forged, cli.data_dir, cli.worker_log, cli.server_log).run(*open_args(app_id))
    assert_one_line_error(result, 1, "that token is not valid", "clearance login")
    assert not exists(stack, app_id)
    # The pure computation needs no token.
    computed = cli.run(
        "clock", "compute", input='{"category": "swf_collocation", '
        '"events": [{"type": "submitted", "date": "2026-03-02"}]}',
    )  # fmt: skip
    assert computed.returncode == 0, computed


def test_a_token_carries_its_accounts_role(stack: Stack, tmp_path: Path) -> None:
    # A reviewer's token may not open a wireless application; the planning manager's may.
    reviewer = stack.as_(reviewer_email("engineering"))
    app_id = new_id("ROLE")
    result = reviewer.run(*open_args(app_id))
    assert_one_line_error(
        result, 1, f"not permitted: {reviewer_email('engineering')}", "open a wireless application"
    )
    assert not exists(stack, app_id)
    stack.as_(MANAGER).ok(*open_args(app_id))
    assert exists(stack, app_id)

    # A reviewer's token cannot sign off; engineering's reaches the workflow, which refuses
    # on the facts (two conditions still open).
    path = tmp_path / "resolution.txt"
    path.write_text(RESOLUTION)
    pid = new_id("SIGN")
    stack.ok(
        "conditions", "import", str(path), "--project", pid, "--name", "Sign-off test",
        "--applicant-email", "applicant@test.example", "--yes",
    )  # fmt: skip
    result = reviewer.run("project", "sign-off", pid, "grading_permit")
    assert_one_line_error(result, 1, "not permitted", "may not sign off a milestone")
    result = stack.as_(ENGINEER).run("project", "sign-off", pid, "grading_permit")
    assert_one_line_error(result, 1, "refused:", "2 condition(s) still open")
    # Who acted is the token's account: the import is recorded as the planning manager's.
    whoami = stack.ok("whoami").stdout
    assert MANAGER in whoami and "planning_manager" in whoami


def _web_session(stack: Stack, email: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=stack.env["CLEARANCE_API_URL"], follow_redirects=False)
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token, page.text
    response = client.post(
        "/login", data={"email": email, "password": DEMO_PASSWORD, "csrf_token": token[1]}
    )
    assert response.status_code == 303, response.text
    me = client.get("/me/tokens")
    assert me.status_code == 200, me.text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', me.text)
    assert csrf
    return client, csrf[1]


def test_tokens_are_made_and_revoked_in_the_web_app(stack: Stack, tmp_path: Path) -> None:
    client, csrf = _web_session(stack, MANAGER)
    made = client.post("/me/tokens", data={"csrf_token": csrf, "label": "laptop CLI"})
    assert made.status_code == 201, made.text
    assert made.headers["cache-control"] == "no-store"
    secret = re.search(r'readonly value="([^"]+)" size="60" data-testid="token-value"', made.text)
    assert secret, made.text
    token = secret[1]

    # Shown once: the list names the token by an id, never by its value; the database
    # keeps only a hash.
    listing = client.get("/me/tokens").text
    assert token not in listing and "laptop CLI" in listing
    engine = make_engine(stack.database_url)
    with session_factory(engine)() as session:
        stored = list(session.scalars(select(ApiToken.token_hash)))
    assert token not in stored and all(len(h) == 64 for h in stored)

    # `clearance login --token` saves it (owner-only file) and the CLI acts as its account.
    config = tmp_path / "cli.json"
    cli = logged_out(stack, config)
    logged_in = cli.ok("login", "--token", token)
    assert f"as {MANAGER} (planning_manager)" in logged_in.stdout
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert token in config.read_text()
    app_id = new_id("LOGIN")
    cli.ok(*open_args(app_id))

    # Revoked on the page: the next command is refused and records nothing.
    token_id = hashlib.sha256(token.encode()).hexdigest()[:16]
    assert f'data-token="{token_id}" data-state="active"' in listing
    revoked = client.post(f"/me/tokens/{token_id}/revoke", data={"csrf_token": csrf})
    assert revoked.status_code == 303
    assert f'data-token="{token_id}" data-state="revoked"' in client.get("/me/tokens").text
    result = cli.run("clock", "withdraw", app_id)
    assert_one_line_error(result, 1, "that token was revoked by you", "clearance login")
    assert stack.show_json(app_id)["status"] == "running"
    # Another user's token cannot be revoked from this account's page.
    other = client.post(f"/me/tokens/{'0' * 16}/revoke", data={"csrf_token": csrf})
    assert other.status_code == 404


def test_login_with_a_password_then_logout_revokes(stack: Stack, tmp_path: Path) -> None:
    config = tmp_path / "cli.json"
    cli = logged_out(stack, config)
    wrong = cli.run("login", "--email", ENGINEER, "--password-stdin", input="nope\n")
    assert_one_line_error(wrong, 1, "do not match")
    assert not config.exists()
    cli.ok("login", "--email", ENGINEER, "--password-stdin", input=f"{DEMO_PASSWORD}\n")
    assert f"{ENGINEER} (engineering)" in cli.ok("whoami").stdout
    saved = config.read_text()
    secret = re.search(r'"token": "([^"]+)"', saved)
    assert secret
    cli.ok("logout")
    assert not config.exists()
    again = dict(cli.env, CLEARANCE_API_TOKEN=secret[1])
    result = Stack(again, cli.data_dir, cli.worker_log, cli.server_log).run("whoami")
    assert_one_line_error(result, 1, "that token was revoked by clearance logout")


def test_a_read_login_reads_cannot_act_and_dies_with_the_password(
    stack: Stack, tmp_path: Path
) -> None:
    email = f"reader-{uuid.uuid4().hex[:6]}@cotati.example"
    stack.ok("users", "add", email, "--role", "planning_manager", "--password", DEMO_PASSWORD)
    cli = logged_out(stack, tmp_path / "cli.json")
    week = (datetime.now(UTC) + timedelta(days=7)).date().isoformat()
    logged_in = cli.ok(
        "login", "--email", email, "--password-stdin", "--scope", "read", "--days", "7",
        input=f"{DEMO_PASSWORD}\n",
    )  # fmt: skip
    assert f"it expires on {week} (read scope)" in " ".join(logged_in.stdout.split())
    assert email in cli.ok("whoami").stdout  # reading works
    app_id = new_id("READ")
    acted = cli.run(*open_args(app_id))
    assert_one_line_error(acted, 1, "read scope and cannot act", "act scope")
    assert not exists(stack, app_id)

    # An administrator resets the password: the saved token stops working, saying why.
    stack.ok("users", "password", email, "--password", "lantern quietly over seven bridges")
    gone = cli.run("whoami")
    assert_one_line_error(gone, 1, "revoked when your password was reset", "clearance login")
