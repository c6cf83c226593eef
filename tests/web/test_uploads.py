"""Evidence uploads: the size limit holds while the body streams (an oversized upload is
refused before it is read, so before anything is spooled), the type is judged by content,
and a refused upload (by the limit, the type check or the workflow) leaves no file."""

from __future__ import annotations

import asyncio
import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from models.database import make_engine
from settings import Settings
from tests.web.helpers import Browser, Stackish, csrf_of
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.app import create_app
from web.auth.accounts import Accounts
from web.uploads.evidence import evidence_dir, stored_path
from web.uploads.file_types import sniff

PM = "pm@cotati.example"
MB = 1024 * 1024


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


PART_HEAD = (
    b"--b\r\n"
    b'Content-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
    b"Content-Type: application/pdf\r\n\r\n%PDF-1.4 "
)


class Upload:
    """A client sending one file part of a multipart body in 64 KB pieces for as long as
    it is read."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.read = 0
        self.sent: list[dict] = []

    async def receive(self) -> dict:
        piece = min(64 * 1024, self.total - self.read)
        body = (PART_HEAD + b"x" * (piece - len(PART_HEAD))) if self.read == 0 else b"x" * piece
        self.read += piece
        return {"type": "http.request", "body": body, "more_body": self.read < self.total}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    @property
    def status(self) -> int:
        return next(m["status"] for m in self.sent if m["type"] == "http.response.start")


def _staff_cookie(settings: Settings) -> bytes:
    accounts = Accounts(make_engine(settings.database_url))
    user = accounts.add_user("uploader@test.example", "project_manager", "a long password")
    return f"clearance_session={accounts.start_session(user)}".encode()


def test_an_oversized_upload_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path, max_upload_mb=1)
    app = create_app(settings)
    upload = Upload(30 * MB)
    headers = [
        (b"content-type", b"multipart/form-data; boundary=b"),
        (b"content-length", str(30 * MB).encode()),
        (b"cookie", _staff_cookie(settings)),
    ]
    scope = _scope("/projects/P-1/conditions/1/submit-evidence", headers)
    asyncio.run(app(scope, upload.receive, upload.send))
    assert upload.status == 413
    assert upload.read == 0  # not read, so not spooled anywhere
    body = b"".join(m.get("body", b"") for m in upload.sent)
    assert b"larger than 1 MB" in body
    assert not evidence_dir(settings.data_dir).exists()


def test_an_upload_without_a_length_is_cut_off_at_the_limit(tmp_path: Path) -> None:
    """Chunked (or lying about its length): reading stops just past the limit and the
    parser's spooled file is closed; nothing reaches the evidence folder."""
    settings = standalone_settings(tmp_path, max_upload_mb=1)
    app = create_app(settings)
    upload = Upload(30 * MB)
    headers = [
        (b"content-type", b"multipart/form-data; boundary=b"),
        (b"transfer-encoding", b"chunked"),
        (b"cookie", _staff_cookie(settings)),
    ]
    scope = _scope("/projects/P-1/conditions/1/submit-evidence", headers)
    asyncio.run(app(scope, upload.receive, upload.send))
    assert upload.status == 413
    assert upload.read < 2 * MB  # 1 MB file + framing allowance, not 30 MB
    assert not any(evidence_dir(settings.data_dir).glob("**/*"))


def test_an_oversized_api_body_is_refused(tmp_path: Path) -> None:
    settings = standalone_settings(tmp_path)
    with standalone_client(settings) as client:
        response = client.post(
            "/api/v1/links",
            content=b"{" + b" " * (3 * MB) + b"}",
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 413
    assert "larger than" in response.json()["error"]


def test_an_upload_within_the_limit_still_logs_in_and_reaches_the_app(tmp_path: Path) -> None:
    """The limit refuses bodies, not ordinary requests: a log-in form goes through."""
    settings = standalone_settings(tmp_path)
    add_user(settings, "someone@test.example")
    with standalone_client(settings) as client:
        assert log_in(client, "someone@test.example").status_code == 303


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


DOCX = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"})


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("plan.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "application/pdf"),
        ("photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64, "image/jpeg"),
        ("site.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
        (
            "report.docx",
            DOCX,
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, "application/msword"),
        ("letter.txt", "Drainage report, révision C\n".encode(), "text/plain"),
        # The content decides, not the name: a PNG called .pdf is recorded as a PNG.
        ("named.pdf", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png"),
    ],
)
def test_accepted_types_are_recognised_by_content(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / "upload"
    path.write_bytes(content)
    assert sniff(path, name) == expected


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" + b"\x00" * 100, "portable-executable"),
        (b"<!DOCTYPE html><html><script>alert(1)</script></html>", "text/html"),
        (b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>", ""),
        (_zip({"payload.exe": b"MZ"}), "ZIP archive"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 100, ""),
    ],
)
def test_other_content_is_refused_whatever_it_is_called(
    tmp_path: Path, content: bytes, why: str
) -> None:
    from actions.errors import ActionFailed

    path = tmp_path / "upload"
    path.write_bytes(content)
    with pytest.raises(ActionFailed) as refused:
        sniff(path, "plan.pdf")
    assert refused.value.status == 415
    assert why in refused.value.message and "PDF" in refused.value.message


def _files(settings: Settings) -> list[Path]:
    folder = evidence_dir(settings.data_dir)
    return sorted(p for p in folder.glob("**/*") if p.is_file()) if folder.exists() else []


def test_a_forged_content_type_is_refused_and_leaves_no_file(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    pid = stack.new_project("FORGED")
    client = browser.as_(PM)
    page = client.get(f"/projects/{pid}/conditions/1")
    before = _files(web_settings)
    forged = b"<html><body><script>document.location='https://evil.example'</script>"
    refused = client.post(
        f"/projects/{pid}/conditions/1/submit-evidence",
        data={"csrf_token": csrf_of(page.text), "description": "Erosion control plan"},
        files={"file": ("plan.pdf", forged, "application/pdf")},
    )
    assert refused.status_code == 415, refused.text
    assert "not an accepted type" in refused.text and "text/html" in refused.text
    assert _files(web_settings) == before
    condition = browser.api(PM, "GET", f"/api/v1/projects/{pid}/conditions/1").json()
    assert condition["status"] == "open" and condition["evidence"] == []


def test_an_upload_the_workflow_refuses_leaves_no_file(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    """Condition #4 is conditional and not triggered: the workflow refuses evidence for it
    after the file was written and checked; the file must not stay behind."""
    pid = stack.new_project("WFREFUSE")
    client = browser.as_(PM)
    page = client.get(f"/projects/{pid}/conditions/4")
    content = b"%PDF-1.4 archaeology report " + pid.encode()
    refused = client.post(
        f"/projects/{pid}/conditions/4/submit-evidence",
        data={"csrf_token": csrf_of(page.text), "description": "Archaeology report"},
        files={"file": ("arch.pdf", content, "application/pdf")},
    )
    assert refused.status_code >= 400 and "Refused" in refused.text, refused.text
    assert not stored_path(web_settings.data_dir, hashlib.sha256(content).hexdigest()).exists()
    assert not list(evidence_dir(web_settings.data_dir).glob(".upload-*"))


def test_an_accepted_upload_is_stored_with_the_type_its_content_shows(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    from models.database import session_factory
    from models.schema import EvidenceFile

    pid = stack.new_project("TYPED")
    client = browser.as_(PM)
    page = client.get(f"/projects/{pid}/conditions/1")
    content = b"%PDF-1.4 erosion control plan " + pid.encode()
    done = client.post(
        f"/projects/{pid}/conditions/1/submit-evidence",
        data={"csrf_token": csrf_of(page.text), "description": "Erosion control plan"},
        # The client claims a Word file; the content is a PDF.
        files={"file": ("plan.pdf", content, "application/msword")},
    )
    assert done.status_code == 200 and 'class="flash ok"' in done.text, done.text
    sha = hashlib.sha256(content).hexdigest()
    assert stored_path(web_settings.data_dir, sha).read_bytes() == content
    with session_factory(make_engine(web_settings.database_url))() as s:
        row = s.query(EvidenceFile).filter_by(scope_id=pid).one()
    assert row.content_type == "application/pdf"
    assert not list(evidence_dir(web_settings.data_dir).glob(".upload-*"))
