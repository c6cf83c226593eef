"""Under CI=true a test skipped for a missing real part fails the run instead (pytest
plugin, loaded by tests/conftest.py). Other skips (a root-only test on a non-root
machine, say) stay skips; every skip prints its reason (-rs in pyproject's addopts)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.real_parts import MISSING


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _reason(report: pytest.TestReport) -> str:
    longrepr: Any = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not (report.skipped and under_ci()) or hasattr(report, "wasxfail"):
        return
    reason = _reason(report)
    if MISSING in reason:
        report.outcome = "failed"
        report.longrepr = (
            f"CI=true and a real part is missing, so this fails instead of skipping: "
            f"{reason.removeprefix('Skipped: ')}. scripts/system-packages installs it."
        )
