"""The inbox ("What needs you") under 50 concurrent users in a deployment of 20
jurisdictions of 500 wireless clocks each: every request is scoped to the asking user's
cities (models/scope.py), so this measures what the scope costs. Goal: p95 < 300 ms.

Seeds the read model as bench/web_load.py does (bench/web_seed.py; here 10,000 clocks
and a smaller set of projects), then spreads the clocks and projects evenly over 20
jurisdictions saved as administrators save them (table jurisdiction_versions), and gives
50 people their cities (table user_jurisdictions): 45 project managers of one city each,
and 5 contract-firm managers of four cities each. Serves the real app with `clearance
web`, logs each person in, and runs the 50 at once (asyncio and httpx): each opens the
inbox, reads it for `--think` seconds, and opens it again, until `--requests` inboxes
were measured. Each response is checked to show only the person's own cities' records.

    .venv/bin/python -m bench.jurisdictions_inbox --postgres [--write] [--requests 600]
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import tempfile
import textwrap
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import httpx
from sqlalchemy import select, update

from bench.common import command_line
from bench.run_all import machine
from bench.web_pages import (
    GOAL_P95_MS,
    PASSWORD,
    PageResult,
    Server,
    database,
    finish,
    percentile,
    prepare_database,
    run_and_data,
    settle,
    table,
)
from bench.web_seed import SeedSize, seed
from models.database import make_engine, session_factory
from models.schema import Application, JurisdictionVersion, Project, User, UserJurisdiction
from web.auth.accounts import Accounts

CITIES = [f"city-{n:02d}" for n in range(20)]
TEMPLATE = Path(__file__).resolve().parent.parent / "rules" / "data" / "jurisdictions"
INBOX = 'data-testid="inbox-covers"'


def spread(url: str) -> dict[str, list[str]]:
    """Each city's document saved as version 1, the clocks and projects dealt out to the
    cities in turn, and each person's cities; returns person e-mail -> cities."""
    engine = make_engine(url)
    sessions = session_factory(engine)
    template = json.loads((TEMPLATE / "cotati.json").read_text(encoding="utf-8"))
    now = datetime.now(UTC)
    with sessions.begin() as session:
        for n, key in enumerate(CITIES):
            document = {**template, "key": key, "name": f"City {n:02d}", "default": False}
            document["adopted_holidays"] = {**template["adopted_holidays"], "key": f"{key}_adopted"}
            session.add(
                JurisdictionVersion(
                    jurisdiction=key, version=1, effective_from="2020-01-01", document=document,
                    changed=sorted(document), actor="bench", reason="bench", rebase=False,
                    created_at=now,
                )
            )  # fmt: skip
        for model, column in ((Application, "application_id"), (Project, "project_id")):
            ids = sorted(session.scalars(select(getattr(model, column))))
            for n, key in enumerate(CITIES):
                mine = ids[n :: len(CITIES)]
                for start in range(0, len(mine), 1000):
                    chunk = mine[start : start + 1000]
                    session.execute(
                        update(model)
                        .where(getattr(model, column).in_(chunk))
                        .values(jurisdiction=key)
                    )
    accounts = Accounts(engine)
    people: dict[str, list[str]] = {}
    for n in range(50):
        if n < 45:
            email, cities = f"pm{n:02d}@cities.example", [CITIES[n % 20]]
        else:
            email = f"contract{n:02d}@firm.example"
            cities = [CITIES[(n * 4 + k) % 20] for k in range(4)]
        user = accounts.add_user(email, "project_manager", PASSWORD, replace=True)
        people[email] = cities
        with sessions.begin() as session:
            user_id = session.scalar(select(User.id).where(User.email == user.email))
            for key in cities:
                session.add(
                    UserJurisdiction(
                        user_id=user_id, jurisdiction=key, role="project_manager", department=""
                    )
                )
    engine.dispose()
    return people


def query_ratio(url: str, people: dict[str, list[str]]) -> tuple[float, float]:
    """The inbox's queries alone, in this process, one at a time: median ms unscoped (as a
    single-city deployment runs them) and scoped to one city, over 20 runs each."""
    from models.scope import scoped
    from web.queries.inbox import inbox_for

    engine = make_engine(url)
    sessions = session_factory(engine)
    email, cities = next(iter(people.items()))
    medians = []
    for scope in (None, cities):
        runs = []
        for _ in range(20):
            started = time.perf_counter()
            with scoped(scope), sessions() as db:
                inbox_for(db, "project_manager", email, "", datetime.now(UTC).date(), "UTC")
            runs.append((time.perf_counter() - started) * 1000)
        medians.append(sorted(runs)[len(runs) // 2])
    engine.dispose()
    return medians[0], medians[1]


async def _login(client: httpx.AsyncClient, email: str) -> None:
    form = await client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    data = {"email": email, "password": PASSWORD, "csrf_token": token[1] if token else ""}
    done = await client.post("/login", data=data)
    if done.status_code not in (302, 303):
        raise SystemExit(f"error: log-in as {email} failed ({done.status_code})")


async def drive(
    base_url: str,
    people: dict[str, list[str]],
    owner: dict[str, str],
    requests: int,
    think: tuple[float, float],
) -> tuple[list[float], float, float, float]:
    """(measured times in ms, seconds, load average before, mean body in KiB)."""
    limits = httpx.Limits(max_connections=100, keepalive_expiry=2.0)
    clients = {
        email: httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) for email in people
    }
    for email, client in clients.items():
        await _login(client, email)
    remaining = [3 * len(people) + requests]  # three unmeasured warm-ups each, then the run
    warmups = {email: 3 for email in people}
    timings: list[float] = []
    sizes: list[int] = []

    async def person(email: str, n: int) -> None:
        mine = random.Random(n)
        client = clients[email]
        await asyncio.sleep(mine.uniform(0, think[1]))
        while remaining[0] > 0:
            remaining[0] -= 1
            started = time.perf_counter()
            response = await client.get("/")
            body = response.text
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200 or INBOX not in body:
                raise SystemExit(f"error: the inbox of {email} gave {response.status_code}")
            for found in set(re.findall(r"WTF-\d{5}", body)):
                if owner.get(found) not in people[email]:
                    raise SystemExit(f"error: {email} was shown {found} of another city")
            if warmups[email]:
                warmups[email] -= 1
            else:
                timings.append(elapsed)
                sizes.append(len(response.content))
            await asyncio.sleep(mine.uniform(*think))

    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    try:
        await asyncio.gather(*(person(e, n) for n, e in enumerate(people)))
    finally:
        for client in clients.values():
            await client.aclose()
    kib = sum(sizes) / len(sizes) / 1024 if sizes else 0.0
    return timings, time.perf_counter() - started, load_before, kib


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--requests", type=int, default=600, help="measured inboxes")
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument("--clocks-per-city", type=int, default=500)
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster")
    parser.add_argument("--write", action="store_true", help="record the figures in BENCHMARKS.md")
    args = parser.parse_args()

    when = datetime.now(UTC)
    with tempfile.TemporaryDirectory(prefix="clearance-cities-") as tmp, ExitStack() as stack:
        data_dir = Path(tmp)
        url, backend = database(stack, data_dir, "clearance_cities", args.postgres)
        engine = prepare_database(url, reset=False)
        print(f"seeding {backend} ...", flush=True)
        size = SeedSize(args.projects, 20, args.clocks_per_city * len(CITIES))
        report = seed(engine, size)
        engine.dispose()
        people = spread(url)
        engine = make_engine(url)
        settle(engine)
        with session_factory(engine)() as session:
            rows = session.execute(select(Application.application_id, Application.jurisdiction))
            owner: dict[str, str] = {str(a): str(j) for a, j in rows}
        engine.dispose()
        unscoped_ms, scoped_ms = query_ratio(url, people)
        server = Server(url, data_dir)
        try:
            timings, seconds, load, kib = asyncio.run(
                drive(server.base_url, people, owner, args.requests, tuple(args.think))
            )
        except SystemExit:
            print(server.log.read_text(encoding="utf-8", errors="replace")[-6000:])
            raise
        finally:
            server.stop()
    result = PageResult(
        "inbox, scoped to the user's cities",
        "50 people",
        len(timings),
        percentile(timings, 50),
        percentile(timings, 95),
        max(timings),
        kib,
    )
    print(result.line(40))
    info = machine()
    text = "\n".join(
        [
            f"## Inbox, 20 jurisdictions, 50 concurrent users — {when:%Y-%m-%d}, "
            f"{info['cpu']}, {info['cores']} cores, {backend}",
            "",
            textwrap.fill(
                "Written by `.venv/bin/python -m bench.jurisdictions_inbox --postgres --write` "
                f"(`bench/jurisdictions_inbox.py`, issue 29). {len(CITIES)} jurisdictions of "
                f"{args.clocks_per_city} wireless clocks each (and {args.projects} projects "
                "dealt out among them); 45 project managers of one city and 5 contract "
                "managers of four cities, all at once, each opening the inbox, reading it "
                f"{args.think[0]:g}-{args.think[1]:g} s and opening it again; every response "
                "was checked to show only the person's own cities. Goal: p95 < "
                f"{GOAL_P95_MS:.0f} ms.",
                width=90,
            ),
            "",
            *run_and_data(when, load, info, report),
            f"- {len(timings):,} measured inboxes in {seconds:.0f} s",
            f"- The inbox's queries alone, one at a time in one process (median of 20): "
            f"{unscoped_ms:.1f} ms unscoped, {scoped_ms:.1f} ms scoped to one city "
            f"({scoped_ms / unscoped_ms:.2f}x): what the scope itself costs",
            "",
            table([result], requests=True),
            "",
        ]
    )
    finish(text, args.write, [result])


if __name__ == "__main__":
    main()
