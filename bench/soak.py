"""The fault tests in their long form: the same tests as `pytest tests/faults`, sized up.

    .venv/bin/python -m bench.soak [--clocks 500] [-k kill]

Each test opens `--clocks` shot clocks (three notices each: reminders 7 and 1 days
before the deadline, and the expiry escalation) against a real dev server, a real SMTP
server and `clearance worker` in its own process, then: kills the worker with SIGKILL
again and again; kills and restarts the Temporal server; takes the SMTP server down; stops
the PostgreSQL database. Every notice must arrive exactly once and no workflow may fail.
The normal suite runs them with 10–20 clocks. Exit code: pytest's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clocks", type=int, default=500, help="clocks per fault test")
    parser.add_argument("-k", dest="select", help="only tests matching this pytest -k expression")
    args = parser.parse_args()
    if args.clocks < 1:
        parser.error(f"--clocks must be at least 1, not {args.clocks}")
    cmd = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/faults"]
    if args.select:
        cmd += ["-k", args.select]
    env = {**os.environ, "CLEARANCE_FAULT_CLOCKS": str(args.clocks)}
    return subprocess.run(cmd, cwd=PROJECT_ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
