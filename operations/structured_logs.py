"""Logging for the worker and the CLI: plain text, or one JSON object per line.

`CLEARANCE_LOG_FORMAT=json` gives lines a log shipper can index without parsing:
`time`, `level`, `logger`, `message`, the workflow or activity a line came from (the
Temporal SDK's `workflow.logger` and `activity.logger` attach them; any other logger
called inside an activity gets them too), any `extra=` fields, and `exception`.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from temporalio import activity

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

# Attributes every LogRecord has: anything else on a record came from `extra=`.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


def _ids(record: logging.LogRecord) -> dict[str, Any]:
    """Workflow and activity ids from the SDK's extras, or the current activity."""
    out: dict[str, Any] = {}
    wf = getattr(record, "temporal_workflow", None)
    if isinstance(wf, dict):
        out["workflow_id"] = wf.get("workflow_id")
        out["run_id"] = wf.get("run_id")
        out["workflow_type"] = wf.get("workflow_type")
    act = getattr(record, "temporal_activity", None)
    if not isinstance(act, dict) and activity.in_activity():
        info = activity.info()
        act = {
            "workflow_id": info.workflow_id,
            "workflow_run_id": info.workflow_run_id,
            "activity_id": info.activity_id,
            "activity_type": info.activity_type,
            "attempt": info.attempt,
        }
    if isinstance(act, dict):
        out["workflow_id"] = act.get("workflow_id")
        out["run_id"] = act.get("workflow_run_id")
        out["activity_id"] = act.get("activity_id")
        out["activity_type"] = act.get("activity_type")
        out["attempt"] = act.get("attempt")
    return {k: v for k, v in out.items() if v is not None}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(_ids(record))
        for name, value in vars(record).items():
            if name in _STANDARD or name in entry or name.startswith("temporal_"):
                continue
            if name in ("activity_info", "workflow_info"):
                continue
            entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        # default=str: an extra that JSON cannot hold (a date, a path) is written as text.
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(log_format: str, level: str, stream: TextIO | None = None) -> None:
    """Replace the root logger's handlers with one writing `log_format` at `level`."""
    fmt = log_format.strip().lower()
    if fmt not in LOG_FORMATS:
        raise ValueError(
            f"CLEARANCE_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {log_format!r}"
        )
    numeric = logging.getLevelName(level.strip().upper())
    if not isinstance(numeric, int):
        raise ValueError(
            f"CLEARANCE_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level!r}"
        )
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)
