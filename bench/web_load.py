"""Web pages under 50 concurrent users: p50/p95 of every page staff and applicants use,
with a city's worth of data. Goal: p95 < 300 ms for every page.

Seeds the read model the way bench/web_pages.py does (1,000 projects with 100 conditions
each, 5,000 wireless applications with computed clocks, their events, notices and audit
rows), serves the real app with `clearance web` (its shipped default: one process per CPU
core), logs in a user per role, then runs `--users` simulated people at once with an
asyncio driver (httpx): each
opens a page, reads it for a moment (`--think` seconds, uniformly drawn, as a person
does), then opens the next, every page and role in a shuffled order, until each page
has been fetched `--requests` times. Times are from request sent to body received.

    .venv/bin/python -m bench.web_load --postgres [--users 50] [--requests 150]
        [--think 0.5 3.0] [--write] [--json PATH]

What this does not measure: a browser's own rendering (the journeys in tests/browser
record page load times), or Temporal: pages read the SQL read model only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import textwrap
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.common import command_line, write_json
from bench.run_all import machine
from bench.web_pages import (
    GOAL_P95_MS,
    PASSWORD,
    PageResult,
    Server,
    add_users,
    database,
    finish,
    percentile,
    prepare_database,
    rotations,
    run_and_data,
    settle,
    table,
)
from bench.web_seed import SeedReport, SeedSize, seed
from models.database import make_engine
from web.auth.accounts import Accounts

USERS = {
    "pm": ("pm@cotati.example", "project_manager", ""),
    "engineer": ("engineer@cotati.example", "engineering", ""),
    "reviewer": ("publicworks@cotati.example", "department_reviewer", "engineering"),
    "manager": ("manager@cotati.example", "planning_manager", ""),
    "attorney": ("attorney@cotati.example", "city_attorney", ""),
    "admin": ("admin@cotati.example", "admin", ""),
}


@dataclass(frozen=True)
class LoadPage:
    name: str
    user: str  # a key of USERS, or "applicant" (no session: a signed link)
    url: Callable[[int], str]
    expect: str  # text every response must contain, so an error page is never timed


def load_pages(report: SeedReport, portal_paths: list[str]) -> list[LoadPage]:
    pid, number, dept, app = rotations(report)

    inbox = 'data-testid="inbox-covers"'
    return [
        LoadPage("inbox: project manager", "pm", lambda i: "/", inbox),
        LoadPage("inbox: engineering", "engineer", lambda i: "/", inbox),
        LoadPage("inbox: reviewer", "reviewer", lambda i: "/", inbox),
        LoadPage("inbox: planning manager", "manager", lambda i: "/", inbox),
        LoadPage("inbox: city attorney", "attorney", lambda i: "/", inbox),
        LoadPage("inbox: administrator (everything)", "admin", lambda i: "/", inbox),
        LoadPage("project page", "pm", lambda i: f"/projects/{pid(i)}", "milestone-group"),
        LoadPage(
            "project page, filtered",
            "pm",
            lambda i: f"/projects/{pid(i)}?department={dept(i)}&status=open",
            "condition-filters",
        ),
        LoadPage(
            "condition page",
            "reviewer",
            lambda i: f"/projects/{pid(i)}/conditions/{number(i)}",
            "condition-status",
        ),
        LoadPage(
            "sign-off page",
            "engineer",
            lambda i: f"/projects/{pid(i)}/milestones/grading_permit/sign-off",
            "section-blockers",
        ),
        LoadPage(
            "wireless application page",
            "pm",
            lambda i: f"/applications/{app(i)}",
            "clock-timeline",
        ),
        LoadPage("wireless applications", "manager", lambda i: "/applications", "clock-row"),
        LoadPage("review queue", "reviewer", lambda i: "/queues/engineering", "queue"),
        LoadPage("outbox", "admin", lambda i: "/outbox", "outbox-table"),
        LoadPage(
            "permit clock page",
            "pm",
            lambda i: f"/permits/PC-{1 + i % 2000:05d}",
            "section-ledger",
        ),
        LoadPage(
            "applicant portal",
            "applicant",
            lambda i: portal_paths[i % len(portal_paths)],
            "portal-stepper",
        ),
    ]


def portal_links(url: str, base_url: str, project_ids: list[str], count: int) -> list[str]:
    """Applicant links for some projects, made as staff make them (a signed token)."""
    from operations.signing import secret_key
    from settings import load_settings
    from web.auth.security import Signer

    accounts = Accounts(make_engine(url))
    settings = load_settings()
    signer = Signer(secret_key(settings))
    paths = []
    for pid in project_ids[:count]:
        link = accounts.create_link("project", pid, "pm@cotati.example", 30)
        paths.append(f"/a/{signer.link_token(link.link_id)}")
    return paths


async def _login(base_url: str, email: str) -> httpx.Cookies:
    import re

    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        form = await client.get("/login")
        token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
        data = {"email": email, "password": PASSWORD, "csrf_token": token[1] if token else ""}
        done = await client.post("/login", data=data)
        if done.status_code not in (302, 303):
            raise SystemExit(f"error: log-in as {email} failed ({done.status_code})")
        return client.cookies


async def drive(
    base_url: str,
    pages: list[LoadPage],
    requests: int,
    users: int,
    think: tuple[float, float],
    seed_value: int = 7,
) -> tuple[list[PageResult], float, float]:
    cookies = {name: await _login(base_url, u[0]) for name, u in USERS.items()}
    # Three unmeasured warm-ups per page first (shuffled among themselves), then the
    # measured requests: warm-ups mixed into the run left its first seconds cold.
    rng = random.Random(seed_value)
    warm = [(p, i) for p in pages for i in range(-3, 0)]
    measured = [(p, i) for p in pages for i in range(requests)]
    rng.shuffle(warm)
    rng.shuffle(measured)
    jobs = warm + measured
    queue: asyncio.Queue[tuple[LoadPage, int]] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    timings: dict[str, list[float]] = {p.name: [] for p in pages}
    sizes: dict[str, int] = {p.name: 0 for p in pages}
    # Idle connections are dropped before uvicorn's 5 s keep-alive ends, so a person
    # who read a page for a while never writes into a socket the server is closing.
    limits = httpx.Limits(
        max_connections=users, max_keepalive_connections=users, keepalive_expiry=2.0
    )

    async def person(n: int) -> None:
        mine = random.Random(seed_value * 1000 + n)
        clients = {
            name: httpx.AsyncClient(base_url=base_url, cookies=c, timeout=60, limits=limits)
            for name, c in cookies.items()
        }
        clients["applicant"] = httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits)
        try:
            await asyncio.sleep(mine.uniform(0, think[1]))  # people do not all arrive at once
            while True:
                try:
                    page, i = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                url = page.url(abs(i))
                started = time.perf_counter()
                try:
                    response = await clients[page.user].get(url)
                except httpx.TransportError:
                    # A connection the server closed as it was reused: asked again, and
                    # the time of both attempts counts.
                    response = await clients[page.user].get(url)
                body = response.content
                elapsed = (time.perf_counter() - started) * 1000
                if response.status_code != 200 or page.expect.encode() not in body:
                    raise SystemExit(
                        f"error: GET {url} as {page.user} gave {response.status_code} "
                        f"without {page.expect!r}:\n{response.text[:400]}"
                    )
                if i >= 0:
                    timings[page.name].append(elapsed)
                    sizes[page.name] += len(body)
                await asyncio.sleep(mine.uniform(*think))
        finally:
            for client in clients.values():
                await client.aclose()

    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    await asyncio.gather(*(person(n) for n in range(users)))
    seconds = time.perf_counter() - started
    results = [
        PageResult(
            p.name,
            p.user,
            len(timings[p.name]),
            percentile(timings[p.name], 50),
            percentile(timings[p.name], 95),
            max(timings[p.name]),
            sizes[p.name] / max(1, len(timings[p.name])) / 1024,
        )
        for p in pages
    ]
    return results, seconds, load_before


def section(
    when: datetime,
    backend: str,
    report: SeedReport,
    results: list[PageResult],
    args: argparse.Namespace,
    seconds: float,
    load: float,
) -> str:
    info = machine()
    total = sum(r.requests for r in results)
    # The server runs without CLEARANCE_WEB_WORKERS (Server drops every CLEARANCE_ setting
    # it does not set): the shipped default, one process per core.
    processes = len(os.sched_getaffinity(0))
    return "\n".join(
        [
            f"## Web pages, {args.users} concurrent users — {when:%Y-%m-%d}, {info['cpu']}, "
            f"{info['cores']} cores, {backend}",
            "",
            textwrap.fill(
                "Written by `.venv/bin/python -m bench.web_load --postgres --write` "
                "(`bench/web_load.py`). The read model is seeded directly "
                "(`bench/web_seed.py`); the app runs as `clearance web` with its shipped "
                f"default of one process per CPU core ({processes} here) against "
                f"it; {args.users} simulated people, driven at once by asyncio and httpx, "
                "each open a page, read it for "
                f"{args.think[0]:g}-{args.think[1]:g} s, then open the next, every page and "
                "role in a shuffled order, after three unmeasured warm-ups per page. Times are "
                "from request sent to body received. The load average before the run "
                "(below) says whether anything else was running. "
                f"Goal: p95 < {GOAL_P95_MS:.0f} ms for every page.",
                width=90,
            ),
            "",
            *run_and_data(when, load, info, report),
            f"- Database: {backend}"
            + (" (VACUUM ANALYZE after seeding)" if backend == "PostgreSQL" else "")
            + f"; {total:,} measured requests in {seconds:.0f} s "
            f"({total / seconds:.1f} per second)",
            "",
            table(results, requests=True),
            "",
        ]
    )


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--requests", type=int, default=150, help="measured requests per page")
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--conditions-per-project", type=int, default=100)
    parser.add_argument("--clocks", type=int, default=5000)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster")
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    when = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="clearance-web-load-") as tmp, ExitStack() as stack:
        data_dir = Path(tmp)
        url, backend = database(stack, data_dir, "clearance_load", args.postgres)
        engine = prepare_database(url, reset=False)
        print(f"seeding {backend} ...", flush=True)
        report = seed(engine, SeedSize(args.projects, args.conditions_per_project, args.clocks))
        settle(engine)
        engine.dispose()
        add_users(make_engine(url), USERS)
        os.environ["CLEARANCE_DATA_DIR"] = str(data_dir)  # the server's key signs the links
        server = Server(url, data_dir)
        try:
            portals = portal_links(url, server.base_url, report.project_ids, 50)
            pages = load_pages(report, portals)
            results, seconds, load = asyncio.run(
                drive(server.base_url, pages, args.requests, args.users, tuple(args.think))
            )
        finally:
            server.stop()
    for r in results:
        print(r.line(36))
    text = section(when, backend, report, results, args, seconds, load)
    write_json(args.json, [asdict(r) for r in results])
    finish(text, args.write, results)


if __name__ == "__main__":
    main()
