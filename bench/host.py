"""How busy and how fast the host was while a storm drained.

The same storm code has used up to 30% more CPU from one hour to the next on this shared
machine (docs/storm.md, "The eighth round"). Two instruments tell the machine's share from
the code's:

- the host's CPU time by kind over a window (`/proc/stat`): busy, iowait, idle and steal
  (time the hypervisor gave this machine's cores to someone else), and how much of the busy
  time was not the benchmark's own processes;
- the dev server's garbage collector, from its `GODEBUG=gctrace=1` lines: how many
  collections ran in the window and their CPU time;
- a calibration: a fixed piece of pure-Python work, timed in CPU and wall time. Its CPU
  time grows when each cycle does less (a neighbour thrashing the shared caches, a lower
  clock); its wall time beyond its CPU time is time the core was taken away.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

# The fields of /proc/stat's "cpu" line, in order (proc(5)).
_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
# Calibration: this many rounds of hashing and dict work (about 0.2 s on this machine),
# timed three times; the median is reported.
CALIBRATION_ROUNDS = 250_000
CALIBRATION_REPEATS = 3


@dataclass(frozen=True)
class HostCpu:
    """Seconds of CPU time since boot, summed over the cores, by kind."""

    user: float
    nice: float
    system: float
    idle: float
    iowait: float
    irq: float
    softirq: float
    steal: float

    @property
    def busy(self) -> float:
        return self.user + self.nice + self.system + self.irq + self.softirq


def parse_proc_stat(text: str, ticks_per_second: int) -> HostCpu:
    """The aggregate "cpu" line of /proc/stat, in seconds."""
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            values = [int(v) / ticks_per_second for v in parts[1 : 1 + len(_FIELDS)]]
            values += [0.0] * (len(_FIELDS) - len(values))  # old kernels lack steal
            return HostCpu(*values)
    raise ValueError("/proc/stat has no aggregate 'cpu' line")


def host_cpu() -> HostCpu | None:
    """This machine's CPU times now, or None where /proc/stat does not exist."""
    try:
        text = Path("/proc/stat").read_text()
    except OSError:
        return None
    return parse_proc_stat(text, os.sysconf("SC_CLK_TCK"))


def host_used(
    before: HostCpu | None, after: HostCpu | None, processes_cpu: float, cores: int
) -> dict[str, float]:
    """Over a window: each kind as a share (%) of the cores' time, and the busy time the
    benchmark's own processes (`processes_cpu` seconds) do not account for."""
    if before is None or after is None:
        return {}
    spent = {f: getattr(after, f) - getattr(before, f) for f in _FIELDS}
    busy = after.busy - before.busy
    window = sum(spent.values()) or 1.0
    return {
        "window_s": round(window / cores, 1),
        "busy_pct": round(100 * busy / window, 1),
        "iowait_pct": round(100 * spent["iowait"] / window, 1),
        "steal_pct": round(100 * spent["steal"] / window, 1),
        "idle_pct": round(100 * spent["idle"] / window, 1),
        "other_busy_s": round(max(0.0, busy - processes_cpu), 1),
    }


def calibrate(rounds: int = CALIBRATION_ROUNDS) -> dict[str, float]:
    """Time a fixed piece of Python work (hashing, string and dict operations, the kind of
    work the worker's Python does) a few times: the median run's CPU and wall milliseconds."""
    runs = sorted((_timed(rounds) for _ in range(CALIBRATION_REPEATS)), key=lambda r: r[0])
    cpu_ms, wall_ms = runs[len(runs) // 2]
    return {"cpu_ms": round(cpu_ms, 1), "wall_ms": round(wall_ms, 1)}


def _timed(rounds: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    table: dict[str, int] = {}
    digest = b"clearance"
    for i in range(rounds):
        digest = hashlib.sha256(digest).digest()
        key = digest.hex()[:12]
        table[key] = table.get(key, 0) + i
        if len(table) > 512:
            table.clear()
    return 1000 * (time.thread_time() - cpu), 1000 * (time.perf_counter() - wall)


# One line per collection (runtime package docs, GODEBUG gctrace=1): "gc N @Ts P%: ... ms
# clock, A+B/C/D+E ms cpu, ...": stop-the-world sweep termination (A), mark assists (B),
# background (C) and idle (D) marking, stop-the-world mark termination (E).
_GC_LINE = re.compile(
    r"^gc \d+ @(?P<at>[\d.]+)s \d+%: \S+ ms clock, "
    r"(?P<a>[\d.]+)\+(?P<b>[\d.]+)/(?P<c>[\d.]+)/(?P<d>[\d.]+)\+(?P<e>[\d.]+) ms cpu"
)


def go_gc_cpu(trace: str, started: float, window: tuple[float, float]) -> dict[str, float]:
    """The collections a Go process (started at Unix time `started`) traced in `trace`
    during `window` (Unix times): their number and CPU seconds. Idle marking is counted:
    it runs on a core the Go scheduler found idle, which another process could have used."""
    cycles, cpu_ms = 0, 0.0
    for line in trace.splitlines():
        m = _GC_LINE.match(line)
        if m is None or not window[0] <= started + float(m["at"]) <= window[1]:
            continue
        cycles += 1
        cpu_ms += sum(float(m[k]) for k in "abcde")
    return {"cycles": cycles, "cpu_s": round(cpu_ms / 1000, 2)}
