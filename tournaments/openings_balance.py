"""Reads of opening suites' balance: each opening's results by side and its colour-swapped pairs, one grouped query
a suite (the counting is ``engines.stats.balance``; docs/openings-balance.md)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from django.db.models import Count, F, OuterRef, Subquery

from engines import get_game
from engines.core import RefereeError
from engines.stats import Balance, balance

from .models import Game, Opening, OpeningSuite


@dataclass(frozen=True)
class OpeningBalance:
    opening: Opening
    first: str  # the side to move in the opening's position: the first mover of both games of a pair
    played: Balance

    @property
    def retired(self) -> bool:
        return self.opening.retired_at is not None


@dataclass(frozen=True)
class SuiteBalance:
    suite: OpeningSuite
    openings: list[OpeningBalance]
    total: Balance  # every game of every opening, retired ones included

    @property
    def retired(self) -> int:
        return sum(row.retired for row in self.openings)

    @property
    def active(self) -> int:
        return len(self.openings) - self.retired


def first_mover(game_id: str, position: str) -> str:
    """Who moves first from ``position``: its side to move, as the referee reads it (white from every game's own
    start in this arena, but an opening some plies in may hand black the move)."""
    game = get_game(game_id)
    try:
        return game.parse(position).turn
    except RefereeError:
        # A position the current referee no longer reads (its ruleset changed): the game's own first mover.
        return game.initial().turn


def game_results(suite: OpeningSuite, numbers: Collection[int] | None = None,
                 ) -> dict[int, list[tuple[str, str | None, int]]]:
    """Per opening id, its games as ``engines.stats.balance`` counts them: (winner, the winner of the game that
    completes the pair when this one starts it, how many), from one grouped query over the suite's games (only
    the openings of these ``numbers`` if given)."""
    # Games 2k-1 and 2k of a match are a pair on one opening (colours swapped): the odd game reads its partner.
    partner = (Game.objects.filter(match=OuterRef("match"), opening=OuterRef("opening"), number=OuterRef("number") + 1)
               .annotate(parity=F("number") % 2).filter(parity=0).values("winner")[:1])
    games = Game.objects.filter(opening__suite=suite)
    if numbers is not None:
        games = games.filter(opening__number__in=numbers)
    rows = (games.annotate(partner=Subquery(partner)).values_list("opening_id", "winner", "partner")
            .annotate(games=Count("id")).order_by())
    results: dict[int, list[tuple[str, str | None, int]]] = defaultdict(list)
    for opening_id, winner, partner_winner, games in rows:
        results[opening_id].append((winner, partner_winner, games))
    return results


def suite_balance(suite: OpeningSuite, numbers: Collection[int] | None = None) -> SuiteBalance:
    """Every opening of ``suite`` by number (only these ``numbers`` if given) with its balance, and the totals of
    those: two queries in all."""
    results = game_results(suite, numbers)
    openings = suite.openings.order_by("number")
    if numbers is not None:
        openings = openings.filter(number__in=numbers)
    rows = [OpeningBalance(opening, first := first_mover(suite.game, opening.position),
                           balance(first, results.get(opening.pk, ())))
            for opening in openings]
    return SuiteBalance(suite, rows, sum((row.played for row in rows), Balance()))
