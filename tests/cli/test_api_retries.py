"""The CLI's API calls: each action carries one idempotency key and, when the answer
leaves its outcome unknown (503, 504, a dropped connection), is sent again with that same
key, a bounded number of times, saying so; a refusal is never retried."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cli import api as cli_api
from cli.api import Api
from cli.errors import CliError


class Script:
    """The answers the fake web app gives, in order, and the keys it was sent."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, dict[str, object]] | str] = []
        self.keys: list[str | None] = []


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            script.keys.append(self.headers.get("idempotency-key"))
            answer = script.answers.pop(0)
            if answer == "drop":  # the connection dies before any answer
                self.connection.close()
                return
            assert not isinstance(answer, str)
            status, body = answer
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_api, "BACKOFF_S", 0.0)
    monkeypatch.setattr(cli_api, "MAX_PAUSE_S", 0.0)


UNKNOWN = {
    "error": "outcome unknown: check before retrying (no answer within the time allowed)",
    "outcome": "unknown",
    "check": "/api/v1/applications/A-1",
}


def test_an_unknown_outcome_is_retried_with_the_same_key(
    server: tuple[str, Script], capsys: pytest.CaptureFixture[str]
) -> None:
    url, script = server
    script.answers = [(504, UNKNOWN), "drop", (503, UNKNOWN), (200, {"ok": True})]
    assert Api(url, "t").call("POST", "/applications/A-1/resubmission", {}) == {"ok": True}
    assert len(script.keys) == 4
    assert script.keys[0] and script.keys[0].startswith("cli-")
    assert set(script.keys) == {script.keys[0]}  # one key for the one action
    said = capsys.readouterr().err
    assert said.count("retrying with the same idempotency key") == 3
    assert "504: outcome unknown: check before retrying" in said

    # The next action gets a key of its own.
    script.answers = [(200, {"ok": True})]
    Api(url, "t").call("POST", "/applications/A-1/resubmission", {})
    assert script.keys[-1] not in script.keys[:-1]


def test_retries_are_bounded_and_the_last_answer_names_what_to_check(
    server: tuple[str, Script],
) -> None:
    url, script = server
    script.answers = [(504, UNKNOWN)] * (cli_api.RETRIES + 1)
    with pytest.raises(CliError) as failed:
        Api(url, "t").call("POST", "/applications/A-1/decision", {"outcome": "approved"})
    assert len(script.keys) == cli_api.RETRIES + 1
    assert str(failed.value).startswith("outcome unknown: check before retrying")
    assert f"check {url}/api/v1/applications/A-1" in str(failed.value)


def test_a_refusal_is_not_retried_and_a_read_carries_no_key(server: tuple[str, Script]) -> None:
    url, script = server
    script.answers = [(409, {"error": "the application is already closed"})]
    with pytest.raises(CliError, match="refused: the application is already closed"):
        Api(url, "t").call("POST", "/applications/A-1/withdrawal", {})
    assert len(script.keys) == 1
    script.answers = [(200, {"items": []})]
    Api(url, "t").call("GET", "/applications")
    assert script.keys[-1] is None
