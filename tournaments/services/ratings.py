"""The ratings of the games played here: the domain reads its rated games and hands them to ratings.

``ratings`` sits below ``tournaments`` and never imports it, so these two calls live on this side.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app
from django.core.cache import cache

from engines import GAME_IDS
from knobs import arena
from ratings.elo import EloRules
from ratings.models import RatingFit
from ratings.selectors import stored_current
from ratings.services import RecomputeReport, fit_games, rewrite_ratings

from .. import events
from ..selectors import ladder_versions, rated_game_rows, rated_pair_counts, rated_results_since

log = logging.getLogger(__name__)


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
    average = float(arena.RATING_FIT_AVERAGE if average is None else average)
    counts, bot_of = rated_pair_counts(game_ids)
    current = {game: {version.pk for version in ladder_versions(game).values()} for game in game_ids}
    fits = fit_games(counts, average, bot_of, current)
    events.emit(events.RatingsRefitted(tuple(game_ids)))
    return fits


def refit_changed() -> list[RatingFit]:
    """What beat runs every RATING_FIT_SECONDS: refit the games whose rated results changed, or whose bots
    changed the version they play the ladder with (a pin, an upload, a retirement), none other.

    A game is refitted while rated matches keep finishing, one more time after the last of them, and then not
    at all until the next: an idle arena costs two small queries per game. "Changed" looks back a whole period
    before the last fit, not just to it, so a match that finished as that fit was reading is not missed.
    """
    period = timedelta(seconds=arena.RATING_FIT_SECONDS)
    fitted_at = dict(RatingFit.objects.values_list("game", "fitted_at"))
    changed = [game for game in GAME_IDS
               if rated_results_since(game, fitted_at[game] - period if game in fitted_at else None)
               or (game in fitted_at and stored_current(game) != {v.pk for v in ladder_versions(game).values()})]
    return fit_ratings(changed) if changed else []


# --- a refit soon after a rated match, rather than at the next beat -----------------------------------

# workers.tasks.refit_game, looked up by its name (the domain does not import workers; WorkersConfig.ready
# registers the tasks in every process).
REFIT_TASK = "ratings.refit"


def refit_pending_key(game_id: str) -> str:
    return f"ratings:refit-pending:{game_id}"


def schedule_refit(game_id: str) -> bool:
    """Ask for a refit of one game id in RATING_REFIT_DELAY_SECONDS; False if one is already on its way.

    Coalescing: the first finish of a burst leaves a marker that lives a little less than the delay, and the
    finishes while it lives send nothing: the refit they share starts after all of them committed (it runs
    once the delay is over, the marker gone before), so it reads them all. A finish after the marker expired
    sends its own refit; at worst a refit too many, never one missing. The marker is in the cache: shared by
    every process with CACHE_URL, per process without (then each process coalesces its own finishes).
    Called after the commit; a broker that is down costs only the delay: beat's ``refit_changed`` catches up.
    """
    delay = float(arena.RATING_REFIT_DELAY_SECONDS)
    if not cache.add(refit_pending_key(game_id), True, timeout=max(delay - 1.0, 0.5)):
        return False
    try:
        current_app.tasks[REFIT_TASK].apply_async(args=[game_id], countdown=delay)
    except Exception:  # noqa: BLE001 - the match is stored; the beat's refit is the safety net
        log.exception("could not send a refit of %s; the next beat refits it", game_id)
        cache.delete(refit_pending_key(game_id))
        return False
    return True


def refit_game(game_id: str) -> RatingFit | None:
    """Fit one game id with every rated result stored when it starts (the task ``ratings.refit`` runs it)."""
    if game_id not in GAME_IDS:
        return None
    return fit_ratings([game_id])[0]
