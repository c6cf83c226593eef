"""Real processes for the fault tests and the scale benchmark: the `clearance worker`
command in its own process (killable with SIGKILL, measurable with psutil), and an
aiosmtpd SMTP server that records when it accepted each message (stoppable, restartable
on the same port)."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from activities.mail import NOTICE_KEY_HEADER
from stack.ports import free_port, port_open

PROJECT_ROOT = Path(__file__).resolve().parent.parent
_HEADERS = BytesHeaderParser(policy=policy.default)


@dataclass
class Accepted:
    notice_key: str
    message_id: str
    to: list[str]
    subject: str
    at: float  # time.time() when the server accepted the message
    session: int = 0  # which SMTP connection brought it (SmtpRecorder numbers them)


@dataclass
class SmtpRecorder:
    """An SMTP server on 127.0.0.1 that keeps every message it accepts."""

    port: int = field(default_factory=free_port)
    accepted: list[Accepted] = field(default_factory=list)
    delay: float = 0.0  # seconds to hold each message before accepting (a slow server)
    receiving: int = 0  # messages whose data has arrived, accepted or not yet
    # Connections that ended with QUIT. The last message accepted on a connection that
    # never said QUIT may have been cut off after the server's "250" (the sender was
    # killed before it noted the acceptance); the earlier ones on a kept connection were
    # not, since their sender went on to the next letter.
    quit_sessions: set[int] = field(default_factory=set)
    _controller: Controller | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _sessions: itertools.count = field(default_factory=lambda: itertools.count(1))

    def _session_number(self, session: Any) -> int:
        if getattr(session, "recorder_number", None) is None:
            session.recorder_number = next(self._sessions)
        return int(session.recorder_number)

    async def handle_QUIT(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            self.quit_sessions.add(self._session_number(session))
        return "221 Bye"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.receiving += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        at = time.time()
        # Headers only: the recorder needs three of them, and parsing a notice's two MIME
        # bodies with the modern policy cost 2.8 ms a message (0.45 for the headers),
        # CPU a real relay on another machine never takes from the worker's cores.
        msg = _HEADERS.parsebytes(envelope.content)
        with self._lock:
            self.accepted.append(
                Accepted(
                    notice_key=str(msg[NOTICE_KEY_HEADER] or ""),
                    message_id=str(msg["Message-ID"] or ""),
                    to=list(envelope.rcpt_tos),
                    subject=str(msg["Subject"] or ""),
                    at=at,
                    session=self._session_number(session),
                )
            )
        return "250 Message accepted for delivery"

    def start(self) -> None:
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    @property
    def running(self) -> bool:
        return self._controller is not None

    def keys(self) -> list[str]:
        with self._lock:
            return [a.notice_key for a in self.accepted]

    def cut_off(self) -> list[Accepted]:
        """The last message accepted on each connection that never said QUIT: the one send
        per connection that a killed sender can have cut off between the server's
        acceptance and noting it. A sender that keeps its connection for the next letter
        has finished with every earlier message on it. Stop the senders that are still
        running cleanly (they say QUIT) before asking, or their open connections count."""
        last: dict[int, Accepted] = {}
        with self._lock:
            for a in self.accepted:
                if a.session not in self.quit_sessions:
                    last[a.session] = a
        return sorted(last.values(), key=lambda a: a.at)

    def by_key(self) -> dict[str, list[Accepted]]:
        out: dict[str, list[Accepted]] = {}
        with self._lock:
            for a in self.accepted:
                out.setdefault(a.notice_key, []).append(a)
        return out


class WorkerProcess:
    """`clearance worker` as a separate process, configured by environment variables."""

    def __init__(
        self, env: dict[str, str], log_file: Path, command: list[str] | None = None
    ) -> None:
        self.env = env
        # The shipped `clearance worker` unless a benchmark wraps it (bench/storm.py).
        self.command = command or [sys.executable, "-m", "cli.main", "worker"]
        self.log_file = log_file
        self.health_port = int(env.get("CLEARANCE_WORKER_HEALTH_PORT", "0"))
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @classmethod
    def beside(
        cls,
        data_dir: Path,
        *,
        temporal_address: str,
        task_queue: str,
        database_url: str,
        smtp_port: int | None,
        command: list[str] | None = None,
        **extra: str,
    ) -> WorkerProcess:
        """The worker for a stack started under `data_dir` (its log, outbox and a free
        health port there): what the benchmarks and the fault tests each run."""
        env = worker_env(
            data_dir=data_dir,
            temporal_address=temporal_address,
            task_queue=task_queue,
            database_url=database_url,
            smtp_port=smtp_port,
            health_port=free_port(),
            **extra,
        )
        return cls(env, data_dir / "worker.log", command)

    def start(self) -> None:
        log = open(self.log_file, "ab")  # noqa: SIM115 - owned by the child process
        self.process = subprocess.Popen(
            self.command,
            cwd=PROJECT_ROOT,
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        self.starts += 1

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until /readyz answers 200 (needs a health port), or the process dies."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise RuntimeError(f"the worker exited; see {self.log_file}")
            if self.health_port and port_open("127.0.0.1", self.health_port):
                try:
                    url = f"http://127.0.0.1:{self.health_port}/readyz"
                    with urllib.request.urlopen(url, timeout=5) as resp:
                        if resp.status == 200:
                            return
                except OSError:
                    pass
            time.sleep(0.2)
        raise TimeoutError(f"the worker was not ready after {timeout:.0f} s; see {self.log_file}")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL: no drain, no clean shutdown (a crash, an OOM kill, a pulled plug)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=20)
        self.process = None

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM and wait: the worker drains and exits; returns its exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        self.process = None
        return code

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                self.terminate(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


def worker_env(
    *,
    data_dir: Path,
    temporal_address: str,
    task_queue: str,
    database_url: str,
    smtp_port: int | None,
    health_port: int,
    **extra: str,
) -> dict[str, str]:
    env = {
        "CLEARANCE_DATA_DIR": str(data_dir),
        "CLEARANCE_TEMPORAL_ADDRESS": temporal_address,
        "CLEARANCE_TASK_QUEUE": task_queue,
        "CLEARANCE_DATABASE_URL": database_url,
        "CLEARANCE_OUTBOX_DIR": str(data_dir / "outbox"),
        "CLEARANCE_SMTP_HOST": "127.0.0.1" if smtp_port else "",
        "CLEARANCE_SMTP_PORT": str(smtp_port or 25),
        "CLEARANCE_WORKER_HEALTH_PORT": str(health_port),
        "CLEARANCE_LOG_FORMAT": "json",
    }
    env.update(extra)
    return env
