"""After a crash of `clearance run`, nothing is left in the way of the next one: the
Temporal dev server dies with it, even on kill -9; a server an earlier run left behind is
found by its PID file and stopped; anything else on the port is named by its PID."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from settings import load_settings
from stack.embedded import PID_FILE_NAME, PortInUse, stop_stale_server
from stack.ports import free_port, port_open
from stack.temporal_server import DevServer, alive
from tests.cli.runner import COMMAND, clean_env

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def wait_until(what: str, check: object, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def test_the_dev_server_dies_with_clearance_run_even_on_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "var"
    temporal_port, web_port = free_port(), free_port()
    env = clean_env(
        {
            "CLEARANCE_DATA_DIR": str(data_dir),
            "CLEARANCE_TEMPORAL_ADDRESS": f"127.0.0.1:{temporal_port}",
            "CLEARANCE_TEMPORAL_UI_PORT": str(free_port()),
            "CLEARANCE_WEB_HOST": "127.0.0.1",
            "CLEARANCE_WEB_PORT": str(web_port),
            "CLEARANCE_SMTP_HOST": "",
        }
    )
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        run = subprocess.Popen(
            [*COMMAND, "run", "--no-demo"],
            env=env,
            cwd=PROJECT_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server_pid = 0
    try:
        wait_until("the web app", lambda: port_open("127.0.0.1", web_port) or run.poll())
        assert run.poll() is None, log.read_text(errors="replace")[-2000:]
        server_pid = int((data_dir / PID_FILE_NAME).read_text().split()[0])
        assert alive(server_pid)
        run.send_signal(signal.SIGKILL)  # no handler runs, no finally
        run.wait(timeout=30)
        wait_until("the dev server to stop", lambda: not alive(server_pid), 60)
        wait_until("its port to close", lambda: not port_open("127.0.0.1", temporal_port), 30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if server_pid and alive(server_pid):
            os.killpg(server_pid, signal.SIGKILL)


def test_a_server_left_by_a_crashed_run_is_stopped(tmp_path: Path) -> None:
    data_dir = tmp_path / "var"
    data_dir.mkdir()
    port = free_port()
    # What a crash on a system without the parent-death signal leaves: a server and its PID.
    left = DevServer(
        data_dir / "temporal.db", port=port, ui_port=None, pid_file=data_dir / PID_FILE_NAME
    )
    left.start()
    try:
        pid = int((data_dir / PID_FILE_NAME).read_text())
        settings = dataclasses.replace(
            load_settings(), data_dir=data_dir, temporal_address=f"127.0.0.1:{port}"
        )
        stop_stale_server(settings)
        assert not alive(pid)
        assert not port_open("127.0.0.1", port)
        assert not (data_dir / PID_FILE_NAME).exists()
    finally:
        left.stop()


def test_another_process_on_the_port_is_named_by_its_pid(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        settings = dataclasses.replace(
            load_settings(), data_dir=tmp_path / "var", temporal_address=f"127.0.0.1:{port}"
        )
        with pytest.raises(PortInUse) as refused:
            stop_stale_server(settings)
    message = str(refused.value)
    assert f"port {port} is in use by PID {os.getpid()} (" in message
    assert "CLEARANCE_TEMPORAL_ADDRESS" in message
    assert "already running" not in message
