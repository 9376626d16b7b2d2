"""Opening suites made by the suite service, and matches of a suite reported as a worker reports them: each game's
record starts from the opening it was dealt, and the report stores which."""

from __future__ import annotations

from tournaments.models import Match, OpeningSuite
from tournaments.services import create_match
from tournaments.services.openings import create_suite

from . import record, report


def make_suite(game_id: str = "tafl9", name: str = "balance", count: int = 4, plies: int = 2, seed: int = 7):
    """A suite of ``count`` openings ``plies`` random legal actions deep (odd ``plies`` in Tafl: black to move)."""
    return create_suite(game_id, name=name, count=count, plies=plies, seed=seed)


def play_openings(version_a, version_b, suite: OpeningSuite, numbers, winners, *, rated: bool = False) -> Match:
    """A match of ``suite`` whose games 2k-1 and 2k started from opening ``numbers[k-1]`` (version A white in odd
    games), won by ``winners`` (white, black or none per game), reported by a worker: each record's ``initial`` is
    its opening, as the runner writes it."""
    match = create_match(version_a, version_b, rated=rated, games=len(winners), opening_suite=suite)
    positions = dict(suite.openings.values_list("number", "position"))
    records = [{**record(winner, game=suite.game), "initial": positions[numbers[n // 2]]}
               for n, winner in enumerate(winners)]
    return report(match, records)
