"""Resolution uploads survive the app's several processes: a job read by one process is
seen, reviewed and imported from another (the browser's next request may land anywhere)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from actions.errors import ActionFailed
from web.uploads.resolution_import import JOB_TTL_SECONDS, ImportJobs

CORPUS = Path(__file__).resolve().parents[2] / "rules" / "conditions" / "corpus"
COUNTY = (CORPUS / "county_board.txt").read_text("utf-8")
PM = "pm@cotati.example"


def test_a_job_read_in_one_process_is_reviewed_from_another(tmp_path: Path) -> None:
    folder = tmp_path / "import-jobs"
    reading, other = ImportJobs(folder), ImportJobs(folder)
    job = reading.start(PM, "county.txt", COUNTY.encode(), wait=True)
    seen = other.get(job.job_id, PM)
    assert seen.state == "ready" and seen.filename == "county.txt"
    assert seen.parsed is not None
    assert [c.number for c in seen.parsed.conditions] == [
        c.number
        for c in job.parsed.conditions  # type: ignore[union-attr]
    ]
    # Someone else's upload stays theirs in every process.
    with pytest.raises(ActionFailed, match="no longer here"):
        other.get(job.job_id, "manager@cotati.example")
    # Imported from the other process: gone from both, so it cannot be imported twice.
    other.finish(job.job_id)
    with pytest.raises(ActionFailed, match="no longer here"):
        reading.get(job.job_id, PM)


def test_a_failed_read_says_why_everywhere(tmp_path: Path) -> None:
    folder = tmp_path / "import-jobs"
    job = ImportJobs(folder).start(PM, "note.txt", b"Dear neighbour, see you Saturday.", wait=True)
    seen = ImportJobs(folder).get(job.job_id, PM)
    assert seen.state == "failed" and seen.error == job.error and seen.error


def test_old_jobs_expire_and_odd_ids_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "import-jobs"
    jobs = ImportJobs(folder)
    job = jobs.start(PM, "county.txt", COUNTY.encode(), wait=True)
    stored = folder / f"{job.job_id}.job"
    old = time.time() - JOB_TTL_SECONDS - 60
    os.utime(stored, (old, old))
    with pytest.raises(ActionFailed, match="no longer here"):
        ImportJobs(folder).get(job.job_id, PM)
    assert not stored.exists()
    with pytest.raises(ActionFailed, match="no longer here"):
        jobs.get("../../secret_key", PM)
