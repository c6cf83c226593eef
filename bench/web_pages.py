"""Web page latency with a city's worth of data: p50/p95 of the pages staff use most.

Seeds the read model directly (bench/web_seed.py: 1,000 projects with 100 conditions each,
5,000 wireless applications with computed clocks, their events, notices and audit rows,
and a user per role), serves the real app with `clearance web` as shipped (one process per
CPU core; reads need no Temporal server), logs in like a browser and times `--requests`
sequential GETs of each page with httpx, rotating through projects, conditions and
departments so no page is served twice from the same row. Goal: p95 < 300 ms for every page.

    .venv/bin/python -m bench.web_pages [--write] [--requests 200]
        [--postgres | --database-url postgresql+psycopg://...] [--reset] [--projects 1000]
        [--json PATH]

SQLite (a file in a temporary folder) by default; `--postgres` starts a throwaway
PostgreSQL cluster (stack/postgres.py); `--database-url` points it at another database,
which must be empty unless `--reset` (drops and recreates the tables) is given.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import Engine, func, select, text
from sqlalchemy.engine import make_url

from bench.common import command_line, verdict, write_json
from bench.run_all import machine
from bench.web_seed import SeedReport, SeedSize, seed
from models.database import make_engine
from models.schema import Base, Project
from stack.ports import free_port
from web.auth.accounts import Accounts

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = PROJECT_ROOT / "BENCHMARKS.md"
GOAL_P95_MS = 300.0
PASSWORD = "bench-password"
DEPARTMENTS = ["engineering", "planning", "building", "fire", "environmental"]
USERS = {
    "pm": ("pm@cotati.example", "project_manager", ""),
    "admin": ("admin@cotati.example", "admin", ""),
    "reviewer": ("publicworks@cotati.example", "department_reviewer", "engineering"),
}
CLEARANCE = Path(sys.executable).parent / "clearance"
SERVER_COMMAND = [str(CLEARANCE)] if CLEARANCE.exists() else [sys.executable, "-m", "cli.main"]


@dataclass
class PageResult:
    page: str
    user: str
    requests: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    kib: float

    @property
    def passed(self) -> bool:
        return self.p95_ms < GOAL_P95_MS

    def line(self, width: int) -> str:
        """The figures on one terminal line, the page's name padded to `width`."""
        return (
            f"{self.page:{width}} {self.user:9} p50 {self.p50_ms:6.0f} ms  "
            f"p95 {self.p95_ms:6.0f} ms  max {self.max_ms:6.0f} ms  "
            f"{self.kib:5.0f} KiB  {verdict(self.passed)}"
        )


@dataclass
class Page:
    name: str
    user: str
    url: Callable[[int], str]
    # Text each response must contain (its subject), so a redirect or an error page
    # is never timed as if it were the page.
    expect: Callable[[int], str]


def rotation(values: Sequence[str], stride: int = 1) -> Callable[[int], str]:
    """The i-th request's row: `stride` apart (a prime) so no row is served twice in a row
    and the pages' rows are spread over the whole table."""
    return lambda i: values[(i * stride) % len(values)]


def rotations(report: SeedReport) -> tuple[Callable[[int], str], ...]:
    """The rows the pages rotate through: projects, conditions, departments, applications."""
    return (
        rotation(report.project_ids, 7919),
        rotation(report.condition_numbers, 31),
        rotation(DEPARTMENTS),
        rotation(report.application_ids, 104729),
    )


def pages(report: SeedReport) -> list[Page]:
    pid, number, dept, app = rotations(report)

    return [
        Page("dashboard (every department's queue)", "pm", lambda i: "/", lambda i: 'id="clocks"'),
        Page(
            "dashboard (a reviewer's own queue)", "reviewer", lambda i: "/", lambda i: 'id="clocks"'
        ),
        Page("project page", "pm", lambda i: f"/projects/{pid(i)}", pid),
        Page(
            "project page, filtered (department + status)",
            "pm",
            lambda i: f"/projects/{pid(i)}?department={dept(i)}&status=open",
            pid,
        ),
        Page(
            "condition page",
            "pm",
            lambda i: f"/projects/{pid(i)}/conditions/{number(i)}",
            pid,
        ),
        Page(
            "review queue, departments in turn",
            "admin",
            lambda i: f"/queues/{dept(i)}",
            lambda i: "",
        ),
        Page(
            "review queue, own department",
            "reviewer",
            lambda i: "/queues/engineering",
            lambda i: "",
        ),
        Page("wireless application page", "pm", lambda i: f"/applications/{app(i)}", app),
        Page("outbox", "admin", lambda i: "/outbox", lambda i: ""),
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def database(
    stack: ExitStack, data_dir: Path, name: str, postgres: bool, url: str = ""
) -> tuple[str, str]:
    """(URL, "PostgreSQL" or "SQLite"): a throwaway PostgreSQL cluster's database `name`
    with `postgres`, else `url`, else SQLite in `data_dir`."""
    url = url or f"sqlite:///{data_dir / 'clearance.db'}"
    if postgres:
        from stack.postgres import PostgresCluster

        cluster = stack.enter_context(PostgresCluster(data_dir / "pg"))
        url = cluster.create_database(name)
    backend = "PostgreSQL" if make_url(url).get_backend_name() == "postgresql" else "SQLite"
    return url, backend


def prepare_database(url: str, reset: bool) -> Engine:
    engine = make_engine(url)
    with engine.connect() as conn:
        existing = conn.scalar(select(func.count()).select_from(Project))
    if existing:
        if not reset:
            raise SystemExit(
                f"error: {make_url(url).render_as_string(hide_password=True)} already has "
                f"{existing} projects: give an empty database, or --reset to drop and "
                "recreate the tables"
            )
        Base.metadata.drop_all(engine)
        Base.metadata.create_all(engine)
    return engine


def settle(engine: Engine) -> None:
    """PostgreSQL: statistics and visibility map as autovacuum leaves them after a bulk
    load, so the planner sees the real row counts (a city's database is in that state)."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))


def add_users(engine: Engine, users: dict[str, tuple[str, str, str]] = USERS) -> None:
    accounts = Accounts(engine)
    for email, role, department in users.values():
        accounts.add_user(email, role, PASSWORD, department=department, replace=True)


class Server:
    """`clearance web` in processes of its own (its shipped default: one per CPU core, no
    CLEARANCE_WEB_WORKERS), as a city runs it."""

    def __init__(self, database_url: str, data_dir: Path) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir / "web.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLEARANCE_")}
        env.update(
            {
                "CLEARANCE_DATABASE_URL": database_url,
                "CLEARANCE_DATA_DIR": str(data_dir),
                # Reads need no Temporal server; nothing listens here.
                "CLEARANCE_TEMPORAL_ADDRESS": f"127.0.0.1:{free_port()}",
                "CLEARANCE_LOG_LEVEL": "WARNING",
            }
        )
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [*SERVER_COMMAND, "web", "--host", "127.0.0.1", "--port", str(self.port)],
                env=env,
                cwd=PROJECT_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 180  # a loaded machine starts it slowly
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"error: `clearance web` exited:\n{self.log.read_text()}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200:
                    self._settle(deadline)
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"error: `clearance web` did not start:\n{self.log.read_text()}")
            time.sleep(0.2)

    def _settle(self, deadline: float) -> None:
        """One process answering is not all of them started: wait until every process
        `clearance web` runs (one per core) has finished starting (their CPU time stops
        growing), so no measured request shares the machine with a process still
        importing the app, which is not what a city's users meet."""
        expected = len(os.sched_getaffinity(0))
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        if expected <= 1 or not children.exists():
            return  # one process (it answered), or not Linux: nothing to look at

        def cpu_ticks() -> tuple[int, int]:
            pids = children.read_text().split()
            ticks = 0
            for pid in pids:
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    ticks += int(fields[11]) + int(fields[12])  # utime + stime
                except (OSError, IndexError, ValueError):
                    continue
            return len(pids), ticks

        before = cpu_ticks()
        while time.monotonic() < deadline:
            time.sleep(1.0)
            now = cpu_ticks()
            if now[0] >= expected and now[1] - before[1] <= 5:  # under 5% of a core
                return
            before = now

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def login(base_url: str, email: str) -> httpx.Client:
    client = httpx.Client(base_url=base_url, timeout=30, follow_redirects=False)
    form = client.get("/login")
    found = re.search(r'name="csrf_token"\s+value="([^"]+)"', form.text) or re.search(
        r'value="([^"]+)"\s+name="csrf_token"', form.text
    )
    data = {"email": email, "password": PASSWORD}
    if found:
        data["csrf_token"] = found.group(1)
    done = client.post("/login", data=data)
    if done.status_code not in (302, 303) or not client.cookies:
        raise SystemExit(f"error: log-in as {email} failed ({done.status_code}): {done.text[:300]}")
    return client


def measure(clients: dict[str, httpx.Client], page: Page, count: int) -> PageResult:
    client = clients[page.user]
    timings: list[float] = []
    size = 0
    for i in range(-5, count):  # five warm-up requests, not counted
        url = page.url(i)
        started = time.perf_counter()
        response = client.get(url)
        body = response.content
        elapsed = (time.perf_counter() - started) * 1000
        expected = page.expect(i)
        if response.status_code != 200 or expected.encode() not in body:
            raise SystemExit(
                f"error: GET {url} as {page.user} gave {response.status_code} without "
                f"{expected!r}:\n{response.text[:500]}"
            )
        if i >= 0:
            timings.append(elapsed)
            size += len(body)
    return PageResult(
        page.name,
        page.user,
        count,
        statistics.median(timings),
        percentile(timings, 95),
        max(timings),
        size / count / 1024,
    )


def table(results: list[PageResult], *, requests: bool = False) -> str:
    """The pages' figures as a Markdown table (with `requests`, how many each had)."""
    count = ["requests"] if requests else []
    header = ["Page", "As", *count, "p50", "p95", "max", "size", "Goal", "Result"]
    align = ["---", "---", *["---:"] * (len(count) + 4), "---", "---"]
    lines = [_row(header), "|" + "|".join(align) + "|"]
    lines += [
        _row(
            [
                r.page,
                r.user,
                *([str(r.requests)] if requests else []),
                f"{r.p50_ms:.0f} ms",
                f"{r.p95_ms:.0f} ms",
                f"{r.max_ms:.0f} ms",
                f"{r.kib:.0f} KiB",
                f"p95 < {GOAL_P95_MS:.0f} ms",
                verdict(r.passed),
            ]
        )
        for r in results
    ]
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def run_and_data(
    when: datetime, load: float, info: dict[str, str], report: SeedReport
) -> list[str]:
    """A section's lines on when it ran (and how loaded the machine was) and its data."""
    counts = ", ".join(f"{n:,} {what}" for what, n in report.counts.items())
    return [
        f"- Run at: {when:%Y-%m-%d %H:%M} UTC; load average (1 min) before: {load:.1f} "
        f"on {info['cores']} cores",
        f"- Data: {counts}; seeded in {report.seconds:.1f} s",
    ]


def section(
    when: datetime,
    backend: str,
    report: SeedReport,
    results: list[PageResult],
    requests: int,
    load: float,
) -> str:
    info = machine()
    return "\n".join(
        [
            f"## Web pages — {when:%Y-%m-%d}, {info['cpu']}, {info['cores']} cores, {backend}",
            "",
            textwrap.fill(
                "Written by `.venv/bin/python -m bench.web_pages --write` (a re-run on the same "
                "day, machine and database replaces this section). The read model is seeded "
                "directly (`bench/web_seed.py`); the app runs as `clearance web` as shipped "
                "(one process per CPU core); each page is fetched sequentially over HTTP by "
                "a logged-in client, "
                "rotating through projects, conditions, departments and applications, after "
                "five unmeasured warm-up requests. Times are from request sent to body "
                f"received. Goal: p95 < {GOAL_P95_MS:.0f} ms for every page.",
                width=90,
            ),
            "",
            *run_and_data(when, load, info, report),
            f"- Database: {backend}"
            + (
                " (VACUUM ANALYZE after seeding, as autovacuum would)"
                if backend == "PostgreSQL"
                else ""
            )
            + f"; {requests} requests per page",
            "",
            table(results),
            "",
        ]
    )


def finish(text: str, record: bool, results: list[PageResult]) -> None:
    """With `record`, the section in BENCHMARKS.md; exit status 1 if a page missed its goal."""
    if record:
        write(text)
    if not all(r.passed for r in results):
        sys.exit(1)


def write(text: str) -> None:
    """Add the section to BENCHMARKS.md, replacing one with the same heading."""
    current = BENCHMARKS_MD.read_text()
    heading = text.splitlines()[0]
    parts = re.split(r"(?m)^(?=## )", current)
    kept = [p.rstrip("\n") for p in parts if p.splitlines()[:1] != [heading]]
    BENCHMARKS_MD.write_text("\n\n".join([*kept, text.rstrip("\n")]) + "\n")
    print(f"\nwrote {BENCHMARKS_MD}")


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    parser.add_argument("--requests", type=int, default=200, help="measured requests per page")
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--conditions-per-project", type=int, default=100)
    parser.add_argument("--clocks", type=int, default=5000)
    parser.add_argument("--database-url", default="", help="default: SQLite in a temp folder")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="run against a throwaway PostgreSQL cluster (stack/postgres.py) in a temp folder",
    )
    parser.add_argument("--reset", action="store_true", help="empty a non-empty database first")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()

    when = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="clearance-web-bench-") as tmp, ExitStack() as stack:
        data_dir = Path(tmp)
        url, backend = database(
            stack, data_dir, "clearance_bench", args.postgres, args.database_url
        )
        engine = prepare_database(url, args.reset)
        size = SeedSize(args.projects, args.conditions_per_project, args.clocks)
        print(f"seeding {backend} ...", flush=True)
        report = seed(engine, size)
        add_users(engine)
        settle(engine)
        engine.dispose()
        print(
            "seeded "
            + ", ".join(f"{n:,} {what}" for what, n in report.counts.items())
            + f" in {report.seconds:.1f} s",
            flush=True,
        )
        server = Server(url, data_dir)
        results: list[PageResult] = []
        try:
            clients = {name: login(server.base_url, u[0]) for name, u in USERS.items()}
            load = os.getloadavg()[0]
            for page in pages(report):
                result = measure(clients, page, args.requests)
                results.append(result)
                print(result.line(48), flush=True)
        finally:
            server.stop()
    text = section(when, backend, report, results, args.requests, load)
    print()
    print(table(results))
    write_json(
        args.json,
        {
            "backend": backend,
            "counts": report.counts,
            "seed_seconds": report.seconds,
            "pages": [asdict(r) for r in results],
        },
    )
    finish(text, args.write, results)


if __name__ == "__main__":
    main()
