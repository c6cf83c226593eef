"""End the test process without the interpreter's teardown, as `clearance`'s own entry
point does (cli/main.py): temporalio's Rust runtime outlives every worker the suite
started, and tearing it down with the interpreter can abort the process ("Fatal Python
error: PyGILState_Release ... finalizing", exit 134, temporalio/sdk-python#300) or panic
in a local activity's timeout task (`local_activities.rs`, `TimeoutBag`) after the
results are printed. The run's result is decided by then; its exit code must stand.

The exit happens in an `atexit` callback, after pytest has returned from its own cleanup,
and only once a session has finished. Callbacks registered after this plugin was
configured (pytest's temporary folders, the suite's own) run before it; it flushes the
logs and the standard streams itself."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys

import pytest

_exit_status: int | None = None


def _exit_without_teardown() -> None:
    if _exit_status is None:
        return  # the session never finished: let Python end as it would
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(_exit_status)


def pytest_configure(config: pytest.Config) -> None:
    atexit.register(_exit_without_teardown)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _exit_status
    _exit_status = int(exitstatus)
