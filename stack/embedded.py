"""`clearance run`: the whole product on embedded defaults, in one process tree.

Starts the Temporal dev server on a SQLite file under the data folder, registers the
search attributes, runs the worker, loads the demo applications once, prints where to
look, and on Ctrl-C shuts the worker down and stops the server. Running it again keeps
every clock: they live in the SQLite file.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pendulum
import uvicorn
from rich.console import Console

from models.database import sqlite_files
from operations.data_folder import keep_private
from rules.kernel.jurisdictions import jurisdiction
from settings import Settings, load_settings
from stack.demo import (
    DEMO_CLOCKS,
    DEMO_PASSWORD,
    DEMO_USERS,
    load_demo,
    load_demo_users,
    load_project_demo,
    load_second_project_demo,
)
from stack.ports import port_open
from stack.temporal_server import (
    DevServer,
    command_line,
    listening_pid,
    stale_dev_server,
    stop_stale,
)

console = Console()
# The dev server's PID while `clearance run` runs, in the data folder.
PID_FILE_NAME = "temporal.pid"


class PortInUse(RuntimeError):
    """A port `clearance run` needs is taken: the message says which, and what to set."""


def run_embedded(load_demo: bool = True) -> None:
    settings = load_settings()
    stop_stale_server(settings)
    if port_open(settings.web_host, settings.web_port):
        raise PortInUse(
            f"port {settings.web_port} is in use{_by(settings.web_port)}: set "
            "CLEARANCE_WEB_PORT to run the web app on another port"
        )
    # Before anything is created: the data folder 0700, every file in it 0600, for this
    # process and the dev server it starts; an older install's files are fixed now.
    privacy = keep_private(settings.data_dir, sqlite_files(settings.database_url))
    if (fixed := privacy.message()) is not None:
        console.print(fixed, markup=False, highlight=False)
    server = DevServer(
        settings.temporal_db_file,
        port=settings.temporal_port,
        ui_port=settings.temporal_ui_port,
        log_file=settings.data_dir / "temporal.log",
        pid_file=server_pid_file(settings),
        die_with_parent=True,
    )
    console.print(f"starting the Temporal dev server on {settings.temporal_db_file} ...")
    server.start()
    try:
        asyncio.run(_serve(settings, load_demo))
    finally:
        console.print("stopping the Temporal dev server ...")
        server.stop()
        console.print("stopped; every clock is kept in " + str(settings.temporal_db_file))


def server_pid_file(settings: Settings) -> Path:
    return settings.data_dir / PID_FILE_NAME


def stop_stale_server(settings: Settings) -> None:
    """Before starting: a dev server an earlier run left behind (its PID in the data
    folder) is stopped; anything else on the Temporal port is named by its PID."""
    port = settings.temporal_port
    if not port_open("127.0.0.1", port):
        return
    stale = stale_dev_server(server_pid_file(settings), port)
    if stale is not None:
        console.print(
            f"stopping the Temporal dev server (PID {stale}) that an earlier `clearance run` "
            "left running when it did not stop cleanly ...",
            markup=False,
            highlight=False,
        )
        stop_stale(stale)
        server_pid_file(settings).unlink(missing_ok=True)
        if not port_open("127.0.0.1", port):
            return
    raise PortInUse(
        f"port {port} is in use{_by(port)}: stop that process, or set "
        "CLEARANCE_TEMPORAL_ADDRESS to use another port"
    )


def _by(port: int) -> str:
    pid = listening_pid(port)
    if pid is None:
        return " by another process"
    command = command_line(pid)
    return f" by PID {pid}" + (f" ({command[:120]})" if command else "")


async def _serve(settings: Settings, with_demo: bool) -> None:
    from worker import build_worker, connect, ensure_search_attributes, ensure_webhook_dispatch

    client = await connect(settings)
    await ensure_search_attributes(client, settings.temporal_namespace)
    await ensure_webhook_dispatch(client, settings.task_queue)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with ThreadPoolExecutor(max_workers=settings.activity_threads) as executor:
        worker = build_worker(client, settings, executor=executor, warm_templates=True)
        async with worker:
            opened: list[str] = []
            if with_demo:
                # Ctrl-C while the demo loads stops the stack instead of waiting for it.
                loading = asyncio.create_task(_load_demo(client, settings))
                stopping = asyncio.create_task(stop.wait())
                await asyncio.wait({loading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not loading.done():
                    loading.cancel()
                    console.print("stopped while loading the demo; shutting the worker down ...")
                    return
                stopping.cancel()
                opened = loading.result()
            web = _web_server(settings, client)
            serving = asyncio.create_task(web.serve())
            while not web.started and not serving.done():
                await asyncio.sleep(0.05)
            if serving.done():
                serving.result()  # the web app failed to start: say why
            _print_where_to_look(settings, opened, with_demo)
            await stop.wait()
            console.print("stopping the web app and shutting the worker down ...")
            web.should_exit = True
            await serving


async def _load_demo(client: Any, settings: Settings) -> list[str]:
    # Demo dates are relative to today in the demo city (its jurisdiction file's zone).
    from stack.demo import DEMO_JURISDICTION
    from stack.permit_demo import load_permit_demo

    today = pendulum.now(jurisdiction(DEMO_JURISDICTION).time_zone).date()
    opened = await load_demo(client, settings.task_queue, today)
    opened += await load_project_demo(client, settings.task_queue, today)
    opened += await load_second_project_demo(client, settings.task_queue, today)
    opened += await load_permit_demo(client, settings.task_queue, today, DEMO_JURISDICTION)
    load_demo_users(settings.database_url)
    return opened


class _EmbeddedWebServer(uvicorn.Server):
    """uvicorn inside the stack's event loop; Ctrl-C is the stack's to handle."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _web_server(settings: Settings, client: Any) -> uvicorn.Server:
    from web.app import create_app

    config = uvicorn.Config(
        create_app(settings, client),
        host=settings.web_host,
        port=settings.web_port,
        log_level="warning",
        lifespan="off",
        proxy_headers=False,  # the app applies CLEARANCE_TRUSTED_PROXIES itself
    )
    return _EmbeddedWebServer(config)


def _print_where_to_look(settings: Settings, opened: list[str], with_demo: bool) -> None:
    demo_ids = [d.application_id for d in DEMO_CLOCKS]
    console.print()
    console.print("[bold green]Clearance is running.[/bold green]")
    if opened:
        console.print(f"  loaded demo applications: {', '.join(opened)}")
    console.print(f"  Web app          http://{settings.web_host}:{settings.web_port}/")
    if with_demo:
        console.print(f"    demo log-ins (password {DEMO_PASSWORD}):")
        for email, role, department in DEMO_USERS:
            dept = f" ({department})" if department else ""
            console.print(f"      {email:<30} {role}{dept}")
    console.print(
        f"  Temporal Web UI  http://localhost:{settings.temporal_ui_port}"
        "  (list at-risk clocks: DeemedApprovalRisk=true, or ORDER BY ConservativeDate)"
    )
    console.print(f"  Outbox           {settings.outbox_dir}  (each notice as an .eml file)")
    console.print(f"  Database         {settings.database_url}")
    console.print("  In another terminal (staff commands act through the web app as you):")
    if with_demo:
        console.print(
            f"    clearance login --email manager@cotati.example    (password {DEMO_PASSWORD})"
        )
    else:
        console.print("    clearance login --email YOU    (or --token from the tokens page)")
    console.print("    clearance clock list")
    console.print(f"    clearance clock show {demo_ids[0]}")
    console.print("    clearance project show COTATI-VILLAGE")
    console.print("    clearance permit list")
    console.print("    clearance permit show DEMO-BP")
    console.print("    clearance project blockers COTATI-VILLAGE grading_permit")
    console.print(
        "    clearance clock open --id APP-1 --category macro_collocation"
        " --planner you@city.example"
    )
    console.print(
        '    echo \'{"category": "swf_collocation", "events": '
        '[{"type": "submitted", "date": "2026-03-02"}]}\' | clearance clock compute'
    )
    console.print("  Press Ctrl-C to stop; clocks are kept across restarts.")
