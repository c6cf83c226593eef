"""Mail over TLS against a real aiosmtpd server with a certificate made for the test:
implicit TLS (port 465 style) and STARTTLS deliver and log in; the server's certificate is
checked; a login is never sent without TLS unless a setting allows it."""

from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from activities.mail import (
    NOTICE_KEY_HEADER,
    PlainAuthRefused,
    SmtpTransport,
    tls_context,
    transport_from_settings,
)
from settings import load_settings

USER, PASSWORD = "clearance", "relay-password"


@dataclasses.dataclass
class Certificate:
    cert: Path
    key: Path


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 and localhost, made now."""
    folder = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    paths = Certificate(folder / "cert.pem", folder / "key.pem")
    paths.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


class Server:
    """aiosmtpd that keeps what it accepts and who logged in, and whether over TLS."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.logins: list[tuple[str, bool]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(envelope.content)
        return "250 Message accepted for delivery"

    def authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:  # type: ignore[no-untyped-def]
        ok = isinstance(auth_data, LoginPassword) and (
            auth_data.login.decode(),
            auth_data.password.decode(),
        ) == (USER, PASSWORD)
        if ok:
            # Whether this connection is encrypted, as the server's own socket says.
            encrypted = server.transport.get_extra_info("ssl_object") is not None
            self.logins.append((auth_data.login.decode(), encrypted))
        return AuthResult(success=ok)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_context(certificate: Certificate) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate.cert, certificate.key)
    return context


@pytest.fixture
def implicit_tls(certificate: Certificate) -> Iterator[tuple[Server, int]]:
    server, port = Server(), free_port()
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        ssl_context=server_context(certificate),
        authenticator=server.authenticate,
        # aiosmtpd's own TLS check knows only STARTTLS; this whole connection is TLS.
        auth_require_tls=False,
    )
    controller.start()
    yield server, port
    controller.stop()


@pytest.fixture
def starttls(certificate: Certificate) -> Iterator[tuple[Server, int]]:
    server, port = Server(), free_port()
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        tls_context=server_context(certificate),
        require_starttls=True,
        authenticator=server.authenticate,
        auth_require_tls=True,
    )
    controller.start()
    yield server, port
    controller.stop()


@pytest.fixture
def plain() -> Iterator[tuple[Server, int]]:
    server, port = Server(), free_port()
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        authenticator=server.authenticate,
        auth_require_tls=False,
    )
    controller.start()
    yield server, port
    controller.stop()


def message(key: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "clearance@city.example"
    msg["To"] = "applicant@carrier.example"
    msg["Subject"] = "Notice of incompleteness"
    msg["Message-ID"] = f"<{key}@clearance>"
    msg[NOTICE_KEY_HEADER] = key
    msg.set_content("Items B and C are missing.")
    return msg


def test_implicit_tls_delivers_and_logs_in_over_tls(
    implicit_tls: tuple[Server, int], certificate: Certificate
) -> None:
    server, port = implicit_tls
    settings = dataclasses.replace(
        load_settings(),
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_user=USER,
        smtp_password=PASSWORD,
        smtp_ssl=True,
        smtp_ca_file=str(certificate.cert),
    )
    transport = transport_from_settings(settings)
    transport.journal = None  # type: ignore[attr-defined]
    location = transport.deliver(message("implicit-1"))
    assert location.startswith(f"smtp://127.0.0.1:{port}/")
    assert server.logins == [(USER, True)]
    assert len(server.messages) == 1 and b"Items B and C are missing." in server.messages[0]


def test_starttls_delivers_and_logs_in_over_tls(
    starttls: tuple[Server, int], certificate: Certificate
) -> None:
    server, port = starttls
    transport = SmtpTransport(
        "127.0.0.1",
        port,
        USER,
        PASSWORD,
        starttls=True,
        tls_context=tls_context(str(certificate.cert)),
    )
    transport.deliver(message("starttls-1"))
    assert server.logins == [(USER, True)] and len(server.messages) == 1


def test_an_unknown_certificate_is_refused_before_anything_is_sent(
    implicit_tls: tuple[Server, int],
) -> None:
    server, port = implicit_tls
    transport = SmtpTransport("127.0.0.1", port, USER, PASSWORD, ssl=True)  # system CAs only
    with pytest.raises(ssl.SSLCertVerificationError):
        transport.deliver(message("untrusted-1"))
    assert server.logins == [] and server.messages == []


def test_a_login_without_tls_is_refused_unless_allowed(plain: tuple[Server, int]) -> None:
    server, port = plain
    with pytest.raises(PlainAuthRefused, match="CLEARANCE_SMTP_ALLOW_PLAIN_AUTH"):
        SmtpTransport("127.0.0.1", port, USER, PASSWORD)
    settings = dataclasses.replace(
        load_settings(), smtp_host="127.0.0.1", smtp_port=port, smtp_user=USER
    )
    with pytest.raises(PlainAuthRefused):
        transport_from_settings(settings)
    assert server.logins == []

    allowed = SmtpTransport("127.0.0.1", port, USER, PASSWORD, allow_plain_auth=True)
    allowed.deliver(message("plain-1"))
    assert server.logins == [(USER, False)] and len(server.messages) == 1


def test_without_a_login_plain_smtp_still_delivers(plain: tuple[Server, int]) -> None:
    server, port = plain
    SmtpTransport("127.0.0.1", port).deliver(message("anonymous-1"))
    assert len(server.messages) == 1 and server.logins == []
