"""Configuration in one place: task queues, addresses and paths, from the environment.

Every variable has an embedded default so `clearance run` works on a fresh machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parent

# One queue for every Clearance workflow and activity (shot clocks and projects).
TASK_QUEUE = "clearance"

# Custom search attributes the workflows upsert; registered by the embedded stack and
# by `clearance worker` so an operator can list at-risk clocks in the Temporal UI.
SEARCH_ATTRIBUTES: dict[str, str] = {
    "ShotClockDate": "Datetime",
    "ConservativeDate": "Datetime",
    "ClockStatus": "Keyword",
    "Jurisdiction": "Keyword",
    "ApplicationCategory": "Keyword",
    "DeemedApprovalRisk": "Bool",
    # Permit clocks (workflows/permit_clock_support.py).
    "PermitRule": "Keyword",
    "PermitDueDate": "Datetime",
    "PermitConsequence": "Keyword",
}


# How many workflow runs the worker keeps in memory (1,000, the Temporal SDK's default).
# A run beyond it is evicted and replayed from its history when its next timer or update
# arrives, so a worker serves many more open clocks than it caches: the cache bounds the
# worker's memory, not the number of clocks (BENCHMARKS.md has the cost per cached clock).
DEFAULT_MAX_CACHED_WORKFLOWS = 1000

# How many workflow tasks the worker runs at once. Python runs them on one core at a time:
# taking more than it can finish within the 10-second workflow task timeout makes them
# time out and replay (a project's first task decodes 133 conditions). Tasks beyond this
# wait on the server instead, which costs nothing.
DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS = 10

# Threads that run activities (notices, read-model writes) in one worker. Each notice is a
# few milliseconds of Python between waits on SMTP and the database; past a handful of
# threads they mostly queue for the interpreter lock, and an 08:00 storm's notices cost
# more CPU each with 16 threads than with 8 (docs/storm.md). Kept connections make a slow
# remote relay cheap enough that 8 still send dozens of letters a second.
DEFAULT_ACTIVITY_THREADS = 8

# How long a workflow task may wait on the worker's sticky queue before the server gives up
# on the worker and reschedules it on the shared queue. The SDK's 10 s is shorter than an
# 08:00 storm's backlog: nearly every reminder's task timed out there and was scheduled
# twice, which doubled the server's work (docs/storm.md, "The fourth round"). But after a
# worker is killed, a workflow it held serves its next update only after this long
# (bench/sticky_recovery.py: 10.1 s at 10, 60.2 s at 60, 300 s at 300; docs/operations.md).
# 60 s is the storm's own bound (every letter within 60 s of 08:00; the storm drains in
# 36 s), so a task that waits longer has already missed it, and recovery takes a minute.
DEFAULT_STICKY_QUEUE_TIMEOUT_SECONDS = 60


def _env(name: str, default: str) -> str:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    temporal_address: str
    temporal_namespace: str
    temporal_ui_port: int
    database_url: str
    outbox_dir: Path
    smtp_host: str
    smtp_port: int
    smtp_user: str
    smtp_password: str
    smtp_starttls: bool
    mail_from: str
    task_queue: str
    max_cached_workflows: int = DEFAULT_MAX_CACHED_WORKFLOWS
    max_concurrent_workflow_tasks: int = DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS
    sticky_queue_timeout_seconds: float = DEFAULT_STICKY_QUEUE_TIMEOUT_SECONDS
    activity_threads: int = DEFAULT_ACTIVITY_THREADS
    # Run workflow code in Temporal's sandbox (CLEARANCE_WORKFLOW_SANDBOX). Off in the
    # shipped worker: the sandbox doubled the CPU of replaying an evicted clock (docs/
    # storm.md); the test suite turns it on, so non-deterministic code still fails there.
    workflow_sandbox: bool = False
    # `clearance worker` lowers its own CPU priority by this much (CLEARANCE_WORKER_NICENESS):
    # reminders can wait a second; a person waiting on a page should not wait behind a
    # morning's reminders on the same machine (docs/storm.md). 0 leaves it as started.
    worker_niceness: int = 10
    # Web app: where it listens, the address put in e-mailed links, and the key that signs
    # sessions, CSRF tokens and applicant links (empty: kept in $DATA_DIR/secret_key).
    web_host: str = "127.0.0.1"
    web_port: int = 8000
    # `clearance web` processes (CLEARANCE_WEB_WORKERS): 0 means one per CPU core, so the
    # shipped default uses the machine (one Python process serves one core at most).
    web_workers: int = 0
    public_url: str = "http://localhost:8000"
    # Was CLEARANCE_PUBLIC_URL given? Outside development, applicant links refuse to be
    # made without it (a link to localhost reaches nobody).
    public_url_configured: bool = False
    # development | production (CLEARANCE_ENVIRONMENT).
    environment: str = "development"
    secret_key: str = ""
    applicant_link_days: int = 30
    # Operations: log format (text or json), level, the worker's health port (0: none),
    # who hears about a prolonged mail outage, and the payload encryption key (base64 of
    # 32 bytes; empty: payloads are not encrypted).
    log_format: str = "text"
    log_level: str = "INFO"
    worker_health_port: int = 0
    operator_email: str = ""
    payload_key: str = ""
    payload_key_id: str = "k1"
    # Earlier payload keys still accepted for decoding after a rotation: "id=base64key"
    # pairs separated by commas.
    payload_old_keys: str = ""
    # A notice whose delivery has failed this many times raises an operator alert (it
    # keeps retrying); seconds a stopping worker lets running activities finish.
    mail_alert_after_attempts: int = 10
    graceful_shutdown_seconds: int = 30
    # Jurisdictions are data (rules/data/jurisdictions/<key>.json, plus any in
    # jurisdictions_dir): the one used when a request names none.
    default_jurisdiction: str = ""
    jurisdictions_dir: str = ""
    # mTLS to the Temporal frontend (all three files, or none): the client certificate and
    # key the app presents, the CA that signed the server's; server_name overrides SNI.
    temporal_tls_cert: str = ""
    temporal_tls_key: str = ""
    temporal_tls_ca: str = ""
    temporal_tls_server_name: str = ""
    # The CLI's staff commands call the web app's API with a personal access token: the
    # API's base URL and the token (else from the `clearance login` file, cli_config).
    api_url: str = ""
    api_token: str = ""
    cli_config: str = ""
    # Security (issue 13): the largest evidence upload; minutes a session may sit idle
    # before it ends; the reverse proxies whose X-Forwarded-For/-Proto are believed
    # (comma-separated addresses; empty: none, the connection's own address and scheme
    # count); SMTP over implicit TLS (port 465), extra CA certificates (PEM file) trusted
    # for the mail server, and whether AUTH may be sent over a connection without TLS.
    max_upload_mb: int = 25
    session_idle_minutes: int = 30
    trusted_proxies: str = ""
    smtp_ssl: bool = False
    smtp_ca_file: str = ""
    smtp_allow_plain_auth: bool = False
    # Staff sign-in with the city's OpenID Connect provider (docs/security.md): its issuer
    # URL (empty: passwords only), this app's client id and secret there, which of its
    # groups give which role ("group=role" or "group=role:department", comma-separated,
    # the most rights first), the ID token claim listing the groups, and the button's name.
    oidc_issuer: str = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = ""
    oidc_group_roles: str = ""
    oidc_groups_claim: str = "groups"
    oidc_provider_name: str = ""

    @property
    def web_processes(self) -> int:
        """How many processes `clearance web` runs: the setting, or one per CPU core."""
        if self.web_workers > 0:
            return self.web_workers
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)

    @property
    def temporal_port(self) -> int:
        return int(self.temporal_address.rsplit(":", 1)[1])

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 1024 * 1024

    @property
    def temporal_db_file(self) -> Path:
        return self.data_dir / "temporal.db"


def _number(name: str, default: float, *, whole: bool, minimum: float) -> float:
    """A numeric setting, refused with its variable's name when malformed or too small."""
    raw = _env(name, str(default))
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number of seconds"
        raise ValueError(f"{name} must be {kind}, not {raw!r}") from None
    if not value >= minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, not {raw!r}")
    return value


def _flag(name: str, default: str = "false") -> bool:
    return _env(name, default).lower() in ("1", "true", "yes")


def _address(name: str, value: str) -> str:
    """An address setting, normalised (models/addresses.py); a bad one is refused."""
    from models.addresses import BadAddress, normalise_address

    try:
        return normalise_address(value, name)
    except BadAddress as err:
        raise ValueError(str(err)) from None


def _from_address(name: str, value: str) -> str:
    """The deployment's from-address: one address, with a display name if wanted, and no
    line break (a development host's, clearance@localhost, is allowed)."""
    from models.addresses import BadAddress, one_address

    try:
        one_address(value, name, validate=False)
    except BadAddress as err:
        raise ValueError(str(err)) from None
    return value


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", ""})


def _public_url(environment: str, value: str) -> str:
    """The address put in every letter's portal link. In production one that points at
    this machine reaches no applicant: refuse to start, in one line."""
    host = (urlsplit(value).hostname or "").lower()
    if environment == "production" and (host in _LOCAL_HOSTS or host.endswith(".localhost")):
        raise ValueError(
            f"CLEARANCE_PUBLIC_URL is {value!r}: in production it must be the address "
            "applicants reach (e.g. https://permits.example.gov), not localhost"
        )
    return value


def load_settings() -> Settings:
    data_dir = Path(_env("CLEARANCE_DATA_DIR", str(PROJECT_ROOT / "var"))).resolve()
    return Settings(
        data_dir=data_dir,
        temporal_address=_env("CLEARANCE_TEMPORAL_ADDRESS", "localhost:7233"),
        temporal_namespace=_env("CLEARANCE_TEMPORAL_NAMESPACE", "default"),
        temporal_ui_port=int(_env("CLEARANCE_TEMPORAL_UI_PORT", "8233")),
        database_url=_env("CLEARANCE_DATABASE_URL", f"sqlite:///{data_dir / 'clearance.db'}"),
        outbox_dir=Path(_env("CLEARANCE_OUTBOX_DIR", str(data_dir / "outbox"))),
        smtp_host=_env("CLEARANCE_SMTP_HOST", ""),
        smtp_port=int(_env("CLEARANCE_SMTP_PORT", "25")),
        smtp_user=_env("CLEARANCE_SMTP_USER", ""),
        smtp_password=_env("CLEARANCE_SMTP_PASSWORD", ""),
        smtp_starttls=_env("CLEARANCE_SMTP_STARTTLS", "false").lower() in ("1", "true", "yes"),
        mail_from=_from_address(
            "CLEARANCE_MAIL_FROM", _env("CLEARANCE_MAIL_FROM", "Clearance <clearance@localhost>")
        ),
        task_queue=_env("CLEARANCE_TASK_QUEUE", TASK_QUEUE),
        web_host=_env("CLEARANCE_WEB_HOST", "127.0.0.1"),
        web_port=int(_env("CLEARANCE_WEB_PORT", "8000")),
        web_workers=int(_env("CLEARANCE_WEB_WORKERS", "0")),
        public_url=_public_url(
            _env("CLEARANCE_ENVIRONMENT", "development"),
            _env("CLEARANCE_PUBLIC_URL", f"http://localhost:{_env('CLEARANCE_WEB_PORT', '8000')}"),
        ),
        public_url_configured=bool(os.environ.get("CLEARANCE_PUBLIC_URL")),
        environment=_env("CLEARANCE_ENVIRONMENT", "development"),
        secret_key=_env("CLEARANCE_SECRET_KEY", ""),
        applicant_link_days=int(_env("CLEARANCE_APPLICANT_LINK_DAYS", "30")),
        log_format=_env("CLEARANCE_LOG_FORMAT", "text"),
        log_level=_env("CLEARANCE_LOG_LEVEL", "INFO"),
        worker_health_port=int(_env("CLEARANCE_WORKER_HEALTH_PORT", "0")),
        operator_email=_address("CLEARANCE_OPERATOR_EMAIL", _env("CLEARANCE_OPERATOR_EMAIL", "")),
        payload_key=_env("CLEARANCE_PAYLOAD_KEY", ""),
        payload_key_id=_env("CLEARANCE_PAYLOAD_KEY_ID", "k1"),
        payload_old_keys=_env("CLEARANCE_PAYLOAD_OLD_KEYS", ""),
        mail_alert_after_attempts=int(_env("CLEARANCE_MAIL_ALERT_AFTER_ATTEMPTS", "10")),
        graceful_shutdown_seconds=int(_env("CLEARANCE_GRACEFUL_SHUTDOWN_SECONDS", "30")),
        default_jurisdiction=_env("CLEARANCE_DEFAULT_JURISDICTION", ""),
        jurisdictions_dir=_env("CLEARANCE_JURISDICTIONS_DIR", ""),
        temporal_tls_cert=_env("CLEARANCE_TEMPORAL_TLS_CERT", ""),
        temporal_tls_key=_env("CLEARANCE_TEMPORAL_TLS_KEY", ""),
        temporal_tls_ca=_env("CLEARANCE_TEMPORAL_TLS_CA", ""),
        temporal_tls_server_name=_env("CLEARANCE_TEMPORAL_TLS_SERVER_NAME", ""),
        api_url=_env("CLEARANCE_API_URL", ""),
        api_token=_env("CLEARANCE_API_TOKEN", ""),
        cli_config=_env("CLEARANCE_CLI_CONFIG", ""),
        max_upload_mb=int(_env("CLEARANCE_MAX_UPLOAD_MB", "25")),
        session_idle_minutes=int(_env("CLEARANCE_SESSION_IDLE_MINUTES", "30")),
        trusted_proxies=_env("CLEARANCE_TRUSTED_PROXIES", ""),
        smtp_ssl=_flag("CLEARANCE_SMTP_SSL"),
        smtp_ca_file=_env("CLEARANCE_SMTP_CA_FILE", ""),
        smtp_allow_plain_auth=_flag("CLEARANCE_SMTP_ALLOW_PLAIN_AUTH"),
        oidc_issuer=_env("CLEARANCE_OIDC_ISSUER", ""),
        oidc_client_id=_env("CLEARANCE_OIDC_CLIENT_ID", ""),
        oidc_client_secret=_env("CLEARANCE_OIDC_CLIENT_SECRET", ""),
        oidc_group_roles=_env("CLEARANCE_OIDC_GROUP_ROLES", ""),
        oidc_groups_claim=_env("CLEARANCE_OIDC_GROUPS_CLAIM", "groups"),
        oidc_provider_name=_env("CLEARANCE_OIDC_PROVIDER_NAME", ""),
        max_cached_workflows=int(
            _env("CLEARANCE_MAX_CACHED_WORKFLOWS", str(DEFAULT_MAX_CACHED_WORKFLOWS))
        ),
        max_concurrent_workflow_tasks=int(
            _env(
                "CLEARANCE_MAX_CONCURRENT_WORKFLOW_TASKS",
                str(DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS),
            )
        ),
        sticky_queue_timeout_seconds=_number(
            "CLEARANCE_STICKY_QUEUE_TIMEOUT_SECONDS",
            DEFAULT_STICKY_QUEUE_TIMEOUT_SECONDS,
            whole=False,
            minimum=1,
        ),
        activity_threads=int(
            _number("CLEARANCE_ACTIVITY_THREADS", DEFAULT_ACTIVITY_THREADS, whole=True, minimum=1)
        ),
        workflow_sandbox=_flag("CLEARANCE_WORKFLOW_SANDBOX"),
        worker_niceness=int(_env("CLEARANCE_WORKER_NICENESS", "10")),
    )
