"""The worker's payload converter reads and writes exactly what the SDK's default does:
for every dataclass that crosses a workflow boundary, on generated values (accented text,
empty and missing optionals, nested lists and records), the JSON is byte for byte the
same, decoding gives equal values, and a payload the SDK refuses (a wrong type anywhere)
is refused too. Histories written before it, and clients that use the SDK default, stay
readable both ways."""

from __future__ import annotations

import dataclasses
import inspect
import json
import random
import types
import typing
from typing import Any, Literal

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.converter import DefaultPayloadConverter

import models.conditions
import models.permit_clock
import models.shot_clock
from operations.payload_converter import ClearancePayloadConverter
from settings import load_settings
from worker import data_converter

PAYLOAD_MODULES = (models.shot_clock, models.conditions, models.permit_clock)
PAYLOAD_TYPES = sorted(
    {
        cls
        for module in PAYLOAD_MODULES
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__
    },
    key=lambda cls: f"{cls.__module__}.{cls.__name__}",
)
TEXT = ["", "Cotati", "Résolution №5 — Cañada", 'a\nb\t"quoted"', "0", "2026-12-04"]


def sample(hint: Any, rng: random.Random, depth: int = 0) -> Any:
    """A random value of the hinted type, as a workflow or activity would send it."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return rng.choice([None, 3, "x", [1, "two"], {"k": [True, None]}])
    if hint is str:
        return rng.choice(TEXT)
    if hint is bool:
        return rng.random() < 0.5
    if hint is int:
        return rng.randint(-5, 10_000)
    if hint is float:
        return rng.choice([0.0, 1.5, -2.25, 3.0])
    if hint is type(None):
        return None
    if origin is Literal:
        return rng.choice(args)
    if origin is typing.Union or isinstance(hint, types.UnionType):
        return sample(rng.choice(args), rng, depth)
    if origin is list:
        return [
            sample(args[0], rng, depth + 1) for _ in range(rng.randint(0, 3 if depth < 3 else 0))
        ]
    if origin is tuple:
        return tuple(sample(a, rng, depth + 1) for a in args)
    if origin is dict:
        return {
            rng.choice(TEXT) + str(i): sample(args[1], rng, depth + 1)
            for i in range(rng.randint(0, 3))
        }
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(
            **{
                f.name: sample(hints[f.name], rng, depth + 1)
                for f in dataclasses.fields(hint)
                if f.init
            }
        )
    raise AssertionError(f"no sample for {hint!r}: teach this test the new field type")


SDK = DefaultPayloadConverter()
OURS = ClearancePayloadConverter()


def json_payload(data: Any) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(data).encode())


def decoded(converter: Any, payload: Payload, hint: Any) -> tuple[str, Any]:
    try:
        return "ok", converter.from_payloads([payload], [hint])[0]
    except Exception as err:  # the kind of failure is compared, not its wording
        return "refused", type(err).__name__


@pytest.mark.parametrize("cls", PAYLOAD_TYPES, ids=lambda cls: cls.__name__)
def test_each_payload_type_round_trips_as_the_sdk_does(cls: type) -> None:
    rng = random.Random(cls.__name__)
    for _ in range(40):
        value = sample(cls, rng)
        ours = OURS.to_payloads([value])[0]
        theirs = SDK.to_payloads([value])[0]
        assert ours == theirs
        assert decoded(OURS, theirs, cls) == decoded(SDK, theirs, cls) == ("ok", value)
        # A list of them, as the workflows send events and states.
        many = OURS.to_payloads([[value, value]])[0]
        assert many == SDK.to_payloads([[value, value]])[0]
        assert decoded(OURS, many, list[cls]) == ("ok", [value, value])


def mutations(data: Any, rng: random.Random) -> list[Any]:
    """The value with one leaf or record replaced by something of another JSON type."""
    paths: list[list[Any]] = []

    def walk(node: Any, path: list[Any]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, [*path, key])
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, [*path, i])

    walk(data, [])
    out = []
    for path in rng.sample(paths, min(len(paths), 12)):
        copy = json.loads(json.dumps(data))
        replacement = rng.choice([None, 7, 2.5, "text", True, [], {}, ["x"], {"a": 1}])
        if not path:
            out.append(replacement)
            continue
        node = copy
        for step in path[:-1]:
            node = node[step]
        if isinstance(node, dict) and rng.random() < 0.3:
            del node[path[-1]]  # a field missing
        else:
            node[path[-1]] = replacement
        out.append(copy)
    return out


@pytest.mark.parametrize("cls", PAYLOAD_TYPES, ids=lambda cls: cls.__name__)
def test_a_payload_the_sdk_refuses_is_refused(cls: type) -> None:
    rng = random.Random("refuse-" + cls.__name__)
    for _ in range(10):
        data = json.loads(SDK.to_payloads([sample(cls, rng)])[0].data)
        for changed in mutations(data, rng):
            payload = Payload(
                metadata={"encoding": b"json/plain"}, data=json.dumps(changed).encode()
            )
            assert decoded(OURS, payload, cls) == decoded(SDK, payload, cls), changed


def test_unknown_fields_are_ignored_and_missing_required_ones_refused() -> None:
    rng = random.Random(1)
    value = sample(models.shot_clock.NoticeRequest, rng)
    data = json.loads(SDK.to_payloads([value])[0].data)
    data["added_in_a_later_release"] = {"x": 1}
    payload = json_payload(data)
    assert decoded(OURS, payload, models.shot_clock.NoticeRequest) == ("ok", value)
    first = dataclasses.fields(models.shot_clock.NoticeRequest)[0].name
    del data[first]
    payload = json_payload(data)
    assert decoded(OURS, payload, models.shot_clock.NoticeRequest)[0] == "refused"


def test_the_worker_and_every_client_use_it() -> None:
    # The SDK wraps the payload converter in its own (transfer types); ours is inside.
    wrapped: Any = data_converter(load_settings()).payload_converter
    assert isinstance(wrapped._inner_payload_converter, ClearancePayloadConverter)
