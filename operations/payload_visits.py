"""Skip the SDK's payload walks over a workflow activation and its completion when they
can change nothing.

temporalio 1.35 walks every activation three times before the workflow sees it (reference
markers, external storage, the codec) and every completion three times after, with a
generated visitor that descends through every job and command, even when the data
converter has no payload codec and no external storage, so that each walk only copies
lists. Replaying one evicted clock (every reminder of an 08:00 storm) takes about five
activations, and the walks were a sixth of the replay's CPU (docs/storm.md, "The eighth
round").

`install()` wraps the SDK's two module functions. With a codec or external storage
configured (CLEARANCE_PAYLOAD_KEY sets a codec) the SDK's own functions run, unchanged.
Without either, the payloads are left as they are, which is what the walks would have
left. The one check skipped is the walk's refusal of a payload that names an external
store when none is configured; such a payload has an encoding no converter here reads,
so it is still refused, by the converter, with the workflow task failing the same way.

The wrapper is installed only when the SDK's functions have the signature this was
written against; otherwise it leaves them alone (an SDK upgrade cannot break a worker,
it can only lose the saving), and `installed()` says which happened.
"""

from __future__ import annotations

import inspect
import logging
import threading
from typing import Any

log = logging.getLogger("clearance.payload_visits")

_EXPECTED = {
    "decode_activation": [
        "activation",
        "data_converter",
        "decode_headers",
        "storage_concurrency_limit",
    ],
    "encode_completion": [
        "completion",
        "data_converter",
        "encode_headers",
        "storage_concurrency_limit",
    ],
}

_lock = threading.Lock()
_installed = False


def walks_change_nothing(data_converter: Any) -> bool:
    """True when the converter has neither a payload codec nor external storage: then the
    walks' every step returns the payloads it was given."""
    return (
        getattr(data_converter, "payload_codec", None) is None
        and getattr(data_converter, "external_storage", None) is None
    )


def installed() -> bool:
    return _installed


def _skipping(original: Any, no_metrics: Any) -> Any:
    """`original` (decode_activation or encode_completion), skipped when its walks could
    change nothing. The SDK passes the message and the converter by position, the rest by
    keyword."""

    async def wrapper(message: Any, data_converter: Any, **options: Any) -> Any:
        if walks_change_nothing(data_converter):
            return no_metrics()
        return await original(message, data_converter, **options)

    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    wrapper.__name__ = original.__name__
    return wrapper


def install() -> bool:
    """Wrap the SDK's activation decoding and completion encoding (idempotent, any
    thread). Returns whether the wrapper is in place."""
    global _installed
    with _lock:
        if _installed:
            return True
        try:
            import temporalio.bridge.worker as bridge_worker
            from temporalio.converter._extstore import StorageOperationMetrics
        except ImportError as err:  # a different SDK layout: keep its own functions
            log.warning("payload walks not skipped: %s", err)
            return False
        originals = {name: getattr(bridge_worker, name, None) for name in _EXPECTED}
        for name, original in originals.items():
            if original is None or list(inspect.signature(original).parameters) != _EXPECTED[name]:
                log.warning("payload walks not skipped: temporalio's %s has changed", name)
                return False
        for name, original in originals.items():
            setattr(bridge_worker, name, _skipping(original, StorageOperationMetrics))
        _installed = True
        return True
