"""Each report across projects and clocks rendered as a PDF over a city's worth of data:
the web benchmark's seed (`bench/web_seed.py`: 1,000 projects, 100,000 conditions, 5,000
wireless applications) plus what the reports measure and that seed lacks: decisions on a
third of the applications, 2,000 PSA and AB 2234 permit clocks, mitigation codes on one
condition in ten and the audit events that cleared them. Goal: each PDF in under 10 s.

    .venv/bin/python -m bench.portfolio_reports --postgres --write
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select, update

from bench.common import command_line
from bench.run_all import machine
from bench.web_pages import database, prepare_database, settle, write
from bench.web_seed import BATCH, SeedSize, seed
from models.schema import Application, AuditRow, ClockEventRow, ConditionRow, PermitClockRow
from reports import portfolio

GOAL_S = 10.0
PERMIT_RULES = (
    "ca_psa_completeness",
    "ca_psa_decision",
    "ca_post_entitlement_completeness",
    "ca_post_entitlement_review",
)


@dataclass
class Result:
    key: str
    title: str
    build_s: float
    pdf_s: float
    pages: int
    csv_lines: int

    @property
    def total_s(self) -> float:
        return self.build_s + self.pdf_s


def _insert(engine: Engine, table: Any, rows: list[dict[str, Any]]) -> None:
    with engine.begin() as conn:
        for i in range(0, len(rows), BATCH):
            conn.execute(table.insert(), rows[i : i + BATCH])


def enrich(engine: Engine, rng: random.Random, permits: int = 2000) -> dict[str, int]:
    """What the reports measure that the page benchmark's seed does not hold."""
    now = datetime.now(UTC)
    today = now.date()
    with engine.connect() as conn:
        apps = list(conn.scalars(select(Application.application_id)))
        conditions = list(
            conn.execute(select(ConditionRow.id, ConditionRow.project_id, ConditionRow.number))
        )
    decided = apps[: len(apps) // 3]
    events = []
    with engine.begin() as conn:
        for app_id in decided:
            day = today - timedelta(days=rng.randint(1, 360))
            status = rng.choices(
                ["decided_on_time", "decided_late", "deemed_granted"], [85, 10, 5]
            )[0]
            conn.execute(
                update(Application)
                .where(Application.application_id == app_id)
                .values(status=status, conservative_date=day.isoformat())
            )
            if status != "deemed_granted":
                events.append(
                    {
                        "application_id": app_id,
                        "event_id": "decision",
                        "type": "decision",
                        "date": day.isoformat(),
                        "payload": {"type": "decision", "outcome": "approved"},
                        "recorded_by": "planner@cotati.example",
                        "note": "",
                        "recorded_at": now,
                    }
                )
    _insert(engine, ClockEventRow.__table__, events)
    clocks = []
    for n in range(permits):
        status = rng.choices(["met", "met_late", "lapsed", "running"], [60, 10, 5, 25])[0]
        due = today + timedelta(days=rng.randint(-360, 120))
        met = due - timedelta(days=rng.randint(-10, 30)) if status.startswith("met") else None
        clocks.append(
            {
                "clock_id": f"PC-{n:05d}",
                "workflow_id": f"permit-clock-PC-{n:05d}",
                "jurisdiction": "cotati",
                "rule": rng.choice(PERMIT_RULES),
                "status": status,
                "title": f"Housing development {n}",
                "conservative_date": due.isoformat(),
                "due_date": due.isoformat(),
                "next_deadline": due.isoformat(),
                "consequence": "deemed_complete",
                "staff_email": "planner@cotati.example",
                "clock": {"met_date": met.isoformat() if met else None},
                "created_at": now,
                "updated_at": now,
            }
        )
    _insert(engine, PermitClockRow.__table__, clocks)
    measures = [c for c in conditions if rng.random() < 0.1]
    with engine.begin() as conn:
        for i, (row_id, _, _) in enumerate(measures):
            conn.execute(
                update(ConditionRow).where(ConditionRow.id == row_id).values(code=f"MM-{i % 40}")
            )
    cleared = [
        {
            "project_id": pid,
            "audit_id": f"mm-{number}",
            "at": (now - timedelta(days=rng.randint(1, 300))).isoformat(),
            "actor": "planning@cotati.example",
            "role": "department_reviewer",
            "action": "review_cleared",
            "condition_number": number,
            "reason": "",
            "details": {"from": "in_review", "to": "cleared"},
        }
        for _, pid, number in measures
        if rng.random() < 0.5
    ]
    _insert(engine, AuditRow.__table__, cleared)
    return {
        "decided applications": len(decided),
        "permit clocks": permits,
        "mitigation measures": len(measures),
        "clearing audit events": len(cleared),
    }


def measure(engine: Engine) -> list[Result]:
    today = portfolio.city_today()
    results = []
    for key, kind in portfolio.kinds().items():
        period = portfolio.Period.parse(today, default_days=365 if kind.period == "range" else 0)
        started = time.perf_counter()
        report = kind.build(engine, period)
        built = time.perf_counter()
        pdf = portfolio.to_pdf(report)
        done = time.perf_counter()
        from io import BytesIO

        from pypdf import PdfReader

        pages = len(PdfReader(BytesIO(pdf)).pages)
        results.append(
            Result(key, kind.title, built - started, done - built, pages, len(report.csv_rows))
        )
        print(f"{key:28} build {built - started:6.2f} s  pdf {done - built:6.2f} s", flush=True)
    return results


def section(when: datetime, backend: str, counts: dict[str, int], results: list[Result]) -> str:
    info = machine()
    data = ", ".join(f"{n:,} {what}" for what, n in counts.items())
    lines = [
        f"## Cross-project report PDFs — {when:%Y-%m-%d}, {info['cpu']}, {info['cores']} "
        f"cores, {backend}",
        "",
        "Written by `.venv/bin/python -m bench.portfolio_reports --postgres --write`. The",
        "read model is the web benchmark's seed plus decisions, permit clocks and mitigation",
        "measures (`bench/portfolio_reports.py`); each report is built (queries) and rendered",
        "as a PDF with WeasyPrint in one process, one after another; a range report covers",
        f"the last 365 days. Goal: each PDF in under {GOAL_S:.0f} s.",
        "",
        f"- Run at: {when:%Y-%m-%d %H:%M} UTC; load average (1 min) before: "
        f"{os.getloadavg()[0]:.1f} on {info['cores']} cores",
        f"- Data: {data}",
        "",
        "| Report | Lines (CSV) | Pages | Queries | PDF | Total | Goal | Result |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        verdict = "PASS" if r.total_s < GOAL_S else "FAIL"
        lines.append(
            f"| {r.title} | {r.csv_lines:,} | {r.pages} | {r.build_s:.2f} s | {r.pdf_s:.2f} s "
            f"| {r.total_s:.2f} s | < {GOAL_S:.0f} s | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--clocks", type=int, default=5000)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster")
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    when = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="clearance-report-bench-") as tmp, ExitStack() as st:
        url, backend = database(
            st, Path(tmp), "clearance_reports", args.postgres, args.database_url
        )
        engine = prepare_database(url, reset=False)
        print(f"seeding {backend} ...", flush=True)
        seeded = seed(engine, SeedSize(projects=args.projects, clocks=args.clocks))
        counts = {**seeded.counts, **enrich(engine, random.Random(7))}
        settle(engine)
        print(", ".join(f"{n:,} {w}" for w, n in counts.items()), flush=True)
        results = measure(engine)
        engine.dispose()
    text = section(when, backend, counts, results)
    print()
    print(text)
    if args.write:
        write(text)
    if any(r.total_s >= GOAL_S for r in results):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
