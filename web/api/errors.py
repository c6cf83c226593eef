"""Every error of /api/v1 in the published shape, {"error": "..."}: FastAPI's validation
errors (422, which it would shape {"detail": [...]}), Starlette's 404 and 405 (shaped
{"detail": ...}) and any unexpected exception (500, which Starlette would answer in
text/plain). Pages get the HTML error page for the same cases."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("clearance.web")

Page = Callable[[Request, int, str, str], HTMLResponse]

TITLES = {400: "Not done", 404: "Not found", 405: "Not allowed", 422: "Not done"}


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def validation_message(errors: Sequence[Any]) -> str:
    """One line naming each field that does not fit: `query.page: Input should be a valid
    integer; body.date: Field required`."""
    parts = []
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'is not valid')}")
    return "; ".join(parts[:5]) + (f" (and {len(parts) - 5} more)" if len(parts) > 5 else "")


def install(app: FastAPI, page: Page) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> Response:
        message = validation_message(err.errors())
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=422)
        return page(request, 422, "Not done", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        message = str(err.detail or "")
        if wants_json(request):
            return JSONResponse(
                {"error": message}, status_code=err.status_code, headers=err.headers
            )
        return page(request, err.status_code, TITLES.get(err.status_code, "Not done"), message)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception) -> Response:
        # Logged with its traceback here; the answer names no internals.
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        message = "an unexpected error stopped this request; it was logged, nothing was stored"
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=500)
        return page(request, 500, "Something went wrong", message)
