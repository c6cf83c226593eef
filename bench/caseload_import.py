"""Importing a department's caseload: 10,000 rows through the real preview and import
(`actions.caseload`), against a minimal workflow in the same run.

The rows: 2,000 wireless applications with 3 to 6 past events each, 6,000 permit clocks
(building permits, approved and inspected), and 2,000 condition statuses (400 projects of
5 conditions, some cleared and a milestone signed off). One real dev server (headless, a
temporary SQLite file: the embedded default), the real Clearance worker in this process
as shipped, and a worker for the minimal workflow on its own queue. Then, in one run:

- minimal: N minimal workflows (one trivial activity each), start until every result,
  before and after the imports (the rate is their mean);
- for each file: the preview (reading, checking every event with the rules core, each
  clock's dates) and the import (every workflow started, up to `actions.caseload.
  CONCURRENCY` at a time, until the read model has every clock or project).

The clocks' start rate is workflows / import seconds; its ratio to the minimal rate is the
goal (≥ 0.5); the whole (previews and imports) must take under 10 minutes.

    .venv/bin/python -m bench.caseload_import [--scale 1.0] [--json FILE]
"""

from __future__ import annotations

import asyncio
import csv
import io
import time
from datetime import date, timedelta
from typing import Any

import pendulum

from actions.caseload_files import COLUMNS
from bench.common import add_json_option, command_line, verdict, write_json
from bench.harness import running_workers, server_and_client
from bench.workflow_throughput import run_minimal

GOAL_RATIO = 0.5
GOAL_SECONDS = 600.0
ITEM = "A{n} | Item {n} | Cotati Municipal Code 17.62.040"


def _csv(kind: str, rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS[kind], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def wireless_file(count: int, today: date) -> bytes:
    """Applications with 3 to 6 past events: a notice, the resubmission, then a tolling
    agreement, a hearing notice and an appeal as the count grows."""
    rows = []
    for i in range(count):
        start = today - timedelta(days=20 + i % 60)
        events = [
            ("submitted", start, ""),
            ("incomplete_notice", start + timedelta(days=5), ITEM.format(n=1 + i % 3)),
            ("resubmitted", start + timedelta(days=12), ""),
            ("tolling_agreement", start + timedelta(days=14), "days=10"),
            ("hearing_notice", start + timedelta(days=16), ""),
            ("moratorium", start + timedelta(days=18), ""),
        ][: 3 + i % 4]
        row = {
            "application_id": f"CL-WA-{i:05d}",
            "jurisdiction": "cotati",
            "category": ("macro_collocation", "swf_collocation", "macro_new_structure")[i % 3],
            "site_address": f"{100 + i} Old Redwood Hwy",
            "applicant_email": "permits@tower.example",
            "planner_email": "planner@cotati.example",
        }
        for n, (kind, day, details) in enumerate(events, start=1):
            row |= {f"event_{n}": kind, f"date_{n}": day.isoformat(), f"details_{n}": details}
        rows.append(row)
    return _csv("wireless", rows)


def permits_file(count: int, today: date) -> bytes:
    rows = []
    for i in range(count):
        approved = today - timedelta(days=30 + i % 150)
        row = {
            "clock_id": f"CL-BP-{i:05d}",
            "jurisdiction": "cotati",
            "rule": "building_permit_expiry",
            "title": f"Building permit {i}",
            "event_1": "approved",
            "date_1": approved.isoformat(),
        }
        if i % 2:
            row |= {
                "event_2": "inspection",
                "date_2": (approved + timedelta(days=20)).isoformat(),
                "details_2": "result=approved; qualifying=true",
            }
        rows.append(row)
    return _csv("permits", rows)


def projects_file(rows_count: int, today: date, per_project: int = 5) -> bytes:
    rows = []
    approved = today - timedelta(days=120)
    for i in range(rows_count):
        project, n = divmod(i, per_project)
        cleared = n < 2
        row = {
            "project_id": f"CL-PRJ-{project:04d}",
            "project_name": f"Project {project}",
            "jurisdiction": "cotati",
            "approved_on": approved.isoformat(),
            "project_manager_email": "pm@cotati.example",
            "condition_number": str(n + 1),
            "condition_text": f"Condition {n + 1} of project {project}.",
            "department": ("engineering", "planning", "building", "fire", "planning")[n],
            "gates": "grading_permit" if cleared else "building_permit",
            "status": "cleared" if cleared else ("submitted" if n == 2 else "open"),
        }
        if cleared or n == 2:
            row["evidence_date"] = (approved + timedelta(days=30)).isoformat()
        if cleared:
            row["status_date"] = (approved + timedelta(days=40)).isoformat()
        if n == 0:
            row["signoffs"] = f"grading_permit {(approved + timedelta(days=50)).isoformat()}"
        rows.append(row)
    return _csv("projects", rows)


async def measure(scale: float = 1.0, minimal: int = 200) -> dict[str, Any]:
    from actions.caseload import CaseloadActions
    from actions.cities import Cities
    from actions.temporal import Gateway
    from models.database import session_factory
    from rules.access import Principal

    today = pendulum.now("America/Los_Angeles").date()
    files = {
        "wireless": wireless_file(int(2000 * scale), today),
        "permits": permits_file(int(6000 * scale), today),
        "projects": projects_file(int(2000 * scale), today),
    }
    who = Principal("admin@cotati.example", "admin")
    async with server_and_client() as stack, running_workers(stack):
        caseload = CaseloadActions(
            Gateway(stack.settings, stack.client),
            session_factory(stack.engine),
            Cities(stack.settings.default_jurisdiction),
        )
        await run_minimal(stack, 20, "warm-min-")
        before = await run_minimal(stack, minimal, "min-before-")
        kinds: dict[str, dict[str, Any]] = {}
        for kind, data in files.items():
            t0 = time.monotonic()
            preview = await asyncio.to_thread(caseload.preview, who, f"{kind}.csv", data)
            t1 = time.monotonic()
            assert preview.plan.ok, preview.plan.error_lines()[:5]
            done = await caseload.run(who, preview.run_id)
            t2 = time.monotonic()
            assert done["state"] == "done" and done["created"] == len(preview.plan.items), done
            kinds[kind] = {
                "rows": data.count(b"\n") - 1,
                "workflows": len(preview.plan.items),
                "preview_s": t1 - t0,
                "import_s": t2 - t1,
                "per_s": len(preview.plan.items) / (t2 - t1),
            }
            print(
                f"{kind:9s} {kinds[kind]['rows']:5d} rows, {kinds[kind]['workflows']:5d} "
                f"workflows: preview {t1 - t0:6.1f} s, import {t2 - t1:6.1f} s "
                f"({kinds[kind]['per_s']:.1f}/s)"
            )
        after = await run_minimal(stack, minimal, "min-after-")
    minimal_per_s = (before["per_s"] + after["per_s"]) / 2
    workflows = sum(k["workflows"] for k in kinds.values())
    import_s = sum(k["import_s"] for k in kinds.values())
    total_s = import_s + sum(k["preview_s"] for k in kinds.values())
    result = {
        "scale": scale,
        "rows": sum(k["rows"] for k in kinds.values()),
        "workflows": workflows,
        "kinds": kinds,
        "total_s": total_s,
        "clocks_per_s": workflows / import_s,
        "minimal_per_s": minimal_per_s,
        "minimal_before_per_s": before["per_s"],
        "minimal_after_per_s": after["per_s"],
        "ratio": workflows / import_s / minimal_per_s,
    }
    print(
        f"{result['rows']} rows, {workflows} workflows in {total_s:.0f} s "
        f"({total_s / 60:.1f} min); clocks {result['clocks_per_s']:.1f}/s, minimal "
        f"{minimal_per_s:.1f}/s (before {before['per_s']:.1f}, after {after['per_s']:.1f}); "
        f"ratio {result['ratio']:.2f}"
    )
    return result


def run(scale: float = 1.0) -> dict[str, Any]:
    return asyncio.run(measure(scale))


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 10,000 rows")
    add_json_option(parser)
    args = parser.parse_args()
    result = run(args.scale)
    print(f"goal under {GOAL_SECONDS / 60:.0f} min: {verdict(result['total_s'] < GOAL_SECONDS)}")
    print(f"goal ratio ≥ {GOAL_RATIO}: {verdict(result['ratio'] >= GOAL_RATIO)}")
    write_json(args.json, result)


if __name__ == "__main__":
    main()
