"""Conditions of approval: importing a resolution into a running ProjectWorkflow, and
onboarding many projects at once.

One real dev server (headless, on a temporary SQLite file) and, in this process, the real
Clearance worker (`worker.build_worker`, as bench/harness.py runs it). Then:

- import: the 133-condition Cotati Village resolution, end to end: read the file, parse
  it, build the project, start its workflow, and poll the read model (every 20 ms) until
  the `projects` row and all 133 `conditions` rows exist. One warm-up import, then the
  median of `--imports` (default 5). Goal < 2 s.
- onboarding: `--projects` projects (default 1,000) of the same ~130 conditions (parsed
  once), started with at most `--concurrency` (default 50) onboardings in flight: an
  onboarding is in flight from its start until its `projects` row exists. Elapsed until
  every row exists; goal < 10 minutes for 1,000.

    .venv/bin/python -m bench.project_import [--imports 5] [--projects 1000]
        [--concurrency 50] [--skip-onboarding] [--json [PATH]]
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select

from actions.resolution_files import extract_text
from bench.common import add_json_option, command_line, exit_now, write_json
from bench.harness import Stack, running_workers, server_and_client
from models.conditions import ParsedResolution, ProjectInput
from models.schema import ConditionRow, Project
from models.workflow_ids import project_workflow_id
from rules.conditions.onboarding import new_project
from rules.conditions.parser import parse_resolution
from rules.kernel.jurisdictions import jurisdiction
from stack.demo import COTATI_VILLAGE_RESOLUTION
from workflows.project import ProjectWorkflow

GOAL_IMPORT_S = 2.0
GOAL_ONBOARD_MIN = 10.0
GOAL_PROJECTS = 1000
POLL_INTERVAL = 0.02
ONBOARD_POLL_INTERVAL = 0.25
IMPORT_TIMEOUT = 60.0


def project_input(parsed: ParsedResolution, project_id: str) -> ProjectInput:
    return new_project(
        parsed,
        project_id=project_id,
        name=f"Cotati Village ({project_id})",
        city=jurisdiction("cotati"),
        applicant_name="Cotati Village Partners",
        applicant_email="applicant@cotati-village.example",
        project_manager_email="pm@cotati.example",
    )


async def start_project(stack: Stack, start: ProjectInput) -> None:
    await stack.client.start_workflow(
        ProjectWorkflow.run,
        start,
        id=project_workflow_id(start.info.project_id),
        task_queue=stack.settings.task_queue,
    )


def recorded_rows(engine: Engine, project_id: str) -> tuple[int, int]:
    """(projects rows, conditions rows) for one project."""
    with engine.connect() as conn:
        projects = conn.execute(
            select(func.count()).select_from(Project).where(Project.project_id == project_id)
        ).scalar_one()
        conditions = conn.execute(
            select(func.count())
            .select_from(ConditionRow)
            .where(ConditionRow.project_id == project_id)
        ).scalar_one()
    return int(projects), int(conditions)


async def import_once(stack: Stack, path: Path, project_id: str) -> dict[str, Any]:
    """Read → parse → start → the project row and every condition row exist."""
    t0 = time.perf_counter()
    parsed = parse_resolution(extract_text(path))
    t_parsed = time.perf_counter()
    expected = len(parsed.conditions)
    await start_project(stack, project_input(parsed, project_id))
    t_started = time.perf_counter()
    deadline = time.monotonic() + IMPORT_TIMEOUT
    while True:
        projects, conditions = await asyncio.to_thread(recorded_rows, stack.engine, project_id)
        if projects == 1 and conditions >= expected:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"{project_id}: {projects} project rows, {conditions} conditions")
        await asyncio.sleep(POLL_INTERVAL)
    t_done = time.perf_counter()
    return {
        "conditions": expected,
        "total_s": t_done - t0,
        "parse_s": t_parsed - t0,
        "start_s": t_started - t_parsed,
        "record_s": t_done - t_started,
    }


async def measure_imports(stack: Stack, count: int) -> dict[str, Any]:
    path = COTATI_VILLAGE_RESOLUTION
    await import_once(stack, path, "WARM-IMPORT")  # sandbox imports, tables, connections
    runs = [await import_once(stack, path, f"IMPORT-{i:02d}") for i in range(count)]
    totals = [r["total_s"] for r in runs]
    result = {
        "imports": count,
        "conditions": runs[0]["conditions"],
        "median_s": statistics.median(totals),
        "min_s": min(totals),
        "max_s": max(totals),
        "median_parse_s": statistics.median(r["parse_s"] for r in runs),
        "median_start_s": statistics.median(r["start_s"] for r in runs),
        "median_record_s": statistics.median(r["record_s"] for r in runs),
        "runs": runs,
    }
    print(
        f"import Cotati Village ({result['conditions']} conditions), read → rows: "
        f"median {result['median_s']:.2f} s over {count} (min {result['min_s']:.2f}, "
        f"max {result['max_s']:.2f}; parse {result['median_parse_s']:.2f}, "
        f"start {result['median_start_s']:.2f}, first record {result['median_record_s']:.2f})",
        flush=True,
    )
    return result


def recorded_ids(engine: Engine, prefix: str) -> set[str]:
    with engine.connect() as conn:
        rows = conn.execute(select(Project.project_id).where(Project.project_id.startswith(prefix)))
        return {r[0] for r in rows}


def count_conditions(engine: Engine, prefix: str) -> int:
    with engine.connect() as conn:
        stmt = (
            select(func.count())
            .select_from(ConditionRow)
            .where(ConditionRow.project_id.startswith(prefix))
        )
        return int(conn.execute(stmt).scalar_one())


async def measure_onboarding(
    stack: Stack, projects: int, concurrency: int, prefix: str = "ONBOARD-"
) -> dict[str, Any]:
    parsed = parse_resolution(extract_text(COTATI_VILLAGE_RESOLUTION))
    per_project = len(parsed.conditions)
    ids = [f"{prefix}{i:05d}" for i in range(projects)]
    waiting: dict[str, asyncio.Event] = {}
    recorded: set[str] = set()
    gate = asyncio.Semaphore(concurrency)
    done = asyncio.Event()
    progress_every = max(1, projects // 10)

    async def poll() -> None:
        t0 = time.monotonic()
        reported = 0
        while not done.is_set():
            found = await asyncio.to_thread(recorded_ids, stack.engine, prefix)
            for project_id in found - recorded:
                recorded.add(project_id)
                event = waiting.get(project_id)
                if event is not None:
                    event.set()
            if len(recorded) // progress_every > reported:
                reported = len(recorded) // progress_every
                print(
                    f"  {len(recorded):>6} / {projects} projects recorded "
                    f"({time.monotonic() - t0:.0f} s)",
                    flush=True,
                )
            await asyncio.sleep(ONBOARD_POLL_INTERVAL)

    async def onboard(project_id: str) -> float:
        async with gate:
            event = waiting[project_id] = asyncio.Event()
            t = time.monotonic()
            await start_project(stack, project_input(parsed, project_id))
            if project_id not in recorded:
                await event.wait()
            return time.monotonic() - t

    t0 = time.monotonic()
    poller = asyncio.create_task(poll())
    try:
        latencies = await asyncio.gather(*(onboard(i) for i in ids))
    finally:
        done.set()
        await poller
    elapsed = time.monotonic() - t0
    conditions = await asyncio.to_thread(count_conditions, stack.engine, prefix)
    result = {
        "projects": projects,
        "concurrency": concurrency,
        "conditions_per_project": per_project,
        "condition_rows": conditions,
        "elapsed_s": elapsed,
        "elapsed_min": elapsed / 60,
        "per_s": projects / elapsed,
        "median_onboard_s": statistics.median(latencies),
        "p95_onboard_s": sorted(latencies)[int(0.95 * (len(latencies) - 1))],
        "projected_1000_min": elapsed / projects * GOAL_PROJECTS / 60,
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(
        f"onboard {projects} projects of {per_project} conditions ({concurrency} in flight): "
        f"{result['elapsed_min']:.2f} min, {result['per_s']:.2f} projects/s "
        f"(median {result['median_onboard_s']:.2f} s start → row, p95 "
        f"{result['p95_onboard_s']:.2f} s; {conditions:,} condition rows; "
        f"peak RSS {result['max_rss_mib']:.0f} MiB)",
        flush=True,
    )
    if conditions != projects * per_project:
        expected = projects * per_project
        raise AssertionError(f"expected {expected} condition rows, found {conditions}")
    return result


async def measure(
    imports: int = 5,
    projects: int = GOAL_PROJECTS,
    concurrency: int = 50,
    onboarding: bool = True,
    max_workflow_tasks: int | None = None,
) -> dict[str, Any]:
    options = (
        {} if max_workflow_tasks is None else {"max_concurrent_workflow_tasks": max_workflow_tasks}
    )
    async with server_and_client() as stack, running_workers(stack, minimal=False, **options):
        result: dict[str, Any] = {
            "max_concurrent_workflow_tasks": max_workflow_tasks,
            "import": await measure_imports(stack, imports),
        }
        if onboarding:
            result["onboarding"] = await measure_onboarding(stack, projects, concurrency)
    return result


def verdicts(result: dict[str, Any]) -> list[str]:
    lines = []
    median = result["import"]["median_s"]
    ok = "PASS" if median < GOAL_IMPORT_S else "FAIL"
    lines.append(f"goal import < {GOAL_IMPORT_S:.0f} s: {ok} ({median:.2f} s)")
    if "onboarding" in result:
        o = result["onboarding"]
        projected = o["projected_1000_min"]
        ok = "PASS" if projected < GOAL_ONBOARD_MIN else "FAIL"
        note = "" if o["projects"] == GOAL_PROJECTS else f", extrapolated from {o['projects']}"
        lines.append(
            f"goal 1,000 projects < {GOAL_ONBOARD_MIN:.0f} min: {ok} ({projected:.2f} min{note})"
        )
    return lines


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--imports", type=int, default=5, help="timed imports (median)")
    parser.add_argument("--projects", type=int, default=GOAL_PROJECTS, help="projects onboarded")
    parser.add_argument("--concurrency", type=int, default=50, help="onboardings in flight")
    parser.add_argument("--skip-onboarding", action="store_true", help="only the import")
    parser.add_argument(
        "--max-workflow-tasks",
        type=int,
        help="the worker's max_concurrent_workflow_tasks (default: the settings')",
    )
    add_json_option(parser, stdout=True)
    args = parser.parse_args()
    result = asyncio.run(
        measure(
            args.imports,
            args.projects,
            args.concurrency,
            not args.skip_onboarding,
            args.max_workflow_tasks,
        )
    )
    result["verdicts"] = verdicts(result)
    for line in result["verdicts"]:
        print(line)
    write_json(args.json, result)
    exit_now()


if __name__ == "__main__":
    main()
