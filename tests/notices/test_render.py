"""Notice templates are compiled once per process, even when a storm of reminders reaches
every activity thread at once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from notices.project import PROJECT_NOTICE_KINDS
from notices.render import NoticeRenderer
from notices.shot_clock import NOTICE_KINDS


def counting(renderer: NoticeRenderer) -> dict[str, int]:
    """Count the Jinja loads per template name (each one a compile or a file check)."""
    loads: dict[str, int] = {}
    lock = threading.Lock()
    get_template = renderer._env.get_template

    def counted(name: str, *args: Any, **kwargs: Any) -> Any:
        with lock:
            loads[name] = loads.get(name, 0) + 1
        return get_template(name, *args, **kwargs)

    renderer._env.get_template = counted  # type: ignore[method-assign]
    return loads


def test_sixteen_threads_rendering_the_first_reminders_at_once_compile_each_template_once() -> None:
    renderer = NoticeRenderer()
    loads = counting(renderer)
    start = threading.Barrier(16)

    def first_use(_: int) -> str:
        start.wait()
        return renderer._template("notices/reminder.txt.j2").render

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(first_use, range(16)))
    assert loads == {"notices/reminder.txt.j2": 1}


def test_warm_compiles_every_notice_template_before_the_first_notice() -> None:
    renderer = NoticeRenderer()
    loads = counting(renderer)
    renderer.warm()
    kinds = (*NOTICE_KINDS, *PROJECT_NOTICE_KINDS)
    assert set(loads) == {f"notices/{k}.{p}.j2" for k in kinds for p in ("txt", "html")}
    renderer._template("notices/reminder.html.j2")
    assert max(loads.values()) == 1
