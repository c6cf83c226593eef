"""Importing a resolution from the web app and the API: upload, review, correct, import.

The import itself is the action layer's `import_project` (actions/projects.py): a reviewed
parse, the staff's corrections (each an audit event, as the CLI's `--set`) and the target (a
new project, or an existing one whose workflow takes the further conditions with its
`import_conditions` update). This module reads the uploaded file and keeps the parse while
staff review it.

Reading a file is an `ImportJob`: a PDF is read page by page in a thread while the page
shows its progress (pages read of pages in all, then for a scanned PDF the pages
recognised by OCR); a file that is unreadable, not a
resolution, or without conditions ends the job with one sentence and stores nothing.
Jobs live for two hours: an upload that was never imported leaves no trace. The app runs
several processes (`clearance web --workers`), and a browser's next request may reach
another one, so each job is also kept as a file in the data folder (`import-jobs/`), written
by the process reading it at every page, and read back by any other.
"""

from __future__ import annotations

import os
import pickle
import re
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actions.errors import ActionFailed
from actions.resolution_files import ResolutionError, read_resolution
from models.conditions import ParsedResolution

if TYPE_CHECKING:
    from starlette.datastructures import UploadFile

MAX_RESOLUTION_BYTES = 30 * 1024 * 1024
JOB_TTL_SECONDS = 2 * 3600
JOBS_PER_USER = 10
CORRECTABLE = ("gates", "kind", "department", "time_limits")
_JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


async def read_upload(upload: UploadFile) -> bytes:
    """The uploaded file's bytes: the body is already bounded by web/middleware/
    body_limit.py (CLEARANCE_MAX_UPLOAD_MB); this is the resolution reader's own ceiling."""
    data = await upload.read(MAX_RESOLUTION_BYTES + 1)
    if len(data) > MAX_RESOLUTION_BYTES:
        raise ActionFailed(
            f"the file is larger than {MAX_RESOLUTION_BYTES // (1024 * 1024)} MB", 413
        )
    return data


# -- reading the file ---------------------------------------------------------------------------


@dataclass
class ImportJob:
    job_id: str
    owner: str
    filename: str
    started: float  # time.time(): every process compares it
    state: str = "reading"  # reading | ready | failed
    pages_done: int = 0
    pages_total: int = 0
    stage: str = "read"  # read | recognised (OCR of a scanned PDF's pages)
    error: str = ""
    parsed: ParsedResolution | None = None

    @property
    def percent(self) -> int:
        if self.state != "reading":
            return 100
        return int(100 * self.pages_done / self.pages_total) if self.pages_total else 0

    def status(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "filename": self.filename,
            "state": self.state,
            "pages_done": self.pages_done,
            "pages_total": self.pages_total,
            "stage": self.stage,
            "percent": self.percent,
            "error": self.error or None,
        }


class ImportJobs:
    """Uploaded resolutions being read or waiting for review, per user: in memory, and in
    `folder` (when given) for the app's other processes."""

    def __init__(self, folder: Path | None = None) -> None:
        self._jobs: dict[str, ImportJob] = {}
        self._lock = threading.Lock()
        self._folder = folder

    # -- the shared folder (the app's own files, written here: pickle is safe to read back)

    def _file(self, job_id: str) -> Path | None:
        if self._folder is None or not _JOB_ID.match(job_id):
            return None
        return self._folder / f"{job_id}.job"

    def _save(self, job: ImportJob) -> None:
        path = self._file(job.job_id)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            pickle.dump(job, out)
        os.replace(tmp, path)  # a reader never sees half a job

    def _load(self, job_id: str) -> ImportJob | None:
        path = self._file(job_id)
        if path is None:
            return None
        try:
            with open(path, "rb") as stored:
                job = pickle.load(stored)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None
        return job if isinstance(job, ImportJob) else None

    def _stored(self) -> list[ImportJob]:
        if self._folder is None or not self._folder.is_dir():
            return []
        jobs = (self._load(p.stem) for p in self._folder.glob("*.job"))
        return [j for j in jobs if j is not None]

    def _drop(self, job_id: str) -> None:
        self._jobs.pop(job_id, None)
        path = self._file(job_id)
        if path is not None:
            path.unlink(missing_ok=True)

    def _expire(self) -> None:
        cutoff = time.time() - JOB_TTL_SECONDS
        for job_id in [j for j, job in self._jobs.items() if job.started < cutoff]:
            self._drop(job_id)
        if self._folder is not None and self._folder.is_dir():
            for path in self._folder.glob("*.job"):  # a job's file is last written as it is read
                try:
                    if path.stat().st_mtime < cutoff:
                        path.unlink(missing_ok=True)
                except OSError:
                    continue

    # -- jobs

    def start(self, owner: str, filename: str, data: bytes, *, wait: bool = False) -> ImportJob:
        """Read `data` in a thread (or now, with `wait`); the job tells how far it got."""
        if not data:
            raise ActionFailed("the file is empty: choose the resolution to upload", 400)
        if len(data) > MAX_RESOLUTION_BYTES:
            raise ActionFailed(
                f"the file is larger than {MAX_RESOLUTION_BYTES // (1024 * 1024)} MB", 413
            )
        job = ImportJob(secrets.token_urlsafe(12), owner, filename or "resolution", time.time())
        with self._lock:
            self._expire()
            known = {**{j.job_id: j for j in self._stored()}, **self._jobs}
            mine = sorted((j for j in known.values() if j.owner == owner), key=lambda j: j.started)
            for old in mine[: max(0, len(mine) - JOBS_PER_USER + 1)]:
                self._drop(old.job_id)
            self._jobs[job.job_id] = job
            self._save(job)
        if wait:
            self._read(job, data)
        else:
            threading.Thread(target=self._read, args=(job, data), daemon=True).start()
        return job

    def _read(self, job: ImportJob, data: bytes) -> None:
        def progress(done: int, total: int, stage: str = "read") -> None:
            self._update(job, pages_done=done, pages_total=total, stage=stage)

        try:
            parsed = read_resolution(data, job.filename, progress=progress)
            self._update(job, parsed=parsed, state="ready")
        except ResolutionError as err:
            self._update(job, error=str(err), state="failed")
        except Exception as err:  # noqa: BLE001 - any parser failure is the user's answer
            self._update(job, error=f"cannot read the file ({type(err).__name__})", state="failed")

    def _update(self, job: ImportJob, **changes: Any) -> None:
        """Change a job and its file together (a job finished meanwhile stays finished)."""
        with self._lock:
            for name, value in changes.items():
                setattr(job, name, value)
            if job.job_id in self._jobs:
                self._save(job)

    def get(self, job_id: str, owner: str) -> ImportJob:
        with self._lock:
            self._expire()
            job = self._jobs.get(job_id)
            if self._folder is not None:
                # Another process may have read it, or imported it (and removed its file).
                stored = self._load(job_id)
                if stored is None:
                    self._jobs.pop(job_id, None)
                job = None if stored is None else job or stored
        if job is None or job.owner != owner:
            raise ActionFailed(
                "this upload is no longer here (uploads are kept two hours): upload it again",
                404,
            )
        return job

    def finish(self, job_id: str) -> None:
        with self._lock:
            self._drop(job_id)


# -- reviewing ------------------------------------------------------------------------------------


def changed_corrections(
    parsed: ParsedResolution, submitted: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    """Only what differs from the parse: a review form sends every row back as shown, and
    only a change is a correction (each one becomes an audit event)."""
    from rules.conditions.lifecycle import department_key
    from rules.conditions.time_limits import compact

    by_number = {c.number: c for c in parsed.conditions}
    out: dict[str, dict[str, str]] = {}
    for number, fields in submitted.items():
        spec = by_number.get(number)
        if spec is None:
            out[number] = dict(fields)  # apply_corrections names the unknown number
            continue
        shown = {
            "gates": ",".join(spec.gates),
            "kind": spec.kind,
            "department": "environmental" if spec.code else department_key(spec.department),
            "time_limits": "; ".join(compact(t) for t in spec.time_limits) or "none",
        }
        for name, value in fields.items():
            value = str(value).strip()
            if name not in CORRECTABLE:
                out.setdefault(number, {})[name] = value
            elif name == "gates":
                if ",".join(g for g in re.split(r"[,\s]+", value) if g) != shown["gates"]:
                    out.setdefault(number, {})[name] = value
            elif name == "time_limits":
                if (value or "none") != shown["time_limits"]:
                    out.setdefault(number, {})[name] = value
            elif value and value != shown[name]:
                out.setdefault(number, {})[name] = value
    return out
