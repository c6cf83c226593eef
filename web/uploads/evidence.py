"""Uploaded evidence files: stored under the data folder by their sha256 (the same file
twice is stored once), and recorded in the evidence_files table.

An upload is first written to a staging file beside the store. It reaches the store only
when the caller keeps it (after the workflow accepted the submission); a refused, failed or
abandoned upload removes its staging file, so nothing it sent stays on disk. The type
recorded is the one its content shows (web/uploads/file_types.py), never the client's word."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from models.schema import EvidenceFile
from web.auth.accounts import now
from web.uploads.file_types import sniff

DEFAULT_MAX_BYTES = 25 * 1024 * 1024
CHUNK = 1024 * 1024
STAGING_PREFIX = ".upload-"
# A staging file this old was left by a process that died mid-upload.
STALE_STAGING_S = 3600


def evidence_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "evidence"


def stored_path(data_dir: Path, sha256: str) -> Path:
    return evidence_dir(data_dir) / sha256[:2] / sha256


def clean_name(name: str) -> str:
    """A file name without folders or control characters, as the uploader called it."""
    base = os.path.basename((name or "").replace("\\", "/"))
    base = re.sub(r"[\x00-\x1f\x7f]", "", base).strip()
    return base[:200] or "evidence"


@dataclass
class StagedUpload:
    """An upload written and checked, not yet in the store."""

    staging: Path
    target: Path
    sha256: str
    size: int
    filename: str
    content_type: str  # what the content is, e.g. application/pdf
    kept: bool = False

    def keep(self) -> None:
        """Move the file into the store (once the submission was accepted)."""
        self.target.parent.mkdir(parents=True, exist_ok=True)
        # The same content stored before: the staging copy is simply dropped.
        if self.target.exists():
            self.staging.unlink(missing_ok=True)
        else:
            os.replace(self.staging, self.target)
        self.kept = True


def _remove_stale_staging(folder: Path) -> None:
    cutoff = time.time() - STALE_STAGING_S
    for path in folder.glob(STAGING_PREFIX + "*"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
        except FileNotFoundError:
            continue


@asynccontextmanager
async def staged_upload(
    data_dir: Path, upload: UploadFile, max_bytes: int = DEFAULT_MAX_BYTES
) -> AsyncIterator[StagedUpload]:
    """Write and check `upload`; on leaving the block its staging file is gone, in the
    store if `keep()` was called, else deleted (refused, failed or abandoned)."""
    folder = evidence_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_staging(folder)
    staging = folder / f"{STAGING_PREFIX}{secrets.token_hex(8)}"
    digest = hashlib.sha256()
    size = 0
    try:
        with open(staging, "wb") as out:
            while chunk := await upload.read(CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise ActionFailed(
                        f"the file is larger than {max_bytes // (1024 * 1024)} MB", 413
                    )
                digest.update(chunk)
                out.write(chunk)
        if size == 0:
            raise ActionFailed("the file is empty: choose the document to upload", 400)
        filename = clean_name(upload.filename or "")
        content_type = sniff(staging, filename)
        sha = digest.hexdigest()
        yield StagedUpload(
            staging=staging,
            target=stored_path(data_dir, sha),
            sha256=sha,
            size=size,
            filename=filename,
            content_type=content_type,
        )
    finally:
        staging.unlink(missing_ok=True)


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
