"""The CLI's staff commands talk to the web app's JSON API with a personal access token,
so they pass the same role check as the pages (the role comes from the account, never
from the command line) and need no access to Temporal.

Where the URL and token come from, first found wins:
1. CLEARANCE_API_URL / CLEARANCE_API_TOKEN (settings.py);
2. the file `clearance login` writes: CLEARANCE_CLI_CONFIG, else
   $XDG_CONFIG_HOME/clearance/cli.json (~/.config/clearance/cli.json), mode 0600;
3. for the URL only: the local web app, http://127.0.0.1:CLEARANCE_WEB_PORT.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from cli.errors import CliError
from settings import Settings, load_settings

TIMEOUT_S = 60.0
# An action whose answer left its outcome unknown is sent again with its key, this many
# times, after BACKOFF_S, then twice that, and so on (or the server's Retry-After).
RETRIES = 4
BACKOFF_S = 2.0
MAX_PAUSE_S = 30.0
RETRY_STATUSES = frozenset({503, 504})


def _pause(attempt: int, response: httpx.Response | None) -> float:
    wait = BACKOFF_S * 2 ** (attempt - 1)
    if response is not None:
        with contextlib.suppress(ValueError):
            wait = max(wait, float(response.headers.get("retry-after", "0")))
    return min(wait, MAX_PAUSE_S)


def config_path(settings: Settings | None = None) -> Path:
    settings = settings or load_settings()
    if settings.cli_config:
        return Path(settings.cli_config).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "clearance" / "cli.json"


def read_config(path: Path) -> dict[str, str]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as err:
        raise CliError(
            f"{path}: cannot read the login file ({err}); run `clearance login`"
        ) from None
    return {k: str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}


def write_config(path: Path, values: dict[str, str]) -> None:
    """Written readable by its owner only: it holds a secret."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(values, handle, indent=2)
    os.chmod(path, 0o600)


def local_url(settings: Settings) -> str:
    host = settings.web_host if settings.web_host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    return f"http://{host}:{settings.web_port}"


@dataclass
class Api:
    url: str
    token: str

    @classmethod
    def from_settings(cls, require_token: bool = True) -> Api:
        settings = load_settings()
        saved = read_config(config_path(settings))
        url = (settings.api_url or saved.get("url") or local_url(settings)).rstrip("/")
        token = settings.api_token or saved.get("token", "")
        if require_token and not token:
            raise CliError(
                "not logged in: staff commands act through the web app's API with your "
                "personal access token; run `clearance login` (or set CLEARANCE_API_TOKEN)"
            )
        return cls(url, token)

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        """One API call; every failure is a CliError with the API's own sentence.

        An action (any method but GET) carries one Idempotency-Key, made for it here. An
        answer that leaves the outcome unknown (503, 504), a connection dropped after the
        request went out, or no answer in time is retried with that same key, up to
        RETRIES times with growing pauses, saying so: the web app returns the first
        outcome for a key and Temporal runs an update id once, so a retry never acts
        twice. A refused connection (the web app not running) sent nothing: not retried."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if method.upper() != "GET":
            headers["Idempotency-Key"] = f"cli-{uuid.uuid4()}"
        attempt = 0
        while True:
            attempt += 1
            answered: httpx.Response | None = None
            try:
                response = httpx.request(
                    method,
                    f"{self.url}/api/v1{path}",
                    json=body,
                    params={k: v for k, v in params.items() if v is not None} or None,
                    headers=headers,
                    timeout=TIMEOUT_S,
                )
            except (httpx.ConnectError, httpx.ConnectTimeout) as err:
                # Nothing was sent: no outcome to wonder about, and no web app to wait for.
                raise CliError(
                    f"cannot reach the web app at {self.url} ({type(err).__name__}): start it "
                    "with `clearance run` or `clearance web`, or set CLEARANCE_API_URL"
                ) from None
            except httpx.TimeoutException:
                failure = CliError(f"the web app at {self.url} did not answer in time")
                why = "no answer in time"
            except httpx.HTTPError as err:
                failure = CliError(
                    f"the connection to the web app at {self.url} failed ({type(err).__name__})"
                )
                why = f"the connection failed ({type(err).__name__})"
            else:
                if response.status_code < 400:
                    return response.json()
                answered = response
                failure = _error(response, self.url)
                if response.status_code not in RETRY_STATUSES:
                    raise failure
                why = f"{response.status_code}: {failure}"
            if attempt > RETRIES:
                raise failure
            pause = _pause(attempt, answered)
            key = headers.get("Idempotency-Key")
            same = f" with the same idempotency key ({key})" if key else ""
            print(
                f"{why}; retrying{same} in {pause:g} s (retry {attempt} of {RETRIES})",
                file=sys.stderr,
                flush=True,
            )
            time.sleep(pause)

    def text(self, path: str) -> str:
        """A text download (CSV), or a CliError."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            response = httpx.get(f"{self.url}/api/v1{path}", headers=headers, timeout=TIMEOUT_S)
        except httpx.HTTPError as err:
            raise CliError(
                f"cannot reach the web app at {self.url} ({type(err).__name__})"
            ) from None
        if response.status_code >= 400:
            raise _error(response, self.url)
        return response.text

    def upload(self, path: str, filename: str, data: bytes) -> tuple[int, Any]:
        """POST a file (multipart `file`): (status, JSON); a 422 answers with its JSON
        (a caseload preview's errors), any other failure is a CliError."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            response = httpx.post(
                f"{self.url}/api/v1{path}",
                files={"file": (filename, data)},
                headers=headers,
                timeout=TIMEOUT_S * 5,
            )
        except httpx.HTTPError as err:
            raise CliError(
                f"cannot reach the web app at {self.url} ({type(err).__name__}): start it with "
                "`clearance run` or `clearance web`, or set CLEARANCE_API_URL"
            ) from None
        if response.status_code < 400 or (
            response.status_code == 422 and "errors" in response.text[:200]
        ):
            return response.status_code, response.json()
        raise _error(response, self.url)


def _error(response: httpx.Response, url: str) -> CliError:
    try:
        answer = response.json()
        message = str(answer.get("error") or response.text)
        if answer.get("outcome") == "unknown" and answer.get("check"):
            message += f"; check {url}{answer['check']}"
    except (ValueError, AttributeError):
        message = response.text.strip()[:300] or response.reason_phrase
    status = response.status_code
    if status == 401:
        if "clearance login" in message:  # the API said why (expired, revoked when...)
            return CliError(f"{message} ({url})")
        return CliError(
            f"{message} ({url}): your token is missing, revoked, expired or unknown; "
            "run `clearance login`"
        )
    if status in (400, 422):
        return CliError(_unprocessable(response) if status == 422 else message, code=2)
    if status == 409:
        return CliError(f"refused: {message}")
    return CliError(message)


def _unprocessable(response: httpx.Response) -> str:
    """FastAPI's validation error, as one line naming the field."""
    try:
        detail = response.json().get("detail") or []
        first = detail[0]
        field = ".".join(str(p) for p in first.get("loc", [])[1:])
        return f"{field}: {first.get('msg')}"
    except (ValueError, AttributeError, IndexError, KeyError, TypeError):
        return response.text.strip()[:300]
