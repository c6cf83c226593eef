"""CLEARANCE_LOG_FORMAT=json: one JSON object per line with time, level, logger, message,
the workflow and activity ids when the line comes from one, and any extra fields."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from collections.abc import Iterator

import pytest
from temporalio import activity
from temporalio.testing import ActivityEnvironment

from operations.structured_logs import configure_logging


@pytest.fixture
def restore_root_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_lines_carry_time_level_logger_message_and_extras(
    restore_root_logging: None,
) -> None:
    out = io.StringIO()
    configure_logging("json", "INFO", out)
    log = logging.getLogger("clearance.test")
    log.debug("not at INFO")
    log.info("notice %s sent", "APP-1:reminder", extra={"notice_key": "APP-1:reminder"})
    try:
        raise RuntimeError("smtp down")
    except RuntimeError:
        log.exception("delivery failed")
    first, second = lines(out)
    assert first["level"] == "INFO" and first["logger"] == "clearance.test"
    assert first["message"] == "notice APP-1:reminder sent"
    assert first["notice_key"] == "APP-1:reminder"
    assert str(first["time"]).endswith("+00:00")
    assert second["level"] == "ERROR" and "RuntimeError: smtp down" in str(second["exception"])
    assert "workflow_id" not in first


def test_lines_from_an_activity_name_its_workflow_and_activity(
    restore_root_logging: None,
) -> None:
    out = io.StringIO()
    configure_logging("json", "INFO", out)

    @activity.defn(name="send_notice")
    def send() -> None:
        activity.logger.info("via the SDK's activity logger")
        logging.getLogger("clearance.operator").critical("via a plain logger")

    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info, activity_type="send_notice", workflow_id="shot-clock-APP-1"
    )
    env.run(send)
    sdk, plain = lines(out)
    for entry in (sdk, plain):
        assert entry["activity_type"] == "send_notice"
        assert entry["workflow_id"] == "shot-clock-APP-1" and entry["activity_id"]
        assert entry["attempt"] == 1
    assert plain["level"] == "CRITICAL"


def test_workflow_lines_name_their_workflow(restore_root_logging: None) -> None:
    out = io.StringIO()
    configure_logging("json", "INFO", out)
    # What temporalio's workflow.logger attaches to every record it emits.
    logging.getLogger("temporalio.workflow").info(
        "clock expired",
        extra={
            "temporal_workflow": {
                "workflow_id": "shot-clock-APP-1",
                "run_id": "r1",
                "workflow_type": "ShotClockWorkflow",
            }
        },
    )
    [entry] = lines(out)
    assert entry["workflow_id"] == "shot-clock-APP-1" and entry["run_id"] == "r1"
    assert entry["workflow_type"] == "ShotClockWorkflow"
    assert "temporal_workflow" not in entry


def test_text_format_and_bad_settings(restore_root_logging: None) -> None:
    out = io.StringIO()
    configure_logging("text", "warning", out)
    logging.getLogger("clearance.test").warning("plain")
    assert out.getvalue().rstrip().endswith("WARNING clearance.test plain")
    with pytest.raises(ValueError, match="CLEARANCE_LOG_FORMAT must be one of text, json"):
        configure_logging("xml", "INFO")
    with pytest.raises(ValueError, match="CLEARANCE_LOG_LEVEL"):
        configure_logging("json", "LOUD")
