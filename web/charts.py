"""A bot's rating over time as an inline SVG, drawn by the server (no script, no library)."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT, PAD_LEFT, PAD_RIGHT, PAD_Y = 640, 200, 48, 12, 16
MAX_POINTS = 400  # more than the chart has pixels for would only weigh the page


def _thin(values: list[float]) -> list[float]:
    if len(values) <= MAX_POINTS:
        return values
    step = (len(values) - 1) / (MAX_POINTS - 1)
    return [values[round(i * step)] for i in range(MAX_POINTS)]


def rating_svg(points: list[tuple[float, object]]) -> SafeString:
    """The rating after each rated game (x: games played, y: rating), with its range and ends labelled."""
    if len(points) < 2:
        return mark_safe("")
    ratings = _thin([rating for rating, _ in points])
    low, high = min(ratings), max(ratings)
    span = max(high - low, 20.0)
    low, high = (low + high - span) / 2, (low + high + span) / 2
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - 2 * PAD_Y

    def x(i: int) -> float:
        return PAD_LEFT + inner_w * i / (len(ratings) - 1)

    def y(rating: float) -> float:
        return PAD_Y + inner_h * (high - rating) / (high - low)

    line = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    first, last = points[0][1], points[-1][1]
    label = (f"Rating from {ratings[0]:.0f} to {ratings[-1]:.0f} over {len(points) - 1} rated games, "
             f"{first:%Y-%m-%d} to {last:%Y-%m-%d}; lowest {min(ratings):.0f}, highest {max(ratings):.0f}")
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
        '<line class="axis" x1="{l}" y1="{top}" x2="{l}" y2="{bottom}"/>'
        '<line class="axis" x1="{l}" y1="{bottom}" x2="{r}" y2="{bottom}"/>'
        '<text x="{tx}" y="{ty_high}">{high}</text><text x="{tx}" y="{ty_low}">{low}</text>'
        '<polyline points="{line}"/>'
        '<circle cx="{cx}" cy="{cy}" r="3"/></svg>',
        w=WIDTH, h=HEIGHT, label=label, l=PAD_LEFT, r=WIDTH - PAD_RIGHT, top=PAD_Y, bottom=HEIGHT - PAD_Y,
        tx=PAD_LEFT - 6, ty_high=PAD_Y + 4, ty_low=HEIGHT - PAD_Y, high=f"{high:.0f}", low=f"{low:.0f}",
        line=line, cx=f"{x(len(ratings) - 1):.1f}", cy=f"{y(ratings[-1]):.1f}")
