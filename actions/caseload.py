"""Importing a department's existing caseload (`actions.caseload`, docs/onboarding.md):
preview a file, then import it, with its progress and its errors kept in
`caseload_imports` so any of the app's processes can show them.

A preview reads and checks the whole file (actions/caseload_files.py,
actions/caseload_plan.py) and stores it with every error; nothing is started. An import
re-reads the stored file, checks it again (the day may have changed), and starts one
workflow per clock or project with its past events in its input, the way an opening with
past dates does live: the workflow records the events in its ledger, plans its alerts
from today and skips those already due, and sends no letter for an event of the past.
Ids come from the file (the workflow id is the application, clock or project number), so
importing the same file twice starts nothing the second time; an id that already has a
workflow is left as it is and counted as existing.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from actions.caseload_files import CaseloadFileError, RowError, check_size, error_report, read_sheet
from actions.caseload_plan import CaseloadPlan, PlannedItem, plan_caseload
from actions.cities import Cities
from actions.errors import ActionFailed, from_temporal
from actions.temporal import Gateway
from models.closures import stored_closures
from models.schema import Application, CaseloadImport, PermitClockRow, Project
from rules.access import Principal, require

PERMISSION = "admin.import"
# Workflow starts in flight at once: enough to keep a 2-core worker busy without queueing
# more than it can take (bench/caseload_import.py measures it).
CONCURRENCY = 24
# How often the page's progress is written (every N clocks started).
PROGRESS_EVERY = 25
_TABLES: dict[str, Any] = {
    "wireless": Application.application_id,
    "permits": PermitClockRow.clock_id,
    "projects": Project.project_id,
}


@dataclass
class Preview:
    run_id: str
    plan: CaseloadPlan
    existing: list[str]  # ids in the file that already have a clock or project

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "kind": self.plan.kind,
            "filename": self.plan.filename,
            "ok": self.plan.ok,
            "errors": [e.as_dict() for e in self.plan.errors],
            "create": [
                {"id": i.key, "rows": i.rows, **i.preview}
                for i in self.plan.items
                if i.key not in self.existing
            ],
            "existing": self.existing,
        }


class CaseloadActions:
    """`actions.caseload`: preview and import caseload files."""

    def __init__(self, gateway: Gateway, sessions: sessionmaker[Session], cities: Cities) -> None:
        self.gateway = gateway
        self.sessions = sessions
        self.cities = cities
        self._running: set[asyncio.Task[None]] = set()

    # -- preview --------------------------------------------------------------------------

    def preview(self, who: Principal, filename: str, data: bytes, kind: str = "") -> Preview:
        """Check the whole file and store it for the import; refuse it whole (413 by its
        size, 400 unreadable) before storing anything."""
        require(who, PERMISSION)
        try:
            check_size(len(data))
        except CaseloadFileError as err:
            raise ActionFailed(str(err), 413) from None
        try:
            sheet = read_sheet(filename, data, kind)
        except CaseloadFileError as err:
            raise ActionFailed(str(err), 400) from None
        plan = self._plan(who, sheet)
        existing = self._existing(plan.kind, [i.key for i in plan.items])
        run = CaseloadImport(
            id=secrets.token_urlsafe(12),
            kind=plan.kind,
            filename=(filename or "caseload")[:300],
            sha256=hashlib.sha256(data).hexdigest(),
            content=data,
            created_by=who.email,
            created_at=datetime.now(UTC),
            state="previewed" if plan.ok else "refused",
            total=len(plan.items),
            done=0,
            created=0,
            existing=len(existing),
            errors=[e.as_dict() for e in plan.errors],
            message="" if plan.ok else f"{len(plan.errors)} error(s); nothing was imported",
        )
        with self.sessions.begin() as session:
            session.add(run)
        return Preview(run.id, plan, existing)

    def _plan(self, who: Principal, sheet: Any) -> CaseloadPlan:
        return plan_caseload(
            sheet,
            who,
            self.cities,
            lambda key: stored_closures(self.sessions, key),
            datetime.now(UTC),
        )

    def _existing(self, kind: str, keys: list[str]) -> list[str]:
        column = _TABLES[kind]
        found: set[str] = set()
        with self.sessions() as session:
            for chunk in _chunks(keys, 500):
                found.update(session.scalars(select(column).where(column.in_(chunk))))
        return [k for k in keys if k in found]

    # -- import ---------------------------------------------------------------------------

    def start(self, who: Principal, run_id: str) -> None:
        """Begin importing a previewed file in the background (the page follows its
        progress); refused unless the preview had no error."""
        self._claim(who, run_id)
        task = asyncio.get_running_loop().create_task(self._run(who, run_id))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def run(self, who: Principal, run_id: str) -> dict[str, Any]:
        """Import a previewed file and answer when it is done (the CLI, the tests)."""
        require(who, PERMISSION)
        self._claim(who, run_id)
        await self._run(who, run_id)
        return self.status(who, run_id)

    def _claim(self, who: Principal, run_id: str) -> None:
        require(who, PERMISSION)
        with self.sessions.begin() as session:
            run = session.get(CaseloadImport, run_id, with_for_update=True)
            if run is None:
                raise ActionFailed(f"there is no caseload preview {run_id}", 404)
            if run.state == "refused":
                raise ActionFailed(
                    f"{run.filename} has {len(run.errors)} error(s): correct the file and "
                    "preview it again; nothing was imported",
                    409,
                )
            if run.state != "previewed":
                raise ActionFailed(f"{run.filename} is already {run.state}", 409)
            run.state = "running"
            run.message = "checking the file again"

    async def _run(self, who: Principal, run_id: str) -> None:
        try:
            await self._import(who, run_id)
        except Exception as err:  # noqa: BLE001 - the page shows why it stopped
            message = err.message if isinstance(err, ActionFailed) else repr(err)
            self._update(
                run_id,
                state="failed",
                message=f"stopped: {message}. Import the file again to finish: what was "
                "started stays, and nothing is started twice",
                finished_at=datetime.now(UTC),
            )

    async def _import(self, who: Principal, run_id: str) -> None:
        with self.sessions() as session:
            run = session.get(CaseloadImport, run_id)
            assert run is not None
            filename, data, kind = run.filename, run.content, run.kind
        # Checking thousands of rows takes seconds of CPU: off the event loop, which
        # keeps serving pages meanwhile.
        plan = await asyncio.to_thread(lambda: self._plan(who, read_sheet(filename, data, kind)))
        if not plan.ok:  # e.g. a planner opened one of its clocks since the preview
            self._update(
                run_id,
                state="refused",
                errors=[e.as_dict() for e in plan.errors],
                message=f"{len(plan.errors)} error(s) when checked again; nothing was imported",
                finished_at=datetime.now(UTC),
            )
            return
        existing = set(self._existing(kind, [i.key for i in plan.items]))
        todo = [i for i in plan.items if i.key not in existing]
        self._update(
            run_id,
            total=len(plan.items),
            existing=len(existing),
            done=len(existing),
            message=f"starting {len(todo)} workflow(s)",
        )
        client = await self.gateway.client()
        gate = asyncio.Semaphore(CONCURRENCY)
        counts = {"created": 0, "existing": len(existing), "done": len(existing)}

        async def start(item: PlannedItem) -> None:
            async with gate:
                try:
                    await client.start_workflow(
                        item.workflow,
                        item.input,
                        id=item.workflow_id,
                        task_queue=self.gateway.task_queue,
                        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                    )
                    counts["created"] += 1
                except WorkflowAlreadyStartedError:
                    counts["existing"] += 1  # started meanwhile (another import, a planner)
                except Exception as err:  # noqa: BLE001
                    raise from_temporal(err) from None
                counts["done"] += 1
                if counts["done"] % PROGRESS_EVERY == 0:
                    self._update(run_id, **counts)

        await asyncio.gather(*(start(item) for item in todo))
        self._update(run_id, **counts, message="waiting for the pages to show every clock")
        await self._recorded(kind, [i.key for i in plan.items], timeout=60 + len(todo) * 0.5)
        self._update(
            run_id,
            **counts,
            state="done",
            message=f"{counts['created']} created, {counts['existing']} already there",
            finished_at=datetime.now(UTC),
        )

    async def _recorded(self, kind: str, keys: list[str], timeout: float) -> None:
        """Wait until the read model has every imported clock or project."""
        column = _TABLES[kind]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            with self.sessions() as session:
                have = sum(
                    session.scalar(select(func.count()).where(column.in_(chunk))) or 0
                    for chunk in _chunks(keys, 500)
                )
            if have >= len(keys):
                return
            await asyncio.sleep(0.5)
        raise ActionFailed("the worker has not recorded every clock yet (is it running?)", 503)

    def _update(self, run_id: str, **changes: Any) -> None:
        with self.sessions.begin() as session:
            run = session.get(CaseloadImport, run_id)
            if run is not None:
                for name, value in changes.items():
                    setattr(run, name, value)

    # -- reading --------------------------------------------------------------------------

    def _row(self, who: Principal, run_id: str) -> CaseloadImport:
        require(who, PERMISSION)
        with self.sessions() as session:
            run = session.get(CaseloadImport, run_id)
            if run is None:
                raise ActionFailed(f"there is no caseload import {run_id}", 404)
            session.expunge(run)
            return run

    def status(self, who: Principal, run_id: str) -> dict[str, Any]:
        run = self._row(who, run_id)
        return {
            "run_id": run.id,
            "kind": run.kind,
            "filename": run.filename,
            "state": run.state,
            "total": run.total,
            "done": run.done,
            "created": run.created,
            "existing": run.existing,
            "percent": 100
            if run.state == "done"
            else int(100 * run.done / run.total)
            if run.total
            else 0,
            "errors": len(run.errors),
            "message": run.message,
        }

    def errors_csv(self, who: Principal, run_id: str) -> tuple[str, str]:
        """The error report of a preview or an import: (file name, CSV text)."""
        run = self._row(who, run_id)
        errors = [RowError(int(e["row"]), str(e["column"]), str(e["message"])) for e in run.errors]
        stem = run.filename.rsplit(".", 1)[0] or "caseload"
        return f"{stem}-errors.csv", error_report(errors)


def _chunks(keys: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(keys), size):
        yield keys[start : start + size]
