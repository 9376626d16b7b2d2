"""Match statistics: score, Elo difference with a 95% interval, LOS."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .core import BLACK, NONE, WHITE, other
from .core import points as points_of

Z95 = 1.959963984540054


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts ``score`` (0 < score < 1); infinite at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: never print -0.0


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    games: int
    score: float  # 0..1 for the first player
    elo: float  # Elo difference, first minus second; ±inf when one side scored everything
    margin: float  # half-width of the 95% interval in Elo; inf when unknown
    los: float  # likelihood of superiority, 0..1

    @property
    def low(self) -> float:
        return self.elo - self.margin

    @property
    def high(self) -> float:
        return self.elo + self.margin

    def text(self) -> str:
        """``+35.2 +/- 20.1`` as cutechess prints it; ``inf`` spelled out."""
        if math.isinf(self.elo):
            return f"{'+' if self.elo > 0 else '-'}inf"
        if math.isinf(self.margin) or math.isnan(self.margin):
            return f"{self.elo:+.1f} +/- inf"
        return f"{self.elo:+.1f} +/- {self.margin:.1f}"

    def words(self) -> str:
        """For people: the difference with its interval, or what stands in for a number that is not one."""
        if math.isinf(self.elo):
            return "scored every point" if self.elo > 0 else "scored no point"
        if math.isinf(self.margin) or math.isnan(self.margin):
            return f"{self.elo:+.1f} (too few games for an interval)"
        return f"{self.elo:+.1f} ± {self.margin:.1f}"


def _check_counts(counts: tuple[int, ...], names: str) -> None:
    for value in counts:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{names} must be whole numbers of 0 or more, got {counts}")


def score(wins: int, draws: int, losses: int) -> float:
    _check_counts((wins, draws, losses), "wins, draws, losses")
    games = wins + draws + losses
    if games == 0:
        raise ValueError("no games to score")
    return (wins + 0.5 * draws) / games


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority from decisive games (the usual normal approximation)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def _interval(mean: float, variance_per_unit: float, units: int) -> float:
    """Half-width in Elo of the 95% interval around ``mean`` (a score) from its variance."""
    if units == 0 or variance_per_unit == 0.0:
        # Every game (or pair) scored the same: the sample says nothing of the spread yet, so the interval is
        # unknown, not zero ("0.0 +/- 0.0" after one drawn pair claimed certainty).
        return math.inf
    stdev = math.sqrt(variance_per_unit / units)
    low = elo_from_score(mean - Z95 * stdev)
    high = elo_from_score(mean + Z95 * stdev)
    return (high - low) / 2.0


def elo_trinomial(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference ± 95% from W/D/L counts, as cutechess-cli prints it."""
    mean = score(wins, draws, losses)
    games = wins + draws + losses
    variance = (wins * (1.0 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games
    return EloEstimate(games, mean, elo_from_score(mean), _interval(mean, variance, games), los(wins, losses))


def elo_pentanomial(pairs: tuple[int, int, int, int, int]) -> EloEstimate:
    """Elo difference ± 95% from counts of pair scores 0, 0.5, 1, 1.5, 2 (fishtest's pentanomial)."""
    if len(pairs) != 5:
        raise ValueError(f"a pentanomial needs 5 counts (pair scores 0, 0.5, 1, 1.5, 2), got {len(pairs)}")
    _check_counts(tuple(pairs), "pair counts")
    total = sum(pairs)
    if total == 0:
        raise ValueError("no game pairs to score")
    points = (0.0, 0.25, 0.5, 0.75, 1.0)  # per-game score of each pair outcome
    mean = sum(p * n for p, n in zip(points, pairs)) / total
    variance = sum(n * (p - mean) ** 2 for p, n in zip(points, pairs)) / total
    return EloEstimate(2 * total, mean, elo_from_score(mean), _interval(mean, variance, total),
                       _los_from_mean(mean, variance, total))


def _los_from_mean(mean: float, variance_per_unit: float, units: int) -> float:
    """P(true score > 0.5) under the normal law of the mean score — fishtest's LOS.

    Here the units are game pairs: a pair is one draw from the pentanomial, so a won-won pair counts
    once with its own spread, never as two independent wins (which overstated the LOS). With no spread
    at all the answer is certain: 1 above an even score, 0 below, 0.5 at it.
    """
    if variance_per_unit <= 0.0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return 0.5 * (1.0 + math.erf((mean - 0.5) / math.sqrt(2.0 * variance_per_unit / units)))


def tally(scores: Iterable[float], start: tuple[int, int, int] = (0, 0, 0)) -> tuple[int, int, int]:
    """Wins, draws and losses (added to ``start``) from one side's points per game: 1, 0.5 or 0."""
    wins, draws, losses = start
    for points in scores:
        if points == 1:
            wins += 1
        elif points == 0.5:
            draws += 1
        elif points == 0:
            losses += 1
        else:
            raise ValueError(f"a game scores 1, 0.5 or 0, got {points!r}")
    return wins, draws, losses


def pair_scores(scores: Sequence[float]) -> list[float]:
    """The first player's points in each colour-swapped pair (games 1-2, 3-4, …) from its points per game."""
    if len(scores) % 2:
        raise ValueError(f"colour-swapped pairs need an even number of games, got {len(scores)}")
    return [first + second for first, second in zip(scores[::2], scores[1::2])]


def pentanomial(pair_scores: Iterable[float],
                start: Sequence[int] = (0, 0, 0, 0, 0)) -> tuple[int, int, int, int, int]:
    """Counts of pair scores (each the first player's points in a colour-swapped pair: 0..2), added to ``start``."""
    counts = list(start)
    for points in pair_scores:
        index = points * 2
        if index != int(index) or not 0 <= index <= 4:
            raise ValueError(f"a pair score must be 0, 0.5, 1, 1.5 or 2, got {points!r}")
        counts[int(index)] += 1
    return tuple(counts)  # type: ignore[return-value]


@dataclass(frozen=True)
class Balance:
    """How start positions have played: games by winning side, the wins of the side that moved first from them,
    and their colour-swapped pairs as a pentanomial from the first mover's view (see ``balance``)."""

    white_wins: int = 0
    draws: int = 0
    black_wins: int = 0
    first_wins: int = 0
    pairs: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def games(self) -> int:
        return self.white_wins + self.draws + self.black_wins

    @property
    def pair_count(self) -> int:
        return sum(self.pairs)

    @property
    def first_score(self) -> float | None:
        """The first mover's points per game (a draw is half), or None before any game."""
        return (self.first_wins + 0.5 * self.draws) / self.games if self.games else None

    @property
    def draw_rate(self) -> float | None:
        return self.draws / self.games if self.games else None

    def __add__(self, other: Balance) -> Balance:
        return Balance(self.white_wins + other.white_wins, self.draws + other.draws,
                       self.black_wins + other.black_wins, self.first_wins + other.first_wins,
                       tuple(mine + theirs for mine, theirs in zip(self.pairs, other.pairs)))  # type: ignore[arg-type]


def balance(first: str, results: Iterable[tuple[str, str | None, int]]) -> Balance:
    """The balance of one start position whose side to move is ``first`` (white or black), from ``results``:
    (a game's winner, the winner of the game that completes its colour-swapped pair or None, how many such games).

    A pair's score is the points of the bot that moved first in the pair's first game: its first mover's points
    there plus the second mover's in the other game (the bots swap colours, the opening's side to move stays).
    """
    second = other(first)
    counts = {WHITE: 0, NONE: 0, BLACK: 0}
    pairs = (0, 0, 0, 0, 0)
    for winner, partner, number in results:
        if winner not in counts or (partner is not None and partner not in counts):
            raise ValueError(f"a winner is white, black or none, got {winner!r} and {partner!r}")
        counts[winner] += number
        if partner is not None:
            pairs = pentanomial([points_of(winner, first) + points_of(partner, second)] * number, pairs)
    return Balance(counts[WHITE], counts[NONE], counts[BLACK], counts[first], pairs)
