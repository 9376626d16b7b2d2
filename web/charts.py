"""A bot's rating over time as an inline SVG, drawn by the server (no script, no library)."""

from __future__ import annotations

from datetime import datetime

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT, PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 640, 200, 48, 24, 16, 32
MAX_POINTS = 400  # more than the chart has pixels for would only weigh the page
TICKS = 5  # dates on the time axis, the first and the last included


def _thin(points: list) -> list:
    if len(points) <= MAX_POINTS:
        return points
    step = (len(points) - 1) / (MAX_POINTS - 1)
    return [points[round(i * step)] for i in range(MAX_POINTS)]


def _date_format(ticks: list[datetime]) -> str:
    """The coarsest of months, days, minutes and seconds that tells every tick from the others (the quick
    start's first games span a minute or two); times across midnight carry their day too."""
    for form in ("%Y-%m", "%d %b", "%H:%M", "%H:%M:%S"):
        if len({f"{when:{form}}" for when in ticks}) == len(ticks):
            break
    if form.startswith("%H") and ticks[0].date() != ticks[-1].date():
        form = "%d %b " + form
    return form


def rating_svg(points: list[tuple[float, datetime]]) -> SafeString:
    """The rating after each rated game (x: when it was played, y: rating), the range and dates labelled."""
    if len(points) < 2:
        return mark_safe("")
    shown = _thin(points)
    ratings = [rating for rating, _ in shown]
    low, high = min(ratings), max(ratings)
    span = max(high - low, 20.0)
    low, high = (low + high - span) / 2, (low + high + span) / 2
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM
    start, end = points[0][1], points[-1][1]
    seconds = (end - start).total_seconds()

    def x(i: int, when: datetime) -> float:
        # By time; games all played in the same second are spread evenly instead.
        share = (when - start).total_seconds() / seconds if seconds else i / (len(shown) - 1)
        return PAD_LEFT + inner_w * share

    def y(rating: float) -> float:
        return PAD_TOP + inner_h * (high - rating) / (high - low)

    line = " ".join(f"{x(i, when):.1f},{y(r):.1f}" for i, (r, when) in enumerate(shown))
    label = (f"Rating from {ratings[0]:.0f} to {ratings[-1]:.0f} over {len(points) - 1} rated games, "
             f"{start:%Y-%m-%d} to {end:%Y-%m-%d}; lowest {min(ratings):.0f}, highest {max(ratings):.0f}")
    bottom = HEIGHT - PAD_BOTTOM
    ticks = [start + (end - start) * k / (TICKS - 1) for k in range(TICKS)] if seconds else [start]
    form = _date_format(ticks)
    axis = format_html_join(
        "", '<line class="tick" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>'
        '<text class="date{5}" x="{0}" y="{3}"><tspan>{4}</tspan></text>',
        ((f"{PAD_LEFT + inner_w * k / (TICKS - 1) if seconds else PAD_LEFT:.1f}", bottom, bottom + 4, bottom + 18,
          f"{when:{form}}", " last" if k == TICKS - 1 else "") for k, when in enumerate(ticks)))
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
        '<line class="axis" x1="{l}" y1="{top}" x2="{l}" y2="{bottom}"/>'
        '<line class="axis" x1="{l}" y1="{bottom}" x2="{r}" y2="{bottom}"/>'
        '<text x="{tx}" y="{ty_high}">{high}</text><text x="{tx}" y="{ty_low}">{low}</text>{axis}'
        '<polyline points="{line}"/>'
        '<circle cx="{cx}" cy="{cy}" r="3"/></svg>',
        w=WIDTH, h=HEIGHT, label=label, l=PAD_LEFT, r=WIDTH - PAD_RIGHT, top=PAD_TOP, bottom=bottom,
        tx=PAD_LEFT - 6, ty_high=PAD_TOP + 4, ty_low=bottom, high=f"{high:.0f}", low=f"{low:.0f}", axis=axis,
        line=line, cx=f"{x(len(shown) - 1, end):.1f}", cy=f"{y(ratings[-1]):.1f}")
