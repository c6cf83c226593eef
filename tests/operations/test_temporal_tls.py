"""mTLS settings for the Temporal client: the certificates scripts/temporal-certs makes
chain to its CA and name the server as compose reaches it, load into the client's TLS
configuration, and a partial or unreadable setting is refused naming the setting."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from operations.temporal_tls import TlsSettingError, tls_config
from settings import PROJECT_ROOT, load_settings

OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs") / "certs"
    result = subprocess.run(
        [str(PROJECT_ROOT / "scripts" / "temporal-certs"), str(folder), "temporal"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return folder


def openssl(*args: str) -> str:
    assert OPENSSL is not None
    result = subprocess.run([OPENSSL, *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_certificates_chain_to_the_ca_and_name_the_server(certs: Path) -> None:
    for name in ("server", "client"):
        assert "OK" in openssl(
            "verify", "-CAfile", str(certs / "ca.pem"), str(certs / f"{name}.pem")
        )
    server = openssl("x509", "-in", str(certs / "server.pem"), "-noout", "-text")
    assert "DNS:temporal" in server and "TLS Web Server Authentication" in server
    client = openssl("x509", "-in", str(certs / "client.pem"), "-noout", "-text")
    assert "TLS Web Client Authentication" in client
    assert (certs / "ca.key").stat().st_mode & 0o077 == 0  # the CA key stays private


def test_settings_load_into_the_clients_tls_configuration(certs: Path) -> None:
    settings = dataclasses.replace(
        load_settings(),
        temporal_tls_cert=str(certs / "client.pem"),
        temporal_tls_key=str(certs / "client.key"),
        temporal_tls_ca=str(certs / "ca.pem"),
        temporal_tls_server_name="temporal",
    )
    config = tls_config(settings)
    assert config is not None
    assert config.client_cert == (certs / "client.pem").read_bytes()
    assert config.client_private_key == (certs / "client.key").read_bytes()
    assert config.server_root_ca_cert == (certs / "ca.pem").read_bytes()
    assert config.domain == "temporal"


def test_no_setting_means_plain_grpc_and_a_partial_one_is_refused(certs: Path) -> None:
    plain = dataclasses.replace(
        load_settings(),
        temporal_tls_cert="",
        temporal_tls_key="",
        temporal_tls_ca="",
        temporal_tls_server_name="",
    )
    assert tls_config(plain) is None
    partial = dataclasses.replace(plain, temporal_tls_cert=str(certs / "client.pem"))
    with pytest.raises(TlsSettingError, match="CLEARANCE_TEMPORAL_TLS_KEY"):
        tls_config(partial)
    unreadable = dataclasses.replace(
        partial,
        temporal_tls_key=str(certs / "client.key"),
        temporal_tls_ca=str(certs / "missing.pem"),
    )
    with pytest.raises(TlsSettingError, match="CLEARANCE_TEMPORAL_TLS_CA: cannot read"):
        tls_config(unreadable)
    with pytest.raises(TlsSettingError, match="SERVER_NAME"):
        tls_config(dataclasses.replace(plain, temporal_tls_server_name="temporal"))
