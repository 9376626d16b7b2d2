"""The ratings of the games played here: the domain reads its rated games and hands them to ratings.

``ratings`` sits below ``tournaments`` and never imports it, so these two calls live on this side.
"""

from __future__ import annotations

from django.conf import settings

from engines import GAME_IDS
from ratings.elo import EloRules
from ratings.models import RatingFit
from ratings.services import RecomputeReport, fit_games, rewrite_ratings

from ..selectors import rated_game_rows, rated_pair_counts


def recompute_ratings(rules: EloRules | None = None, history: bool = False,
                      batch_size: int = 5000) -> RecomputeReport:
    """Replay every rated game in order and rewrite the rating rows that differ from the replay.

    With ``history`` every stored rating change is checked (and repaired) as well.
    """
    return rewrite_ratings(rated_game_rows(), rules, history=history, batch_size=batch_size)


def fit_ratings(game_ids=None, average: float | None = None) -> list[RatingFit]:
    """Fit every rated game of each game id (all by default) and store the result; the fits, in order."""
    game_ids = list(GAME_IDS if game_ids is None else game_ids)
    average = float(settings.ARENA["RATING_FIT_AVERAGE"] if average is None else average)
    return fit_games(rated_pair_counts(game_ids), average)
