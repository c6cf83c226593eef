"""Server-side SVG charts for the reports: the same markup in the page, the PDF and a
council packet, with no script. Each chart is an image with a title and a text
alternative (the table beside it carries the same numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 640
BAR_HEIGHT = 18
GAP = 8
LABEL_WIDTH = 200
VALUE_WIDTH = 70
# Colours with at least 4.5:1 contrast on white, told apart by more than hue (the value
# is printed beside every bar).
PALETTE = ("#1f5f99", "#a12a1c", "#1e6b30", "#6b4c9a", "#8a5a00")


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    # What is printed after the bar ("92%", "14"); the value itself when empty.
    text: str = ""


def _number(value: float) -> str:
    return f"{value:g}"


def bar_chart(chart_id: str, title: str, bars: Sequence[Bar], *, maximum: float = 0) -> str:
    """A horizontal bar chart: one labelled bar per item, its value printed beside it.
    `maximum` fixes the scale (100 for shares); by default the largest value."""
    top = maximum or max((b.value for b in bars), default=0) or 1
    plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH
    height = max(len(bars), 1) * (BAR_HEIGHT + GAP) + GAP + 24
    title_id = f"{chart_id}-title"
    desc = "; ".join(f"{b.label}: {b.text or _number(b.value)}" for b in bars) or "no data"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}" '
        f'role="img" aria-labelledby="{escape(title_id)} {escape(chart_id)}-desc" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}">',
        f'<title id="{escape(title_id)}">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>',
        f'<text x="0" y="14" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    if not bars:
        parts.append('<text x="0" y="40" font-size="12" fill="#555">Nothing to chart.</text>')
    for i, bar in enumerate(bars):
        y = 24 + GAP + i * (BAR_HEIGHT + GAP)
        length = max(0.0, min(bar.value, top)) / top * plot
        label = bar.label if len(bar.label) <= 30 else bar.label[:29] + "…"
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 13}" font-size="12" text-anchor="end" '
            f'fill="#222">{escape(label)}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{length:.1f}" height="{BAR_HEIGHT}" '
            f'fill="{PALETTE[0]}"/>'
            f'<text x="{LABEL_WIDTH + length + 4:.1f}" y="{y + 13}" font-size="12" '
            f'fill="#222">{escape(bar.text or _number(bar.value))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def column_chart(chart_id: str, title: str, columns: Sequence[Bar], *, maximum: float = 0) -> str:
    """Vertical columns over time (quarters, weeks), each labelled below and valued above."""
    top = maximum or max((c.value for c in columns), default=0) or 1
    count = max(len(columns), 1)
    plot_height = 160
    step = (WIDTH - 20) / count
    width = max(4.0, step * 0.7)
    height = plot_height + 60
    title_id = f"{chart_id}-title"
    desc = "; ".join(f"{c.label}: {c.text or _number(c.value)}" for c in columns) or "no data"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}" '
        f'role="img" aria-labelledby="{escape(title_id)} {escape(chart_id)}-desc" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}">',
        f'<title id="{escape(title_id)}">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>',
        f'<text x="0" y="14" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
        f'<line x1="10" y1="{plot_height + 30}" x2="{WIDTH - 10}" y2="{plot_height + 30}" '
        'stroke="#767676"/>',
    ]
    if not columns:
        parts.append('<text x="10" y="60" font-size="12" fill="#555">Nothing to chart.</text>')
    small = count > 16
    for i, col in enumerate(columns):
        x = 10 + i * step + (step - width) / 2
        length = max(0.0, min(col.value, top)) / top * plot_height
        y = plot_height + 30 - length
        centre = x + width / 2
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{length:.1f}" '
            f'fill="{PALETTE[0]}"/>'
        )
        if not small or i % 2 == 0:
            parts.append(
                f'<text x="{centre:.1f}" y="{plot_height + 46}" font-size="10" '
                f'text-anchor="middle" fill="#222">{escape(col.label)}</text>'
            )
        parts.append(
            f'<text x="{centre:.1f}" y="{y - 4:.1f}" font-size="10" text-anchor="middle" '
            f'fill="#222">{escape(col.text or _number(col.value))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
