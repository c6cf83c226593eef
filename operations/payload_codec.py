"""Optional encryption of workflow payloads (applicant names, e-mail addresses, sites).

With `CLEARANCE_PAYLOAD_KEY` set (the base64 of 32 random bytes; `clearance payload-key
new` makes one), every payload the worker, the CLI and the web app send to Temporal is
sealed with AES-256-GCM before it leaves the process: workflow inputs and results,
activity arguments and results, update and query arguments. The Temporal server and its
database hold only ciphertext; its Web UI shows "binary/encrypted" unless given a codec
server. The key id travels in each payload's metadata, so after a rotation payloads
sealed under an earlier key still open: list earlier keys in
`CLEARANCE_PAYLOAD_OLD_KEYS` as `id=base64key` pairs separated by commas.

Not encoded: search attributes (Temporal indexes them in clear; Clearance's hold dates,
statuses, the jurisdiction and the category, never personal data), workflow ids (the
application or project id), and the task queue.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

ENCODING = b"binary/encrypted"
KEY_ID_META = "encryption-key-id"
NONCE_BYTES = 12
KEY_BYTES = 32


class PayloadKeyError(ValueError):
    """A payload key setting that cannot be used, with what is wrong."""


def new_key() -> str:
    """A fresh key, base64 of 32 random bytes, for CLEARANCE_PAYLOAD_KEY."""
    return base64.b64encode(os.urandom(KEY_BYTES)).decode("ascii")


def parse_key(value: str, setting: str = "CLEARANCE_PAYLOAD_KEY") -> bytes:
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError) as err:
        raise PayloadKeyError(
            f"{setting} is not valid base64 ({err}); make a key with `clearance payload-key new`"
        ) from err
    if len(raw) != KEY_BYTES:
        raise PayloadKeyError(
            f"{setting} must be the base64 of {KEY_BYTES} bytes (AES-256), not {len(raw)} bytes; "
            "make a key with `clearance payload-key new`"
        )
    return raw


def parse_old_keys(value: str) -> dict[str, bytes]:
    """`id=base64key,id=base64key` → {id: key}."""
    keys: dict[str, bytes] = {}
    entries = [e.strip() for e in value.split(",") if e.strip()]
    for number, entry in enumerate(entries, start=1):
        # The id ends at the first "=" (base64 keys end with "=" padding).
        key_id, _, key = entry.partition("=")
        if not key_id.strip() or not key.strip():
            # Never echo the entry: it may be key material.
            raise PayloadKeyError(
                "CLEARANCE_PAYLOAD_OLD_KEYS must be id=base64key pairs separated by commas; "
                f"entry {number} has no id or no key"
            )
        keys[key_id.strip()] = parse_key(key, f"CLEARANCE_PAYLOAD_OLD_KEYS entry {key_id!r}")
    return keys


class EncryptionCodec(PayloadCodec):
    """Seals payloads under the current key; opens those of the current or an old key."""

    def __init__(self, key_id: str, key: bytes, old_keys: dict[str, bytes] | None = None) -> None:
        if not key_id:
            raise PayloadKeyError("CLEARANCE_PAYLOAD_KEY_ID must not be empty")
        if len(key) != KEY_BYTES:
            raise PayloadKeyError(f"a payload key must be {KEY_BYTES} bytes, not {len(key)}")
        self.key_id = key_id
        self._seal = AESGCM(key)
        self._open = {kid: AESGCM(k) for kid, k in (old_keys or {}).items()}
        self._open[key_id] = self._seal

    @classmethod
    def from_settings(cls, key: str, key_id: str, old_keys: str = "") -> EncryptionCodec:
        return cls(key_id.strip(), parse_key(key), parse_old_keys(old_keys))

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._encrypt(p) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._decrypt(p) for p in payloads]

    def _encrypt(self, payload: Payload) -> Payload:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._seal.encrypt(nonce, payload.SerializeToString(), self.key_id.encode())
        return Payload(
            metadata={"encoding": ENCODING, KEY_ID_META: self.key_id.encode()},
            data=nonce + sealed,
        )

    def _decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            # Written before encryption was turned on: still readable.
            return payload
        key_id = payload.metadata.get(KEY_ID_META, b"").decode()
        aes = self._open.get(key_id)
        if aes is None:
            raise PayloadKeyError(
                f"a payload is encrypted under key id {key_id!r}, which is neither "
                f"CLEARANCE_PAYLOAD_KEY_ID ({self.key_id!r}) nor in CLEARANCE_PAYLOAD_OLD_KEYS"
            )
        try:
            plain = aes.decrypt(
                payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:], key_id.encode()
            )
        except InvalidTag as err:
            raise PayloadKeyError(
                f"a payload under key id {key_id!r} does not open with that key: "
                "the key was changed without changing its id"
            ) from err
        return Payload.FromString(plain)
