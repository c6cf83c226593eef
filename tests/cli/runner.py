"""Run the real `clearance` command as a subprocess, the way a planner runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from settings import PROJECT_ROOT

SCRIPT = Path(sys.executable).parent / "clearance"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "cli.main"]


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (
            f"clearance {' '.join(self.args)} -> exit {self.returncode}\n"
            f"--- stdout ---\n{self.stdout}--- stderr ---\n{self.stderr}"
        )


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any CLEARANCE_* setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLEARANCE_")}
    # A wide terminal, so tables don't fold rule citations across lines.
    env["COLUMNS"] = "220"
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env.update(extra or {})
    return env


def clearance(
    *args: str,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> Result:
    proc = subprocess.run(
        [*COMMAND, *args],
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        env=dict(env) if env is not None else clean_env(),
        cwd=PROJECT_ROOT,
        timeout=timeout,
    )
    return Result(list(args), proc.returncode, proc.stdout, proc.stderr)


def assert_one_line_error(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`, nothing on stdout, exactly one `error:` line on stderr, no traceback."""
    assert result.returncode == code, result
    assert "Traceback" not in result.stderr, result
    lines = result.stderr.strip("\n").splitlines()
    assert len(lines) == 1, result
    line = lines[0]
    assert line.startswith("error:"), result
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line
