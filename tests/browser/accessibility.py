"""axe-core (npm, package.json; scripts/test installs it with npm ci) run in a page: the
WCAG 2.0, 2.1 and 2.2 A and AA rules, and the serious or critical violations found."""

from __future__ import annotations

from typing import Any

from settings import PROJECT_ROOT

AXE = PROJECT_ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = ("serious", "critical")


async def violations(page: Any) -> list[str]:
    """One line per serious or critical violation on the page: rule, impact, where."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(AXE))
    found = await page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
        ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact,"
        " help: v.help, targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))",
        TAGS,
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {', '.join(v['targets'])}"
        for v in found
        if v["impact"] in BLOCKING
    ]


async def scrolls_sideways(page: Any) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    return int(
        await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )
