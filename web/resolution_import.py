"""Importing a resolution from the web app and the API: upload, review, correct, import.

The core is `import_resolution`: a reviewed parse, the staff's corrections (each becomes an
audit event, as the CLI's `--set`), and the target (a new project, or an existing one whose
workflow takes the further conditions with the `import_conditions` update). The role check
comes first and nothing is stored until the workflow accepts the import.

Reading a file is an `ImportJob`: a PDF is read page by page in a thread while the page
shows its progress (pages read of pages in all); a file that is unreadable, not a
resolution, or without conditions ends the job with one sentence and stores nothing.
Jobs live in memory for two hours: an upload that was never imported leaves no trace.
"""

from __future__ import annotations

import copy
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.conditions import Actor, ImportConditionsInput, ParsedResolution
from models.schema import ConditionRow, Project
from rules.access import Principal, require
from rules.conditions.onboarding import (
    CorrectionError,
    apply_corrections,
    condition_states,
    new_project,
    with_prefix,
)
from rules.conditions.parser import ResolutionError, read_resolution
from rules.packs import JURISDICTIONS, jurisdiction
from web.actions import ActionFailed
from web.readmodel import wait_for

MAX_RESOLUTION_BYTES = 30 * 1024 * 1024
JOB_TTL_SECONDS = 2 * 3600
JOBS_PER_USER = 10
_PROJECT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,9}$")
CORRECTABLE = ("gates", "kind", "department", "time_limits")


def default_jurisdiction() -> str:
    """The first jurisdiction of the data that is not the federal baseline."""
    keys = [k for k in JURISDICTIONS if k != "federal"]
    return keys[0] if keys else next(iter(JURISDICTIONS))


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


# -- importing -----------------------------------------------------------------------------------


@dataclass
class ResolutionImportInput:
    """Where the reviewed resolution goes and what staff corrected on the way."""

    project_id: str
    existing: bool = False  # add to an existing project instead of starting a new one
    name: str = ""
    project_manager_email: str = ""
    applicant_email: str = ""
    applicant_name: str = ""
    jurisdiction: str = ""
    # {number: {"gates"|"kind"|"department"|"time_limits": value}} as the CLI's --set
    corrections: dict[str, dict[str, str]] = field(default_factory=dict)
    prefix: str = ""  # numbers the further conditions apart: "A-" gives "A-1"
    approved_on: str | None = None  # the adoption date when the parse found none


@dataclass
class ImportOutcome:
    project_id: str
    conditions: int
    corrections: list[str]
    warnings: list[str]
    existing: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "conditions": self.conditions,
            "corrections": self.corrections,
            "warnings": self.warnings,
            "existing": self.existing,
        }


def _bad(message: str) -> ActionFailed:
    return ActionFailed(message, 400)


def changed_corrections(
    parsed: ParsedResolution, submitted: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    """Only what differs from the parse: a review form sends every row back as shown."""
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
            "department": department_key(spec.department) if not spec.code else "environmental",
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


async def import_resolution(
    operations: Any, who: Principal, parsed: ParsedResolution, spec: ResolutionImportInput
) -> ImportOutcome:
    """Corrections, then a new project or the existing project's `import_conditions`; a
    refusal (role, field, correction, taken number, existing project) stores nothing."""
    require(who, "project.import")
    project_id = spec.project_id.strip()
    if not _PROJECT_ID.match(project_id):
        raise _bad("project id: letters, digits, '.', '_' or '-', up to 60 (e.g. UP-25-012)")
    if spec.prefix and not _PREFIX.match(spec.prefix):
        raise _bad("number prefix: up to 10 letters, digits, '.' or '-' (e.g. A-)")
    if spec.approved_on and not re.match(r"^\d{4}-\d{2}-\d{2}$", spec.approved_on):
        raise _bad("approved on: give the adoption date as YYYY-MM-DD")
    parsed = copy.deepcopy(parsed)
    try:
        notes, departments = apply_corrections(parsed, spec.corrections)
    except CorrectionError as err:
        raise _bad(
            str(err).replace("--set ", "correction ").replace("--set", "correction")
        ) from None
    if spec.prefix:
        departments = {f"{spec.prefix}{n}": d for n, d in departments.items()}
        notes = [re.sub(r"^#", f"#{spec.prefix}", n) for n in notes]
        with_prefix(parsed, spec.prefix)
    approved_on = spec.approved_on or parsed.adopted
    sessions = operations._sessions  # noqa: SLF001 - the read model's session factory
    with sessions() as db:
        exists = db.get(Project, project_id) is not None
    actor = Actor(who.email, who.role, who.department)
    numbers = [c.number for c in parsed.conditions]
    if spec.existing:
        if not exists:
            raise ActionFailed(f"there is no project {project_id} to add the conditions to", 404)
        payload = ImportConditionsInput(
            actor,
            condition_states(parsed, departments, approved_on),
            parsed.title,
            list(parsed.warnings),
            notes,
            approved_on,
        )
        await operations.gateway.project_update(project_id, "import_conditions", payload)
    else:
        if exists:
            raise ActionFailed(
                f"project {project_id} already exists: choose another id, or add the "
                "conditions to it as an existing project",
                409,
            )
        missing = [
            label
            for label, value in (
                ("project name", spec.name),
                ("project manager's e-mail", spec.project_manager_email),
                ("applicant's e-mail", spec.applicant_email),
            )
            if not value.strip()
        ]
        if missing:
            raise _bad(f"a new project needs: {', '.join(missing)}")
        for label, value in (
            ("project manager's e-mail", spec.project_manager_email),
            ("applicant's e-mail", spec.applicant_email),
        ):
            if not _EMAIL.match(value.strip()):
                raise _bad(f"{label}: {value!r} is not an e-mail address")
        try:
            city = jurisdiction(spec.jurisdiction or default_jurisdiction())
        except ValueError as err:
            raise _bad(f"jurisdiction: {err}") from None
        start = new_project(
            parsed,
            project_id=project_id,
            name=spec.name.strip(),
            city=city,
            applicant_name=spec.applicant_name.strip(),
            applicant_email=spec.applicant_email.strip(),
            project_manager_email=spec.project_manager_email.strip(),
            department_overrides=departments,
            notes=notes,
            imported_by=who.email,
            approved_on=approved_on,
        )
        await start_project(operations.gateway, start)

    def recorded() -> bool:
        with sessions() as db:
            count = db.scalar(
                select(func.count())
                .select_from(ConditionRow)
                .where(ConditionRow.project_id == project_id, ConditionRow.number.in_(numbers))
            )
        return count == len(numbers)

    await wait_for(recorded, timeout=15.0)
    return ImportOutcome(project_id, len(numbers), notes, list(parsed.warnings), spec.existing)


async def start_project(gateway: Any, start: Any) -> None:
    """Start the project's workflow; a taken id is refused, nothing else is touched."""
    from workflows.project import ProjectWorkflow, project_workflow_id

    client = await gateway.client()
    try:
        await client.start_workflow(
            ProjectWorkflow.run,
            start,
            id=project_workflow_id(start.info.project_id),
            task_queue=gateway.task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        )
    except WorkflowAlreadyStartedError:
        raise ActionFailed(
            f"project {start.info.project_id} already exists (its workflow is running)", 409
        ) from None
    except Exception as err:  # noqa: BLE001 - the server's answer becomes the message
        raise ActionFailed(f"the project could not be started: {err}", 503) from None
