"""Payload encryption: with a key, clocks run as before and the history the Temporal
server keeps holds no applicant name or e-mail; after a rotation, payloads sealed under
the old key still open; a malformed key is refused with a clear message."""

from __future__ import annotations

import base64
import dataclasses
import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from operations.payload_codec import (
    ENCODING,
    EncryptionCodec,
    PayloadKeyError,
    new_key,
    parse_old_keys,
)
from settings import Settings
from tests.workflows.clock_helpers import application, open_clock, settings_for_test
from worker import build_worker, connect

NAME = "Carrier Site Acquisition"
EMAIL = "siteacq@carrier.test"


def keyed(settings: Settings, address: str, key: str, key_id: str, old: str = "") -> Settings:
    return dataclasses.replace(
        settings,
        temporal_address=address,
        payload_key=key,
        payload_key_id=key_id,
        payload_old_keys=old,
    )


def address_of(env: WorkflowEnvironment) -> str:
    return env.client.service_client.config.target_host


async def test_encrypted_history_holds_no_personal_data(
    time_skipping_env: WorkflowEnvironment,
    data_dir: Path,
    activity_executor: ThreadPoolExecutor,
) -> None:
    settings = keyed(
        settings_for_test(data_dir, f"test-{uuid.uuid4()}"),
        address_of(time_skipping_env),
        new_key(),
        "2026-12",
    )
    client = await connect(settings)
    app = application("macro_collocation")
    assert app.contacts.applicant_name == NAME and app.contacts.applicant_email == EMAIL
    async with build_worker(client, settings, executor=activity_executor):
        handle = await open_clock(client, settings.task_queue, app, datetime.now(UTC).date())
        clock = await handle.query("clock")
        assert clock["status"] == "running" and clock["conservative_date"]

    # The history as the server holds it, read without the codec.
    plain = await Client.connect(settings.temporal_address)
    history = await plain.get_workflow_handle(handle.id).fetch_history()
    raw = history.to_json()
    assert app.application_id in raw  # the workflow id is not a payload
    for secret in (NAME, EMAIL, "planner@city.test", "201 W Sierra Ave"):
        assert secret not in raw, secret
        assert base64.b64encode(secret.encode()).decode()[:12] not in raw
    started = history.events[0].workflow_execution_started_event_attributes
    [payload] = started.input.payloads
    assert payload.metadata["encoding"] == ENCODING
    assert payload.metadata["encryption-key-id"] == b"2026-12"


async def test_rotated_key_still_opens_old_payloads(
    time_skipping_env: WorkflowEnvironment,
    data_dir: Path,
    activity_executor: ThreadPoolExecutor,
) -> None:
    base = settings_for_test(data_dir, f"test-{uuid.uuid4()}")
    old_key, new = new_key(), new_key()
    address = address_of(time_skipping_env)
    before = keyed(base, address, old_key, "k1")
    after = keyed(base, address, new, "k2", old=f"k1={old_key}")

    # Opened under k1 (no worker yet: the input is sealed under k1 in the history).
    old_client = await connect(before)
    app = application("macro_collocation")
    handle = await open_clock(old_client, base.task_queue, app, datetime.now(UTC).date())

    # The worker and the CLI now use k2 and still read what k1 sealed.
    client = await connect(after)
    async with build_worker(client, after, executor=activity_executor):
        clock = await client.get_workflow_handle(handle.id).query("clock")
        assert clock["status"] == "running"

    # Without k1 among the old keys, the same history cannot be read.
    codec = EncryptionCodec.from_settings(new, "k2")
    history = await old_client.get_workflow_handle(handle.id).fetch_history()
    sealed = history.events[0].workflow_execution_started_event_attributes.input.payloads
    assert sealed[0].metadata["encryption-key-id"] == b"k1"
    with pytest.raises(PayloadKeyError, match="key id 'k1'.*CLEARANCE_PAYLOAD_OLD_KEYS"):
        await codec.decode(sealed)


async def test_codec_round_trip_and_unencrypted_payloads() -> None:
    codec = EncryptionCodec.from_settings(new_key(), "k1")
    original = Payload(metadata={"encoding": b"json/plain"}, data=b'{"name": "Ana"}')
    [sealed] = await codec.encode([original])
    assert b"Ana" not in sealed.data
    assert (await codec.decode([sealed])) == [original]
    # Payloads written before encryption was turned on still read.
    assert (await codec.decode([original])) == [original]


def test_malformed_keys_are_refused_clearly() -> None:
    with pytest.raises(PayloadKeyError, match="CLEARANCE_PAYLOAD_KEY is not valid base64"):
        EncryptionCodec.from_settings("not a key!", "k1")
    short = base64.b64encode(b"x" * 16).decode()
    with pytest.raises(PayloadKeyError, match="base64 of 32 bytes.*not 16 bytes"):
        EncryptionCodec.from_settings(short, "k1")
    with pytest.raises(PayloadKeyError, match="CLEARANCE_PAYLOAD_KEY_ID must not be empty"):
        EncryptionCodec.from_settings(new_key(), " ")
    bare = new_key()
    with pytest.raises(PayloadKeyError, match="id=base64key pairs.*entry 1 has no id") as err:
        parse_old_keys(bare)
    assert bare[:8] not in str(err.value)  # key material is never echoed
    with pytest.raises(PayloadKeyError, match="OLD_KEYS entry 'k0'"):
        parse_old_keys(f"k0={short}")


def test_worker_with_a_malformed_key_says_so_in_one_line() -> None:
    env = {
        **os.environ,
        "CLEARANCE_PAYLOAD_KEY": base64.b64encode(b"short").decode(),
        "CLEARANCE_TEMPORAL_ADDRESS": "127.0.0.1:1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "worker"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: PayloadKeyError: CLEARANCE_PAYLOAD_KEY must be the base64 of 32 bytes "
        "(AES-256), not 5 bytes; make a key with `clearance payload-key new`"
    ]


def test_payload_key_new_prints_a_usable_key() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "payload-key", "new"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    key = done.stdout.strip()
    assert len(base64.b64decode(key)) == 32
    EncryptionCodec.from_settings(key, "k1")
