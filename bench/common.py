"""What every benchmark shares and needs no Temporal server for: the command line (a
description from the docstring, the figures as JSON), timeline events, round-robin rates
and percentiles. (bench/harness.py holds what the workflow benchmarks share.)"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Every category the federal pack knows, opened in turn (all in California).
CATEGORIES = [
    "swf_collocation",
    "macro_collocation",
    "swf_new_structure",
    "macro_new_structure",
    "eligible_facilities_request",
]

JSON_HELP = "also write the figures to this file"


def command_line(doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's parser, described by its docstring's first paragraph."""
    return argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])


def add_json_option(parser: argparse.ArgumentParser, *, stdout: bool = False) -> None:
    """`--json PATH`; with `stdout`, `--json` alone writes to standard output."""
    if stdout:
        parser.add_argument(
            "--json",
            nargs="?",
            const="-",
            metavar="PATH",
            help="also write the figures as JSON to PATH (or standard output without one)",
        )
    else:
        parser.add_argument("--json", type=Path, help=JSON_HELP)


def write_json(target: str | Path | None, figures: Any) -> None:
    """The figures as indented JSON, to `target` ("-": standard output; None: nowhere)."""
    if target == "-":
        sys.stdout.write(json.dumps(figures, indent=2) + "\n")
    elif target:
        Path(target).write_text(json.dumps(figures, indent=2))


def exit_now() -> None:
    """Skip interpreter teardown: temporalio's Rust runtime threads can abort it with
    "Fatal Python error: PyGILState_Release" (as cli/main.py does)."""
    sys.stdout.flush()
    os._exit(0)


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def rate_main(
    doc: str | None, run: Callable[[float], dict[str, Any]], figure: str, goal: float, says: str
) -> None:
    """A compute benchmark's command line: `--seconds` per figure, `--json`, and whether
    `figure` reached `goal` (`says` names the goal)."""
    parser = command_line(doc)
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per figure")
    add_json_option(parser)
    args = parser.parse_args()
    result = run(args.seconds)
    print(f"{says}: {verdict(result[figure] >= goal)}")
    write_json(args.json, result)


def event(kind: str, when: str, **fields: Any) -> dict[str, Any]:
    """A timeline event as the JSON contract takes it."""
    return {"type": kind, "date": when, **fields}


def rate(
    fn: Callable[[Any], Any], inputs: list[Any], seconds: float, *, cpu_budget: bool = False
) -> tuple[int, float, float]:
    """Call fn round-robin over inputs for about `seconds` (of wall time, or of this
    process's CPU time with `cpu_budget`); return (calls, wall seconds, CPU seconds). The
    clocks are read once per full round so timing overhead stays negligible."""
    calls = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = (cpu_start if cpu_budget else start) + seconds
    while True:
        for value in inputs:
            fn(value)
        calls += len(inputs)
        now = time.perf_counter()
        cpu = time.process_time()
        if (cpu if cpu_budget else now) >= deadline:
            return calls, now - start, cpu - cpu_start


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q from 0 to 1); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
