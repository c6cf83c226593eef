"""Page heights and load times, recorded by the journeys to test-artifacts/ and checked
against the budget: every page under 5,000 px tall at 1366 px wide."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from settings import PROJECT_ROOT

METRICS = PROJECT_ROOT / "test-artifacts" / "page-metrics.jsonl"
WIDTH = 1366
HEIGHT_BUDGET_PX = 5000


async def measure(page: Any, journey: str, label: str, budget: bool = True) -> dict[str, Any]:
    """The current page's height at 1366 px and how long it took to load, appended to
    test-artifacts/page-metrics.jsonl; the navigation must fit on one line."""
    await page.set_viewport_size({"width": WIDTH, "height": 900})
    height = await page.evaluate("document.documentElement.scrollHeight")
    timing = await page.evaluate(
        "(() => { const n = performance.getEntriesByType('navigation')[0];"
        " return n ? {load: n.loadEventEnd - n.startTime,"
        " response: n.responseEnd - n.requestStart} : null; })()"
    )
    nav = await page.evaluate(
        "(() => { const links = [...document.querySelectorAll('header nav a')];"
        " return new Set(links.map(a => Math.round(a.getBoundingClientRect().top))).size; })()"
    )
    # On one line and not cut off: the header is no wider than the window.
    overflow = await page.evaluate(
        "(() => { const h = document.querySelector('header.top');"
        " return h ? h.scrollWidth - h.clientWidth : 0; })()"
    )
    row = {
        "journey": journey,
        "page": label,
        "url": page.url,
        "height_px": height,
        "load_ms": round(timing["load"], 1) if timing else None,
        "response_ms": round(timing["response"], 1) if timing else None,
        "nav_lines": nav,
        "header_overflow_px": overflow,
        "budget": budget,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    Path(METRICS).parent.mkdir(parents=True, exist_ok=True)
    with open(METRICS, "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
    if budget:
        assert height < HEIGHT_BUDGET_PX, f"{label} is {height} px tall at {WIDTH} px: {page.url}"
    assert nav <= 1, f"the navigation wraps onto {nav} lines on {label}"
    assert overflow <= 0, f"the header is {overflow} px wider than the window on {label}"
    return row
