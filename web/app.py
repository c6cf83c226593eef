"""`create_app`: the FastAPI app serving staff pages, the applicant portal, ICS feeds and
the JSON API. Pages read the SQL read model; actions go through the workflow updates."""

from __future__ import annotations

import gc
import logging
from importlib import resources

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy.exc import DataError
from temporalio.client import Client
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from actions.errors import ActionFailed, OutcomeUnknown
from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from operations.signing import secret_key
from rules.access import NotPermitted
from settings import Settings, load_settings
from web.api import errors as api_errors
from web.auth.accounts import Accounts
from web.auth.login_throttle import LoginThrottle
from web.auth.oidc import OidcConfig, OidcLogin
from web.auth.security import Signer
from web.context import STATIC_DIR, AppContext, ctx_of, template_environment
from web.deps import (
    CsrfRefused,
    LoginRequired,
    ScopeRefused,
    jurisdiction_scope,
    optional_session,
)
from web.middleware.body_limit import BodyLimit
from web.middleware.headers import refuse_nul_in_url, security_headers
from web.middleware.idempotency import Idempotency
from web.middleware.outcomes import DatabaseUnavailable, outcome_unknown
from web.uploads.resolution_import import ImportJobs

log = logging.getLogger("clearance.web")
# Swagger UI 5 (reads OpenAPI 3.1), as the pinned fastapi-swagger package ships it.
SWAGGER_UI = str(resources.files("fastapi_swagger") / "resources")


def create_app(settings: Settings | None = None, client: Client | None = None) -> FastAPI:
    settings = settings or load_settings()
    engine = make_engine(settings.database_url)
    key = secret_key(settings)
    gateway = Gateway(settings, client)
    ctx = AppContext(
        settings=settings,
        engine=engine,
        sessions=session_factory(engine),
        accounts=Accounts(engine, settings.session_idle_minutes),
        gateway=gateway,
        actions=Actions(settings, engine, gateway),
        signer=Signer(key),
        templates=template_environment(),
        flash_signer=URLSafeTimedSerializer(key, salt="flash"),
        throttle=LoginThrottle(engine),
        imports=ImportJobs(settings.data_dir / "import-jobs"),
        oidc=_oidc(settings),
        secret=key,
    )
    app = FastAPI(
        title="Clearance",
        version="1",
        summary="Wireless shot clocks and conditions of approval: pages and JSON API",
        docs_url=None,  # served below from the pinned fastapi-swagger's files: no CDN
        redoc_url=None,
        openapi_url="/openapi.json",
        # Every request is scoped to the requester's jurisdictions (web/deps.py).
        dependencies=[Depends(jurisdiction_scope)],
    )
    app.state.ctx = ctx
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    app.mount("/api/docs/assets", StaticFiles(directory=SWAGGER_UI), name="swagger-ui-assets")
    _install_docs(app)
    _install_handlers(app)

    from web.api.main import api_router
    from web.pages import (
        admin,
        administrative_records,
        auth,
        bulk,
        calendar,
        caseload,
        dashboard,
        jurisdictions,
        oidc,
        permit_clocks,
        portal,
        portfolio,
        projects,
        records,
        resolutions,
        search,
        shot_clocks,
        tokens,
    )

    # resolutions before projects: "/projects/import" is not a project id; portfolio before
    # records: "/reports/all/..." is not a project's report
    for module in (
        auth,
        oidc,
        dashboard,
        shot_clocks,
        resolutions,
        projects,
        portfolio,
        records,
        admin,
    ):
        app.include_router(module.router, include_in_schema=False)
    for module in (portal, calendar, permit_clocks, tokens, caseload, jurisdictions):
        app.include_router(module.router, include_in_schema=False)
    for module in (administrative_records, search, bulk):
        app.include_router(module.router, include_in_schema=False)
    app.include_router(api_router)

    # Idempotency keys inside the database-outage answer, both inside the headers.
    app.add_middleware(Idempotency)
    app.add_middleware(DatabaseUnavailable)
    app.middleware("http")(security_headers)
    app.middleware("http")(refuse_nul_in_url)

    # Added last, so outermost: a body over its limit is refused before anything reads it.
    app.add_middleware(BodyLimit, upload_limit=settings.max_upload_bytes)
    if settings.trusted_proxies:
        # Behind a reverse proxy: the client's address (log-in throttling) and the scheme
        # (Secure cookies) come from its X-Forwarded-For/-Proto, believed only from it.
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    return app


def _oidc(settings: Settings) -> OidcLogin | None:
    """The city's identity provider, when CLEARANCE_OIDC_ISSUER is set (a setting that
    cannot be used stops the app with its name)."""
    config = OidcConfig.from_settings(settings)
    if config is None:
        return None
    return OidcLogin(config, f"{settings.public_url.rstrip('/')}/login/oidc/callback")


def served_app() -> FastAPI:
    """The app as `clearance web` serves it (each of its processes builds one): made, then
    warmed, so no user waits while a fresh process compiles its templates."""
    app = create_app()
    warm_up(app)
    return app


def warm_up(app: FastAPI) -> None:
    """Compile every page template and load the date formats before the first request
    (done lazily, the first requests a new process served took seconds under load)."""
    from web.views.present import human_date

    templates = ctx_of_app(app).templates
    for name in templates.list_templates(filter_func=lambda n: n.endswith(".j2")):
        templates.get_template(name)
    human_date("2026-01-05")
    # What is loaded by now lives as long as the process: moved out of the collector's
    # sight, so a full collection no longer walks it (one took 155 ms mid-request, the
    # 50-user benchmark's slowest inboxes; bench/web_load.py).
    gc.collect()
    gc.freeze()


def ctx_of_app(app: FastAPI) -> AppContext:
    return app.state.ctx


def _install_docs(app: FastAPI) -> None:
    """The API explorer works offline: Swagger UI 5's files come from the pinned
    fastapi-swagger package. /docs (FastAPI's usual address) leads to it."""

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="Clearance API",
            swagger_js_url="/api/docs/assets/swagger-ui-bundle.js",
            swagger_css_url="/api/docs/assets/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    @app.get("/docs", include_in_schema=False)
    def docs() -> RedirectResponse:
        return RedirectResponse("/api/docs", status_code=308)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    ctx = ctx_of(request)
    body = ctx.templates.get_template("error.html.j2").render(
        request=request,
        user=None,
        session=optional_session(request),
        csrf_token="",
        flash=None,
        today=ctx.today(),
        time_zone=ctx.time_zone(),
        status=status,
        title=title,
        message=message,
    )
    return HTMLResponse(body, status_code=status)


def _install_handlers(app: FastAPI) -> None:
    api_errors.install(app, _page)

    @app.exception_handler(LoginRequired)
    async def login_required(request: Request, err: LoginRequired) -> Response:
        # A refused bearer token (a report, CSV or feed fetched by a script) is answered
        # 401, never redirected to a log-in page a script cannot use.
        if _wants_json(request) or request.headers.get("authorization"):
            return JSONResponse(
                {
                    "error": err.message
                    or "log in first: send the session cookie or Authorization: Bearer"
                },
                status_code=401,
            )
        target = request.url.path
        if request.url.query:
            target += "?" + request.url.query
        from urllib.parse import quote

        return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)

    @app.exception_handler(ScopeRefused)
    async def scope_refused(request: Request, err: ScopeRefused) -> Response:
        return JSONResponse({"error": err.message}, status_code=403)

    @app.exception_handler(CsrfRefused)
    async def csrf_refused(request: Request, _: CsrfRefused) -> Response:
        message = (
            "This form was refused because it did not carry this session's security token "
            "(CSRF). Go back, reload the page and submit it again."
        )
        if _wants_json(request):
            return JSONResponse(
                {"error": "refused: missing or wrong CSRF token (send X-CSRF-Token)"},
                status_code=403,
            )
        return _page(request, 403, "Form refused", message)

    @app.exception_handler(NotPermitted)
    async def not_permitted(request: Request, err: NotPermitted) -> Response:
        if _wants_json(request):
            return JSONResponse({"error": f"not permitted: {err}"}, status_code=403)
        return _page(request, 403, "Not permitted", str(err))

    @app.exception_handler(ActionFailed)
    async def action_failed(request: Request, err: ActionFailed) -> Response:
        if _wants_json(request):
            return JSONResponse({"error": err.message}, status_code=err.status)
        return _page(request, err.status, "Not done", err.message)

    @app.exception_handler(OutcomeUnknown)
    async def unknown(request: Request, err: OutcomeUnknown) -> Response:
        return outcome_unknown(request, err)

    @app.exception_handler(DataError)
    async def value_the_database_refuses(request: Request, err: DataError) -> Response:
        # A value the database cannot hold (a NUL in a text field, a number out of its
        # range): the transaction rolled back, so nothing was stored. Say so, not 500.
        reason = str(err.orig).splitlines()[0] if err.orig else "a value it cannot store"
        message = f"the database refused a value in this request ({reason}); nothing was stored"
        if _wants_json(request):
            return JSONResponse({"error": message}, status_code=400)
        return _page(request, 400, "Not done", message)

    @app.exception_handler(404)
    async def not_found(request: Request, err: Exception) -> Response:
        detail = getattr(err, "detail", None) or "There is no such page."
        if _wants_json(request):
            return JSONResponse({"error": str(detail)}, status_code=404)
        return _page(request, 404, "Not found", str(detail))
