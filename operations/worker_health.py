"""The worker's health endpoints, on `CLEARANCE_WORKER_HEALTH_PORT` (0: none).

- `GET /healthz`: 200 while the process and its worker are alive (for a liveness probe:
  restart the container when it fails);
- `GET /readyz`: 200 when the worker is polling Temporal (the worker is running and the
  server answers) and the database passes its probe (`SELECT 1`, or the write the worker
  passes in: models.database.write_probe); else 503 with what failed (for a
  readiness probe and for an operator's first look).

A tiny asyncio HTTP server: two GET routes need no web framework in the worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import Engine, text
from temporalio.client import Client
from temporalio.worker import Worker

log = logging.getLogger("clearance.health")

CHECK_TIMEOUT = 3.0  # seconds for each readiness check


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


def _database_ok(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))


class WorkerHealth:
    def __init__(
        self,
        worker: Worker,
        client: Client,
        engine: Engine,
        port: int,
        host: str = "0.0.0.0",
        database_probe: Callable[[Engine], None] = _database_ok,
    ) -> None:
        self._database_probe = database_probe
        self._worker = worker
        self._client = client
        self._engine = engine
        self.port = port
        self.host = host
        self._server: asyncio.Server | None = None

    def alive(self) -> bool:
        # A worker still starting (or draining) is alive: a liveness probe must not kill
        # it. Only one that has shut down is not. Readiness asks whether it is polling.
        return not self._worker.is_shutdown

    def polling(self) -> bool:
        return self._worker.is_running and not self._worker.is_shutdown

    async def readiness(self) -> list[Check]:
        async def run(name: str, probe: Callable[[], Awaitable[object]]) -> Check:
            try:
                await asyncio.wait_for(probe(), CHECK_TIMEOUT)
                return Check(name, True)
            except Exception as err:  # noqa: BLE001 - any failure is "not ready", reported
                return Check(name, False, f"{type(err).__name__}: {err}"[:300])

        async def polling() -> None:
            if not self.polling():
                raise RuntimeError("the worker is not running")
            await self._client.service_client.check_health()

        return list(
            await asyncio.gather(
                run("temporal", polling),
                run("database", lambda: asyncio.to_thread(self._database_probe, self._engine)),
            )
        )

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        log.info("health endpoints on http://%s:%d/healthz and /readyz", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readline(), 5)
            # Drain the headers; the body of a GET is ignored.
            while (line := await asyncio.wait_for(reader.readline(), 5)) not in (b"\r\n", b""):
                del line
            parts = request.decode("latin-1").split()
            method, path = (parts[0], parts[1].split("?")[0]) if len(parts) >= 2 else ("", "")
            status, body = await self._route(method, path)
            payload = json.dumps(body).encode()
            reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}.get(
                status, "Service Unavailable"
            )
            writer.write(
                f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _route(self, method: str, path: str) -> tuple[int, dict[str, object]]:
        if path not in ("/healthz", "/readyz"):
            return 404, {"error": f"no such endpoint {path!r}: use /healthz or /readyz"}
        if method not in ("GET", "HEAD"):
            return 405, {"error": f"{method} is not allowed: use GET"}
        if path == "/healthz":
            alive = self.alive()
            return (200 if alive else 503), {"status": "alive" if alive else "stopping"}
        checks = await self.readiness()
        ready = all(c.ok for c in checks)
        return (200 if ready else 503), {
            "status": "ready" if ready else "not ready",
            "checks": {c.name: ("ok" if c.ok else c.detail) for c in checks},
        }
