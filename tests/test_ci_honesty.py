"""CI cannot pass on tests that never ran: every skip prints its reason, and under
CI=true a test skipped because a real part (PostgreSQL, Chromium, docker-compose) is
missing fails the run, while other skips stay skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from settings import PROJECT_ROOT

SAMPLE = """
import pytest
from tests.real_parts import missing

def test_needs_postgres():
    pytest.skip(missing("PostgreSQL", "no PostgreSQL server installed"))

@pytest.mark.skipif(True, reason=missing("docker-compose", "docker-compose is not installed"))
def test_needs_compose():
    pass

@pytest.mark.skipif(True, reason="only as root")
def test_root_only():
    pass

def test_runs():
    assert True
"""


def run_sample(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    sample = tmp_path / "test_sample.py"
    sample.write_text(SAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.ci_plugin",
            "-p",
            "no:cacheprovider",
            "-c",
            str(PROJECT_ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            str(sample),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_skips_say_why_outside_ci(tmp_path: Path) -> None:
    result = run_sample(tmp_path, None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 3 skipped" in result.stdout
    assert "no PostgreSQL server installed" in result.stdout  # -rs: the reason is printed
    assert "only as root" in result.stdout


def test_a_missing_real_part_fails_under_ci(tmp_path: Path) -> None:
    result = run_sample(tmp_path, "true")
    assert result.returncode == 1, result.stdout + result.stderr
    # A skip in the test body fails it; a skipif (decided in setup) errors it: both fail.
    assert "1 failed, 1 passed, 1 skipped, 1 error" in result.stdout
    assert "CI=true and a real part is missing" in result.stdout
    assert "missing real part (PostgreSQL)" in result.stdout
    assert "missing real part (docker-compose)" in result.stdout


def test_system_packages_fail_loudly_under_ci_when_they_cannot_install(tmp_path: Path) -> None:
    """No apt-get on PATH (and every tool looked for missing): outside CI a note and exit
    0; under CI an error and exit 1."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "id", "ls"):
        found = next(p for p in (Path("/usr/bin") / tool, Path("/bin") / tool) if p.exists())
        (bin_dir / tool).symlink_to(found)
    script = PROJECT_ROOT / "scripts" / "system-packages"
    base = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    relaxed = subprocess.run(
        [str(bin_dir / "bash"), str(script)], env=base, capture_output=True, text=True
    )
    assert relaxed.returncode == 0, relaxed.stderr
    assert "note:" in relaxed.stderr
    strict = subprocess.run(
        [str(bin_dir / "bash"), str(script)],
        env={**base, "CI": "true"},
        capture_output=True,
        text=True,
    )
    assert strict.returncode == 1, strict.stderr
    assert "error:" in strict.stderr and "CI" in strict.stderr
