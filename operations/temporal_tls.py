"""mTLS to the Temporal frontend, from settings: the client certificate and key this
process presents, the CA that signed the server's certificate, and (optionally) the server
name to verify. All three files or none; a partial or unreadable setting is refused at
start with the setting's name, never silently downgraded to plain text."""

from __future__ import annotations

from pathlib import Path

from temporalio.service import TLSConfig

from settings import Settings

_FILES = (
    ("CLEARANCE_TEMPORAL_TLS_CERT", "temporal_tls_cert"),
    ("CLEARANCE_TEMPORAL_TLS_KEY", "temporal_tls_key"),
    ("CLEARANCE_TEMPORAL_TLS_CA", "temporal_tls_ca"),
)


class TlsSettingError(ValueError):
    """The mTLS settings are incomplete or name a file that cannot be read."""


def tls_config(settings: Settings) -> TLSConfig | None:
    """None when no mTLS setting is made (plain gRPC, e.g. the embedded dev server)."""
    given = {env: getattr(settings, attr) for env, attr in _FILES}
    if not any(given.values()):
        if settings.temporal_tls_server_name:
            raise TlsSettingError(
                "CLEARANCE_TEMPORAL_TLS_SERVER_NAME is set but no certificate: set "
                "CLEARANCE_TEMPORAL_TLS_CERT, _KEY and _CA too"
            )
        return None
    missing = [env for env, value in given.items() if not value]
    if missing:
        raise TlsSettingError(
            f"mTLS to Temporal needs all three files; missing: {', '.join(missing)}"
        )
    contents: dict[str, bytes] = {}
    for env, path in given.items():
        try:
            contents[env] = Path(path).read_bytes()
        except OSError as err:
            raise TlsSettingError(f"{env}: cannot read {path} ({err.strerror})") from None
    return TLSConfig(
        server_root_ca_cert=contents["CLEARANCE_TEMPORAL_TLS_CA"],
        client_cert=contents["CLEARANCE_TEMPORAL_TLS_CERT"],
        client_private_key=contents["CLEARANCE_TEMPORAL_TLS_KEY"],
        domain=settings.temporal_tls_server_name or None,
    )
