"""mTLS to Temporal, end to end: the app's own `connect(settings)` (worker.py) reaches a
real Temporal dev server through a TLS endpoint that demands a client certificate, and
can start and describe a workflow; without a client certificate, or with one from
another CA, the handshake is refused.

The dev server has no TLS options, so a small TLS-terminating proxy stands in front of
it, as a load balancer or sidecar does in production (docs/deployment.md): it requires a
client certificate signed by the test's CA, speaks ALPN "h2" (gRPC) and forwards the
bytes. The certificates (a CA, the server's, a client's, and a client's from another CA)
are made here with `cryptography`, so the test proves the client side: the settings are
read, the certificate is presented, the server's is verified."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import ssl
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import TLSConfig

from settings import Settings, load_settings
from stack.ports import free_port
from stack.temporal_server import DevServer
from worker import connect

SERVER_NAME = "temporal"  # the name the app verifies, as with docker-compose.mtls.yml


@dataclasses.dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


class Authority:
    """A throwaway CA that issues server and client certificates into `folder`."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(_name(name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(self.key, hashes.SHA256())
        )
        self.pem = folder / f"{name}-ca.pem"
        self.pem.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, stem: str, common_name: str, server: bool) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(common_name)]), critical=False
            )
        cert = builder.sign(self.key, hashes.SHA256())
        issued = Issued(self.folder / f"{stem}.pem", self.folder / f"{stem}.key")
        issued.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        _write_key(key, issued.key)
        return issued


@dataclasses.dataclass
class Certificates:
    ca: Path
    server: Issued
    client: Issued
    stranger: Issued  # a client certificate signed by another CA


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    folder = tmp_path_factory.mktemp("mtls")
    city = Authority(folder, "city")
    other = Authority(folder, "other")
    return Certificates(
        ca=city.pem,
        server=city.issue("server", SERVER_NAME, server=True),
        client=city.issue("client", "clearance-worker", server=False),
        stranger=other.issue("stranger", "clearance-worker", server=False),
    )


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    server = DevServer(tmp_path_factory.mktemp("temporal") / "temporal.db", free_port(), None)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclasses.dataclass
class Proxy:
    port: int
    accepted: list[str]  # common names of verified client certificates
    refused: list[str]  # the TLS errors of refused handshakes


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


@pytest_asyncio.fixture
async def mtls_proxy(certificates: Certificates, dev_server: DevServer) -> AsyncIterator[Proxy]:
    """TLS in front of the dev server: a client certificate from the CA is required."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(certificates.ca))
    context.load_cert_chain(str(certificates.server.cert), str(certificates.server.key))
    context.verify_mode = ssl.CERT_REQUIRED
    context.set_alpn_protocols(["h2"])
    proxy = Proxy(free_port(), [], [])
    host, port = dev_server.address.rsplit(":", 1)

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter):
        # The handshake here, not in start_server: asyncio only logs a refused one there.
        try:
            await client_writer.start_tls(context)
        except (ssl.SSLError, ConnectionError) as err:
            proxy.refused.append(getattr(err, "reason", None) or str(err))
            client_writer.close()
            return
        subject = dict(pair[0] for pair in client_writer.get_extra_info("peercert")["subject"])
        proxy.accepted.append(subject["commonName"])
        server_reader, server_writer = await asyncio.open_connection(host, int(port))
        await asyncio.gather(
            _pipe(client_reader, server_writer), _pipe(server_reader, client_writer)
        )

    server = await asyncio.start_server(handle, "127.0.0.1", proxy.port)
    try:
        yield proxy
    finally:
        server.close()
        await server.wait_closed()


def _settings(proxy: Proxy, ca: Path, client: Issued | None) -> Settings:
    return dataclasses.replace(
        load_settings(),
        temporal_address=f"127.0.0.1:{proxy.port}",
        temporal_namespace="default",
        temporal_tls_cert=str(client.cert) if client else "",
        temporal_tls_key=str(client.key) if client else "",
        temporal_tls_ca=str(ca),
        temporal_tls_server_name=SERVER_NAME,
        payload_key="",
    )


async def test_the_apps_connect_reaches_temporal_over_mtls_and_runs_a_workflow(
    certificates: Certificates, mtls_proxy: Proxy
) -> None:
    client = await connect(_settings(mtls_proxy, certificates.ca, certificates.client))
    workflow_id = f"mtls-{uuid.uuid4()}"
    # No worker polls this queue: the workflow stays running, which is all we need to
    # show the server accepted the start and answers about it through the TLS hop.
    handle = await client.start_workflow(
        "MtlsProbe", id=workflow_id, task_queue=f"mtls-{uuid.uuid4()}"
    )
    try:
        described = await handle.describe()
        assert described.id == workflow_id
        assert described.status == WorkflowExecutionStatus.RUNNING
    finally:
        await handle.terminate(reason="test over")
    assert "clearance-worker" in mtls_proxy.accepted  # the client certificate was verified


async def test_without_a_client_certificate_the_handshake_is_refused(
    certificates: Certificates, mtls_proxy: Proxy
) -> None:
    # The app's settings cannot even express this (all three files or none, see
    # test_temporal_tls.py); a client that trusts the server but presents nothing:
    config = TLSConfig(server_root_ca_cert=certificates.ca.read_bytes(), domain=SERVER_NAME)
    with pytest.raises(RuntimeError) as refused:
        await Client.connect(f"127.0.0.1:{mtls_proxy.port}", tls=config)
    message = str(refused.value)
    # Under TLS 1.3 the server judges the client's certificate after the client has
    # finished its half of the handshake, so the client sees its connection torn down
    # and the server names the reason.
    assert message.startswith("Failed client connect"), message
    assert mtls_proxy.accepted == []
    assert set(mtls_proxy.refused) == {"PEER_DID_NOT_RETURN_A_CERTIFICATE"}  # per attempt
    assert mtls_proxy.accepted == []
    assert any("CERTIFICATE" in reason for reason in mtls_proxy.refused), mtls_proxy.refused


async def test_a_client_certificate_from_another_ca_is_refused(
    certificates: Certificates, mtls_proxy: Proxy
) -> None:
    settings = _settings(mtls_proxy, certificates.ca, certificates.stranger)
    with pytest.raises(RuntimeError) as refused:
        await connect(settings)
    assert str(refused.value).startswith("Failed client connect"), refused.value
    assert mtls_proxy.accepted == []
    assert set(mtls_proxy.refused) == {"CERTIFICATE_VERIFY_FAILED"}  # per attempt


async def test_a_server_certificate_the_ca_did_not_sign_is_refused_by_the_app(
    certificates: Certificates, mtls_proxy: Proxy, tmp_path: Path
) -> None:
    # The other side of mutual: the app trusts only its configured CA, so a server (or a
    # man in the middle) with another CA's certificate is not spoken to.
    other = Authority(tmp_path, "elsewhere")
    settings = _settings(mtls_proxy, other.pem, certificates.client)
    with pytest.raises(RuntimeError) as refused:
        await connect(settings)
    assert "InvalidCertificate(UnknownIssuer)" in str(refused.value), refused.value
    assert mtls_proxy.accepted == []
