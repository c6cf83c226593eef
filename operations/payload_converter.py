"""Temporal's JSON payload converter, with each type's decoder worked out once.

The SDK's converter rebuilds a typed value from JSON by walking the type hint on every
payload: for a dataclass it calls `dataclasses.fields` and `typing.get_type_hints` and
then recurses through every field, each time. In an 08:00 storm every reminder replays
its clock and decodes the clock's input, the notice request and every local activity's
result: that walk was a tenth of the worker's interpreter time (docs/storm.md).

`ClearancePayloadConverter` is the SDK's default composite with one change: its
`json/plain` converter turns each type hint into a decoder function once and keeps it.
The decoders follow `temporalio.converter.value_to_type` rule for rule (the same checks,
the same errors' meaning, unknown fields ignored, `init=False` fields restored); a hint
they do not cover is handed to `value_to_type` itself. Encoding writes byte-for-byte the
JSON the SDK writes (sorted keys, the same encoder for what JSON cannot hold); it only
skips `dataclasses.asdict`'s deep copy. So payloads written by either converter are read
by the other: the server's histories, clients that use the SDK default (tests, tools)
and saved replay histories stay interchangeable.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import json
import threading
import types
import typing
from collections.abc import Callable, Sequence
from datetime import datetime
from enum import Enum
from typing import Any, Literal

from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    AdvancedJSONEncoder,
    CompositePayloadConverter,
    DefaultPayloadConverter,
    EncodingPayloadConverter,
    JSONPlainPayloadConverter,
    value_to_type,
)

Decoder = Callable[[Any], Any]

_ATOMS = (str, int, float, bool, type(None))


# -- decoding ------------------------------------------------------------------------------


class _Decoders:
    """Decoder functions by type hint, built on first use and kept (thread-safe: the
    worker decodes on its activation thread and on activity threads)."""

    def __init__(self) -> None:
        self._by_hint: dict[Any, Decoder] = {}
        self._lock = threading.Lock()

    def __call__(self, hint: Any) -> Decoder:
        try:
            return self._by_hint[hint]
        except KeyError:
            pass
        except TypeError:  # an unhashable hint: nothing to keep it under
            return lambda value: value_to_type(hint, value)
        with self._lock:
            if hint not in self._by_hint:
                self._by_hint[hint] = self._build(hint)
            return self._by_hint[hint]

    def _build(self, hint: Any) -> Decoder:
        if hint is Any:
            return _identity
        atom = _ATOM_DECODERS.get(hint)
        if atom is not None:
            return atom
        if getattr(hint, "__supertype__", None) is not None:  # NewType
            return self._later(hint.__supertype__)
        origin = getattr(hint, "__origin__", hint)
        args: tuple[Any, ...] = getattr(hint, "__args__", ())
        if origin is Literal:
            return _literal(hint, args)
        if origin is typing.Union or isinstance(hint, types.UnionType):
            return _union(hint, [self._later(a) for a in args])
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return _dataclass(hint, self)
        if isinstance(origin, type):
            if origin is dict and not typing.is_typeddict(origin):
                key, value = (list(args) + [Any, Any])[:2]
                if key in (str, Any) and not isinstance(value, typing.TypeVar):
                    return _str_keyed_dict(hint, self._later(value) if value is not Any else None)
            if origin is list and len(args) == 1 and not isinstance(args[0], typing.TypeVar):
                return _list(hint, self._later(args[0]))
            if origin is tuple and args and Ellipsis not in args:
                return _fixed_tuple(hint, [self._later(a) for a in args])
            if issubclass(origin, Enum) and issubclass(origin, (str, int)):
                return _enum(origin)
        # Everything else (bytes, UUIDs, sets, TypedDicts, Pydantic v1, ...): the SDK's.
        return lambda value: value_to_type(hint, value)

    def _later(self, hint: Any) -> Decoder:
        """A field's decoder, looked up when first used, so a dataclass that refers to
        itself (or to one being built) does not recurse while it is built."""
        known = self._by_hint.get(hint)
        if known is not None:
            return known
        found: list[Decoder] = []

        def decode(value: Any) -> Any:
            if not found:
                found.append(self(hint))
            return found[0](value)

        return decode


def _identity(value: Any) -> Any:
    return value


def _decode_str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"Expected value to be str, was {type(value)}")
    return str(value)


def _decode_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"Expected value to be bool, was {type(value)}")
    return bool(value)


def _decode_int(value: Any) -> int:
    if not isinstance(value, (int, float)):
        raise TypeError(f"Expected value to be int|float, was {type(value)}")
    return int(value)


def _decode_float(value: Any) -> float:
    if not isinstance(value, (int, float)):
        raise TypeError(f"Expected value to be int|float, was {type(value)}")
    return float(value)


def _decode_none(value: Any) -> None:
    if value is not None:
        raise TypeError(f"Expected None, got value of type {type(value)}")
    return None


def _decode_datetime(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError as err:
            raise TypeError(f"Failed parsing datetime string: {value}") from err
    if isinstance(value, datetime):
        return value
    raise TypeError(f"Expected datetime or ISO8601 string, got {type(value)}")


_ATOM_DECODERS: dict[Any, Decoder] = {
    str: _decode_str,
    bool: _decode_bool,
    int: _decode_int,
    float: _decode_float,
    type(None): _decode_none,
    datetime: _decode_datetime,
}


def _literal(hint: Any, allowed: tuple[Any, ...]) -> Decoder:
    def decode(value: Any) -> Any:
        if value not in allowed:
            raise TypeError(f"Value {value} not in literal values {allowed}")
        return value

    return decode


def _union(hint: Any, members: list[Decoder]) -> Decoder:
    def decode(value: Any) -> Any:
        # The first member that takes the value wins, as in the SDK (Optional included).
        for member in members:
            try:
                return member(value)
            except Exception:
                pass
        raise TypeError(f"Failed converting to {hint} from {value}")

    return decode


def _str_keyed_dict(hint: Any, value_decoder: Decoder | None) -> Decoder:
    def decode(value: Any) -> dict[Any, Any]:
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"Expected {hint}, value was {type(value)}")
        if value_decoder is None:
            return dict(value)
        out = {}
        for key, item in value.items():
            try:
                out[key] = value_decoder(item)
            except Exception as err:
                raise TypeError(
                    f"Failed converting value for key {key!r} in mapping {hint}"
                ) from err
        return out

    return decode


def _list(hint: Any, item_decoder: Decoder) -> Decoder:
    def decode(value: Any) -> list[Any]:
        if not isinstance(value, collections.abc.Iterable):
            raise TypeError(f"Expected {hint}, value was {type(value)}")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(item_decoder(item))
            except Exception as err:
                raise TypeError(f"Failed converting {hint} index {i}") from err
        return out

    return decode


def _fixed_tuple(hint: Any, item_decoders: list[Decoder]) -> Decoder:
    def decode(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, collections.abc.Iterable):
            raise TypeError(f"Expected {hint}, value was {type(value)}")
        out = []
        for i, item in enumerate(value):
            if i >= len(item_decoders):
                raise TypeError(
                    f"Type {hint} only expecting {len(item_decoders)} values, got at least {i + 1}"
                )
            try:
                out.append(item_decoders[i](item))
            except Exception as err:
                raise TypeError(f"Failed converting {hint} index {i}") from err
        return tuple(out)

    return decode


def _enum(cls: type[Enum]) -> Decoder:
    kind = int if issubclass(cls, int) else str

    def decode(value: Any) -> Enum:
        if not isinstance(value, kind):
            raise TypeError(
                f"Cannot convert to enum {cls}, value not "
                f"{'an integer' if kind is int else 'a string'}, value is {type(value)}"
            )
        return cls(value)

    return decode


def _dataclass(cls: type, decoders: _Decoders) -> Decoder:
    hints = typing.get_type_hints(cls)
    fields = [(f.name, f.init, decoders._later(hints[f.name])) for f in dataclasses.fields(cls)]

    def decode(value: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"Cannot convert to dataclass {cls}, value is {type(value)} not dict")
        init: dict[str, Any] = {}
        later: dict[str, Any] = {}
        for name, in_init, field_decoder in fields:
            if name not in value:
                continue  # a required field missing: the constructor says so
            try:
                converted = field_decoder(value[name])
            except Exception as err:
                raise TypeError(f"Failed converting field {name} on dataclass {cls}") from err
            if in_init:
                init[name] = converted
            else:
                later[name] = converted
        obj = cls(**init)
        for name, converted in later.items():
            object.__setattr__(obj, name, converted)
        return obj

    return decode


_DECODERS = _Decoders()  # one for the process: every converter instance shares it


# -- encoding ------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """What `dataclasses.asdict` makes of the value, without its deep copy of every leaf:
    dataclasses become dicts, lists, tuples and dicts are walked, anything else is left
    for the encoder (whose `default` handles datetimes, sets and UUIDs as before)."""
    cls = type(value)
    if cls in _ATOMS:
        return value
    if hasattr(cls, "__dataclass_fields__") and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple, as asdict
        return cls(*[_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


class CachedJSONPlainPayloadConverter(JSONPlainPayloadConverter):
    """`json/plain` with each type hint's decoder kept (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._decoders = _DECODERS

    def to_payload(self, value: Any) -> Payload | None:
        return Payload(
            metadata={"encoding": b"json/plain"},
            data=json.dumps(
                _plain(value), cls=AdvancedJSONEncoder, separators=(",", ":"), sort_keys=True
            ).encode(),
        )

    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        try:
            value = json.loads(payload.data)
        except json.JSONDecodeError as err:
            raise RuntimeError("Failed parsing") from err
        if type_hint:
            value = self._decoders(type_hint)(value)
        return value


@functools.cache
def _converters() -> Sequence[EncodingPayloadConverter]:
    # Built once: the SDK makes a data converter, and with it this composite, for every
    # workflow activation it encodes; the converters hold no state of their own.
    return tuple(
        CachedJSONPlainPayloadConverter() if type(c) is JSONPlainPayloadConverter else c
        for c in DefaultPayloadConverter.default_encoding_payload_converters
    )


class ClearancePayloadConverter(CompositePayloadConverter):
    """The SDK's default payload converters, `json/plain` replaced by the cached one."""

    def __init__(self) -> None:
        super().__init__(*_converters())
