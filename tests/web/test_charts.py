"""Issue 21: the rating chart has a time axis: games placed by when they were played, dates under the axis."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from web.charts import PAD_LEFT, PAD_RIGHT, WIDTH, rating_svg

START = datetime(2026, 3, 1, 12, tzinfo=UTC)


def xs(svg: str) -> list[float]:
    points = re.search(r'<polyline points="([^"]+)"', svg).group(1)
    return [float(pair.split(",")[0]) for pair in points.split()]


def test_the_dates_are_on_the_axis_and_the_games_are_placed_by_time():
    # Three games on day 0, one on day 8: the last point sits at the right end, the first three at the left.
    points = [(1500.0, START), (1510.0, START + timedelta(hours=1)), (1505.0, START + timedelta(hours=2)),
              (1530.0, START + timedelta(days=8))]
    svg = str(rating_svg(points))
    dates = re.findall(r'<text class="date[^"]*"[^>]*><tspan>([^<]+)</tspan>', svg)
    assert dates == ["01 Mar", "03 Mar", "05 Mar", "07 Mar", "09 Mar"]
    placed = xs(svg)
    assert placed[0] == PAD_LEFT and placed[-1] == WIDTH - PAD_RIGHT
    assert placed[2] - placed[0] < 10  # two hours of eight days (evenly spaced would be 379 units)


def test_games_within_one_day_show_hours():
    points = [(1500.0 + i, START + timedelta(hours=i)) for i in range(5)]
    dates = re.findall(r"<tspan>([^<]+)</tspan>", str(rating_svg(points)))
    assert dates == ["12:00", "13:00", "14:00", "15:00", "16:00"]


def test_games_in_the_same_second_are_spread_evenly():
    placed = xs(str(rating_svg([(1500.0, START), (1510.0, START), (1490.0, START)])))
    assert placed == sorted(placed) and len(set(placed)) == 3


def dates(points) -> list[str]:
    return re.findall(r'<text class="date[^"]*"[^>]*><tspan>([^<]+)</tspan>', str(rating_svg(points)))


def test_games_within_minutes_show_seconds_so_no_two_ticks_read_alike():
    # The quick start's first games: ninety seconds. Minutes alone labelled five ticks 10:31 10:31 10:31 ...
    assert dates([(1500.0, START), (1520.0, START + timedelta(seconds=90))]) == [
        "12:00:00", "12:00:22", "12:00:45", "12:01:07", "12:01:30"]


def test_hours_across_midnight_carry_their_day_and_a_long_span_shows_months():
    across = dates([(1500.0, START), (1520.0, START + timedelta(days=1, hours=6))])
    assert across == ["01 Mar 12:00", "01 Mar 19:30", "02 Mar 03:00", "02 Mar 10:30", "02 Mar 18:00"]
    svg = str(rating_svg([(1500.0, START), (1520.0, START + timedelta(days=1, hours=6))]))
    classes = re.findall(r'<text class="(date[^"]*)"', svg)
    assert classes == ["date"] * 4 + ["date last"]  # only the last ends at the axis's end (site.css), inside the chart
    assert dates([(1500.0, START), (1520.0, START + timedelta(days=400))]) == [
        "2026-03", "2026-06", "2026-09", "2026-12", "2027-04"]
