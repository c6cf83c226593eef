"""The worker skips the SDK's payload walks over activations and completions only when
they could change nothing: with the encryption codec configured they still run, so a
workflow reads its decrypted input and its commands leave encrypted."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import temporalio.bridge.worker as bridge_worker
import temporalio.converter
from temporalio.bridge.proto.workflow_activation import (
    InitializeWorkflow,
    WorkflowActivation,
    WorkflowActivationJob,
)
from temporalio.bridge.proto.workflow_commands import ScheduleActivity, WorkflowCommand
from temporalio.bridge.proto.workflow_completion import Success, WorkflowActivationCompletion
from temporalio.worker._command_aware_visitor import CommandAwarePayloadVisitor

from operations import payload_visits
from operations.payload_codec import ENCODING, EncryptionCodec, new_key

PLAIN = temporalio.converter.DataConverter.default


def encrypted() -> temporalio.converter.DataConverter:
    return dataclasses.replace(PLAIN, payload_codec=EncryptionCodec.from_settings(new_key(), "k1"))


def activation(payload: Any) -> WorkflowActivation:
    return WorkflowActivation(
        run_id="run-1",
        jobs=[
            WorkflowActivationJob(
                initialize_workflow=InitializeWorkflow(
                    workflow_type="ShotClockWorkflow", arguments=[payload]
                )
            )
        ],
    )


def completion(payload: Any) -> WorkflowActivationCompletion:
    command = WorkflowCommand(
        schedule_activity=ScheduleActivity(seq=1, activity_type="send_notice", arguments=[payload])
    )
    return WorkflowActivationCompletion(run_id="run-1", successful=Success(commands=[command]))


@pytest.fixture(autouse=True)
def wrapped() -> None:
    assert payload_visits.install()
    assert payload_visits.install()  # idempotent: wrapped once
    assert bridge_worker.decode_activation.__wrapped__.__module__ == "temporalio.bridge.worker"


async def test_without_a_codec_the_walks_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("walked an activation that no codec could change")

    monkeypatch.setattr(CommandAwarePayloadVisitor, "visit", refuse)
    payload = PLAIN.payload_converter.to_payload({"application_id": "APP-1"})
    act, done = activation(payload), completion(payload)
    before = (act.SerializeToString(), done.SerializeToString())

    await bridge_worker.decode_activation(
        act, PLAIN, decode_headers=False, storage_concurrency_limit=1
    )
    await bridge_worker.encode_completion(
        done, PLAIN, encode_headers=False, storage_concurrency_limit=1
    )
    # Exactly what the walks leave without a codec: the same bytes.
    assert (act.SerializeToString(), done.SerializeToString()) == before


async def test_with_the_encryption_codec_the_walks_run() -> None:
    converter = encrypted()
    value = {"applicant_email": "siteacq@carrier.test"}
    [sealed] = await converter.encode([value])
    assert sealed.metadata["encoding"] == ENCODING

    act = activation(sealed)
    await bridge_worker.decode_activation(
        act, converter, decode_headers=False, storage_concurrency_limit=1
    )
    [opened] = act.jobs[0].initialize_workflow.arguments
    assert PLAIN.payload_converter.from_payload(opened) == value

    done = completion(PLAIN.payload_converter.to_payload(value))
    await bridge_worker.encode_completion(
        done, converter, encode_headers=False, storage_concurrency_limit=1
    )
    [outgoing] = done.successful.commands[0].schedule_activity.arguments
    assert outgoing.metadata["encoding"] == ENCODING
    assert b"siteacq" not in outgoing.SerializeToString()


def test_a_changed_sdk_signature_leaves_the_sdk_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    async def changed(activation: Any, data_converter: Any, *, new_option: bool) -> None: ...

    monkeypatch.setattr(payload_visits, "_installed", False)
    monkeypatch.setattr(bridge_worker, "decode_activation", changed)
    assert not payload_visits.install()
    assert bridge_worker.decode_activation is changed
