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

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from cli.errors import CliError
from settings import Settings, load_settings

TIMEOUT_S = 60.0


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
        """One API call; every failure is a CliError with the API's own sentence."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            response = httpx.request(
                method,
                f"{self.url}/api/v1{path}",
                json=body,
                params={k: v for k, v in params.items() if v is not None} or None,
                headers=headers,
                timeout=TIMEOUT_S,
            )
        except httpx.TimeoutException:
            raise CliError(f"the web app at {self.url} did not answer in time") from None
        except httpx.HTTPError as err:
            raise CliError(
                f"cannot reach the web app at {self.url} ({type(err).__name__}): start it with "
                "`clearance run` or `clearance web`, or set CLEARANCE_API_URL"
            ) from None
        if response.status_code < 400:
            return response.json()
        raise _error(response, self.url)

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
        message = str(response.json().get("error") or response.text)
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
