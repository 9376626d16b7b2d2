"""Opening suites and matches played from them, for the balance tests. A STAND-IN until the openings-play branch
lands: at the merge, ``play_openings`` becomes a match queued with the suite and reported through its dealing."""

from __future__ import annotations

import random

from django.db import transaction

from engines import get_game
from tournaments.models import Game, Match, Opening, OpeningSuite
from tournaments.services import claim_match, create_match, finish_match

from . import record


def make_suite(game_id: str = "tafl9", name: str = "balance", count: int = 4, plies: int = 2, seed: int = 7):
    """A suite of ``count`` distinct positions, each ``plies`` random legal plies from the start (odd ``plies``:
    black to move). Stand-in for the suite generator's service (openings-play branch)."""
    rng, game, positions = random.Random(seed), get_game(game_id), []
    while len(positions) < count:
        position = game.initial()
        for _ in range(plies):
            position = position.play(rng.choice(position.legal_moves()))
        if position.text() not in positions:
            positions.append(position.text())
    suite = OpeningSuite.objects.create(game=game_id, ruleset=game.ruleset, name=name, seed=seed, plies=plies)
    for number, position in enumerate(positions, 1):
        Opening.objects.create(suite=suite, number=number, position=position)
    return suite


def play_openings(version_a, version_b, suite: OpeningSuite, numbers, winners, *, rated: bool = False) -> Match:
    """A match of ``suite`` whose games 2k-1 and 2k start from opening ``numbers[k-1]`` (version A white in odd
    games), won by ``winners`` (white, black or none per game), reported as a worker reports it.

    Stand-in: the match's suite and each game's opening are set here right after the services queue and finish it,
    in the same transaction as the report, so the MatchFinished reactions see them as on the play branch (where
    ``create_match`` takes the suite and ``finish_match`` sets ``Game.opening``)."""
    match = create_match(version_a, version_b, rated=rated, games=len(winners))
    Match.objects.filter(pk=match.pk).update(opening_suite=suite)
    openings = {opening.number: opening for opening in suite.openings.filter(number__in=numbers)}
    with transaction.atomic():
        token = claim_match(match.pk, "worker-1")
        assert token is not None and finish_match(match.pk, token, [record(w, game=suite.game) for w in winners])
        for number in range(1, len(winners) + 1):
            Game.objects.filter(match=match, number=number).update(opening=openings[numbers[(number - 1) // 2]])
    return Match.objects.get(pk=match.pk)
