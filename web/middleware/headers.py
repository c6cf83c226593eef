"""Every response's security headers (no-store on all but the public static files), and a
URL holding a NUL refused before any route."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import unquote

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

CallNext = Callable[[Request], Awaitable[Response]]

# The files served the same to everyone (the stylesheet, the icon, the API explorer's
# scripts): a browser or proxy may keep them. Every other answer may be a signed-in page,
# an API answer to a token or an applicant's portal page reached by a link.
PUBLIC_STATIC_PREFIXES = ("/static/", "/api/docs/assets/")
PUBLIC_STATIC_PATHS = frozenset({"/favicon.ico"})


def is_public_static(path: str) -> bool:
    return path in PUBLIC_STATIC_PATHS or path.startswith(PUBLIC_STATIC_PREFIXES)


async def security_headers(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    # No inline scripts anywhere: a script smuggled into a page cannot run.
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; form-action 'self'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if not is_public_static(request.url.path):
        # Nothing a session, a token or a portal link showed is kept on disk by the
        # browser or by a proxy, nor shown again from the back button after log-out.
        # Set on every route, not only those that check who is asking: a page that
        # varies with the session cookie (the log-in page, an error page) is covered too.
        response.headers["Cache-Control"] = "no-store"
    if request.url.path.startswith("/api/docs"):
        # Swagger UI (served from here, never a CDN) starts with an inline script.
        del response.headers["Content-Security-Policy"]
    return response


async def refuse_nul_in_url(request: Request, call_next: CallNext) -> Response:
    # No stored text can hold a NUL and PostgreSQL refuses one in a query, so a URL
    # carrying one is bad input (400 naming it), never a 500 from the database.
    if "\x00" in unquote(request.url.path) or "\x00" in unquote(request.url.query):
        message = "the URL holds a NUL character (%00)"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=400)
        return HTMLResponse(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not done'
            f"</title></head><body><main><h1>Not done</h1><p>{message}.</p></main></body></html>",
            status_code=400,
        )
    return await call_next(request)
