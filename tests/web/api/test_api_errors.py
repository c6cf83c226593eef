"""Every /api/v1 error answers {"error": "..."} in JSON, whatever raised it, and the
schema lists it; reports and CSV exports answer a bearer token (scripts, spreadsheets)
instead of redirecting it to the log-in page."""

from __future__ import annotations

from typing import Any

import pytest

from models.database import make_engine
from settings import Settings
from tests.web.helpers import Browser, Stackish
from web.auth.accounts import Accounts


@pytest.fixture(scope="module")
def token(web_settings: Settings) -> str:
    return Accounts(make_engine(web_settings.database_url)).new_api_token(
        "admin@cotati.example", "errors"
    )


def _error(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json"), answer.headers
    body = answer.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    return str(body["error"])


def test_errors_have_the_published_shape(browser: Browser, token: str) -> None:
    client = browser.as_(None)
    auth = {"Authorization": f"Bearer {token}"}
    # 422: a parameter of the wrong type is named, not FastAPI's {"detail": [...]}.
    message = _error(client.get("/api/v1/applications?page=many", headers=auth), 422)
    assert "page" in message
    # 404 for an address no route has; 405 for a method a route does not take.
    _error(client.get("/api/v1/no-such-thing", headers=auth), 404)
    _error(client.delete("/api/v1/applications", headers=auth), 405)
    # 401 without a token; a NUL in the URL is bad input.
    _error(client.get("/api/v1/applications"), 401)
    _error(client.get("/api/v1/applications?q=%00", headers=auth), 400)


def test_every_operation_lists_its_errors(browser: Browser) -> None:
    schema = browser.as_(None).get("/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            missing = {"401", "403", "404", "405", "422", "500", "503"} - codes
            assert not missing, f"{method.upper()} {path} does not list {sorted(missing)}"
            error = operation["responses"]["422"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}, (path, error)


def test_the_explorer_is_swagger_ui_5_served_here(browser: Browser) -> None:
    client = browser.as_(None)
    page = client.get("/api/docs").text
    assert "/api/docs/assets/swagger-ui-bundle.js" in page and "cdn" not in page.lower()
    script = client.get("/api/docs/assets/swagger-ui-bundle.js").text
    # Swagger UI 4 cannot render OpenAPI 3.1 ("Unable to render this definition").
    assert "OpenAPI 3.1" in script or "openapi31" in script.lower()


def test_reports_and_csv_answer_a_token(browser: Browser, stack: Stackish, token: str) -> None:
    project_id = stack.new_project("TOKEN")
    client = browser.as_(None)
    answer = client.get(
        f"/reports/{project_id}/mmrp.csv",
        headers={"Authorization": f"Bearer {token}"},
        follow_redirects=False,
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/csv")
    refused = client.get(
        f"/reports/{project_id}/mmrp.csv",
        headers={"Authorization": "Bearer not-a-token"},
        follow_redirects=False,
    )
    _error(refused, 401)
    # A browser without a session is still sent to log in.
    page = client.get(f"/reports/{project_id}/mmrp.csv", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/login")


def test_too_large_and_nul_answers_are_never_plain_text(browser: Browser, token: str) -> None:
    client = browser.as_(None)
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    big = b"[" + b"0," * (1_100_000) + b"0]"
    _error(client.post("/api/v1/applications", content=big, headers=auth), 413)
    page = client.get("/projects?q=%00")
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/html")
