"""The worker-time estimate learns how long a game's games are from the games stored, once there are enough."""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engines.protocol import TimeControl
from tournaments.services.worker_time import (
    EXPECTED_PLIES,
    EXPECTED_STARTUP_SECONDS,
    TYPICAL_MIN_GAMES,
    expected_game_seconds,
)

from .conftest import play


def seconds_for(plies: int) -> float:
    return EXPECTED_STARTUP_SECONDS + TimeControl.parse("move:100").thinking_seconds(plies)


def test_the_estimate_uses_the_stored_games_median_length_once_there_are_enough(pair):
    a, b = pair
    cache.clear()
    assert expected_game_seconds("tafl9", "move:100") == seconds_for(EXPECTED_PLIES)  # no games yet
    for _ in range(TYPICAL_MIN_GAMES // 10 - 1):
        play(a, b, ["white"] * 10, rated=False)  # games of 10 plies (tests.service.conftest.record)
    cache.clear()
    assert expected_game_seconds("tafl9", "move:100") == seconds_for(EXPECTED_PLIES)  # 40: still too few
    play(a, b, ["white"] * 10, rated=False)
    cache.clear()
    assert expected_game_seconds("tafl9", "move:100") == seconds_for(10)
    assert expected_game_seconds("shatra", "move:100") > seconds_for(10)  # another game learns on its own
    with CaptureQueriesContext(connection) as queries:
        expected_game_seconds("tafl9", "move:100")
    assert len(queries) == 0  # kept: every queued match asks
