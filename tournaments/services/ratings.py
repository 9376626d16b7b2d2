"""The ratings of the games played here: the domain reads its rated games and hands them to ratings.

``ratings`` sits below ``tournaments`` and never imports it, so these two calls live on this side.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings

from engines import GAME_IDS
from ratings.elo import EloRules
from ratings.models import RatingFit
from ratings.selectors import stored_current
from ratings.services import RecomputeReport, fit_games, rewrite_ratings

from ..selectors import ladder_versions, rated_game_rows, rated_pair_counts, rated_results_since


def recompute_ratings(rules: EloRules | None = None, history: bool = False,
                      batch_size: int = 5000) -> RecomputeReport:
    """Replay every rated game in order and rewrite the rating rows that differ from the replay.

    With ``history`` every stored rating change is checked (and repaired) as well.
    """
    return rewrite_ratings(rated_game_rows(), rules, history=history, batch_size=batch_size)


def fit_ratings(game_ids=None, average: float | None = None) -> list[RatingFit]:
    """Fit every rated game of each game id (all by default) and store the result; the fits, in order.
    The versions the bots play the ladder with now are marked current: the leaderboard's rows."""
    game_ids = list(GAME_IDS if game_ids is None else game_ids)
    average = float(settings.ARENA["RATING_FIT_AVERAGE"] if average is None else average)
    counts, bot_of = rated_pair_counts(game_ids)
    current = {game: {version.pk for version in ladder_versions(game).values()} for game in game_ids}
    return fit_games(counts, average, bot_of, current)


def refit_changed() -> list[RatingFit]:
    """What beat runs every RATING_FIT_SECONDS: refit the games whose rated results changed, or whose bots
    changed the version they play the ladder with (a pin, an upload, a retirement), none other.

    A game is refitted while rated matches keep finishing, one more time after the last of them, and then not
    at all until the next: an idle arena costs two small queries per game. "Changed" looks back a whole period
    before the last fit, not just to it, so a match that finished as that fit was reading is not missed.
    """
    period = timedelta(seconds=settings.ARENA["RATING_FIT_SECONDS"])
    fitted_at = dict(RatingFit.objects.values_list("game", "fitted_at"))
    changed = [game for game in GAME_IDS
               if rated_results_since(game, fitted_at[game] - period if game in fitted_at else None)
               or (game in fitted_at and stored_current(game) != {v.pk for v in ladder_versions(game).values()})]
    return fit_ratings(changed) if changed else []
