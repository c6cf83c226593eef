"""Importing a resolution from the web app and the API: upload, review, correct, import.

The import itself is the action layer's `import_project` (actions/projects.py): a reviewed
parse, the staff's corrections (each an audit event, as the CLI's `--set`) and the target (a
new project, or an existing one whose workflow takes the further conditions with its
`import_conditions` update). This module reads the uploaded file and keeps the parse while
staff review it.

Reading a file is an `ImportJob`: a PDF is read page by page in a thread while the page
shows its progress (pages read of pages in all); a file that is unreadable, not a
resolution, or without conditions ends the job with one sentence and stores nothing.
Jobs live in memory for two hours: an upload that was never imported leaves no trace.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from actions.errors import ActionFailed
from models.conditions import ParsedResolution
from rules.conditions.parser import ResolutionError, read_resolution

MAX_RESOLUTION_BYTES = 30 * 1024 * 1024
JOB_TTL_SECONDS = 2 * 3600
JOBS_PER_USER = 10
CORRECTABLE = ("gates", "kind", "department", "time_limits")


# -- reading the file ---------------------------------------------------------------------------


@dataclass
class ImportJob:
    job_id: str
    owner: str
    filename: str
    started: float
    state: str = "reading"  # reading | ready | failed
    pages_done: int = 0
    pages_total: int = 0
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
            "percent": self.percent,
            "error": self.error or None,
        }


class ImportJobs:
    """Uploaded resolutions being read or waiting for review, per user, in memory."""

    def __init__(self) -> None:
        self._jobs: dict[str, ImportJob] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        cutoff = time.monotonic() - JOB_TTL_SECONDS
        for job_id in [j for j, job in self._jobs.items() if job.started < cutoff]:
            del self._jobs[job_id]

    def start(self, owner: str, filename: str, data: bytes, *, wait: bool = False) -> ImportJob:
        """Read `data` in a thread (or now, with `wait`); the job tells how far it got."""
        if not data:
            raise ActionFailed("the file is empty: choose the resolution to upload", 400)
        if len(data) > MAX_RESOLUTION_BYTES:
            raise ActionFailed(
                f"the file is larger than {MAX_RESOLUTION_BYTES // (1024 * 1024)} MB", 413
            )
        job = ImportJob(
            secrets.token_urlsafe(12), owner, filename or "resolution", time.monotonic()
        )
        with self._lock:
            self._expire()
            mine = sorted(
                (j for j in self._jobs.values() if j.owner == owner), key=lambda j: j.started
            )
            for old in mine[: max(0, len(mine) - JOBS_PER_USER + 1)]:
                del self._jobs[old.job_id]
            self._jobs[job.job_id] = job
        if wait:
            self._read(job, data)
        else:
            threading.Thread(target=self._read, args=(job, data), daemon=True).start()
        return job

    @staticmethod
    def _read(job: ImportJob, data: bytes) -> None:
        def progress(done: int, total: int) -> None:
            job.pages_done, job.pages_total = done, total

        try:
            job.parsed = read_resolution(data, job.filename, progress=progress)
            job.state = "ready"
        except ResolutionError as err:
            job.error, job.state = str(err), "failed"
        except Exception as err:  # noqa: BLE001 - any parser failure is the user's answer
            job.error, job.state = f"cannot read the file ({type(err).__name__})", "failed"

    def get(self, job_id: str, owner: str) -> ImportJob:
        with self._lock:
            self._expire()
            job = self._jobs.get(job_id)
        if job is None or job.owner != owner:
            raise ActionFailed(
                "this upload is no longer here (uploads are kept two hours): upload it again",
                404,
            )
        return job

    def finish(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)


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
