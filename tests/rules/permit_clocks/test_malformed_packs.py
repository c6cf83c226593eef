"""Any malformed pack is refused with a PackError naming where, never another exception:
every value of every shipped pack, in turn, is replaced by a value of each wrong shape
(and each object loses each of its keys). A city's administrator or a rules author who
mistypes one field gets one line saying which, not a traceback."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rules.permit_clocks.packs import PACK_DIR, PackError, _pack

WRONG: tuple[Any, ...] = (None, 0, -1, 1.5, True, "", "x", [], [1], {}, {"x": 1})
PACKS = sorted(PACK_DIR.glob("*.json"))


def paths(node: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*at, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, (*at, i))


def replaced(doc: Any, at: tuple[Any, ...], value: Any) -> Any:
    if not at:
        return value
    out = copy.deepcopy(doc)
    node = out
    for step in at[:-1]:
        node = node[step]
    node[at[-1]] = value
    return out


def dropped(doc: Any, at: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(doc)
    node = out
    for step in at[:-1]:
        node = node[step]
    del node[at[-1]]
    return out


def mutants(doc: Any) -> Iterator[tuple[str, Any]]:
    for at in paths(doc):
        where = "/".join(map(str, at)) or "(top)"
        for value in WRONG:
            yield f"{where} = {value!r}", replaced(doc, at, value)
        if at and isinstance(at[-1], str):
            yield f"{where} removed", dropped(doc, at)


@pytest.mark.parametrize("path", PACKS, ids=[p.name for p in PACKS])
def test_every_wrong_shape_is_refused_as_a_pack_error(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    crashes: dict[str, str] = {}
    for what, mutant in mutants(doc):
        try:
            _pack(mutant, path.name)
        except PackError as err:
            assert "\n" not in str(err), (what, str(err))
        except Exception as err:  # noqa: BLE001 - the point: nothing but PackError
            crashes.setdefault(f"{type(err).__name__}: {err} ({what.split(' ')[0]})", what)
    assert not crashes, "\n".join(f"{what}: {err}" for err, what in sorted(crashes.items()))


def test_a_pack_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    from rules.permit_clocks.packs import load_packs

    (tmp_path / "broken.json").write_text('{"key": "broken",', encoding="utf-8")
    with pytest.raises(PackError, match=r"^broken\.json: not a JSON document"):
        load_packs(tmp_path)
