"""Uploaded evidence files: stored under the data folder by their sha256 (the same file
twice is stored once), and recorded in the evidence_files table."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from models.schema import EvidenceFile
from web.accounts import now

MAX_BYTES = 25 * 1024 * 1024
CHUNK = 1024 * 1024


def evidence_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "evidence"


def stored_path(data_dir: Path, sha256: str) -> Path:
    return evidence_dir(data_dir) / sha256[:2] / sha256


def clean_name(name: str) -> str:
    """A file name without folders or control characters, as the uploader called it."""
    base = os.path.basename((name or "").replace("\\", "/"))
    base = re.sub(r"[\x00-\x1f\x7f]", "", base).strip()
    return base[:200] or "evidence"


async def store_upload(data_dir: Path, upload: UploadFile) -> tuple[str, int, str]:
    """Write the upload to its sha256 path; returns (sha256, size, clean file name)."""
    digest = hashlib.sha256()
    folder = evidence_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".upload-{os.getpid()}-{id(upload)}"
    size = 0
    try:
        with open(temp, "wb") as out:
            while chunk := await upload.read(CHUNK):
                size += len(chunk)
                if size > MAX_BYTES:
                    raise ActionFailed(
                        f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB", 413
                    )
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise ActionFailed("the file is empty: choose the document to upload", 400)
        sha = digest.hexdigest()
        target = stored_path(data_dir, sha)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return sha, size, clean_name(upload.filename or "")


def record_file(
    sessions: sessionmaker[Session],
    *,
    scope: str,
    scope_id: str,
    condition_number: str | None,
    filename: str,
    content_type: str,
    size: int,
    sha256: str,
    uploaded_by: str,
    link_id: str | None = None,
) -> EvidenceFile:
    with sessions.begin() as session:
        row = EvidenceFile(
            scope=scope,
            scope_id=scope_id,
            condition_number=condition_number,
            filename=filename,
            content_type=content_type[:100],
            size=size,
            sha256=sha256,
            uploaded_by=uploaded_by,
            link_id=link_id,
            uploaded_at=now(),
        )
        session.add(row)
    return row
