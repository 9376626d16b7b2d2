"""Reads of ratings: the leaderboard of a game, a bot's history, and the latest fitted ratings."""

from __future__ import annotations

import re

from django.conf import settings
from django.db.models import F, FilteredRelation, Q, QuerySet

from .models import FittedRating, Rating, RatingChange, RatingFit, VersionTest


def leaderboard(game: str) -> QuerySet[Rating]:
    """Public bots' ratings for one game, best first: a row's rank is its place in this order. Retired bots have
    left it (their ratings stay, on their pages)."""
    return (Rating.objects.filter(game=game, bot__is_public=True, bot__is_retired=False).select_related("bot__owner")
            .order_by("-elo", "bot_id"))


def rating_history(bot) -> QuerySet[RatingChange]:
    """A bot's rating changes, oldest game first, each with its game's match as ``match_id``."""
    return (RatingChange.objects.filter(bot=bot).annotate(match_id=F("played__match_id"))
            .select_related("played__match", "played__white__bot", "played__black__bot")
            .order_by("played_id"))


def rating_fit(game: str) -> RatingFit | None:
    """The latest fit of one game (time, games, first-player advantage, draw rate, note), or None."""
    return RatingFit.objects.filter(game=game).first()


def fitted_leaderboard(game: str) -> QuerySet[FittedRating]:
    """Public bots' fitted ratings for one game: rated bots best first, then those the results leave
    unbounded (``status`` above/below/apart/unrated, ``elo`` null), each with its bot and owner."""
    return (FittedRating.objects.filter(fit__game=game, bot__is_public=True, bot__is_retired=False)
            .select_related("bot__owner", "fit")
            .order_by(F("elo").desc(nulls_last=True), "bot_id"))


def fitted_ratings(game: str, bot_ids) -> dict[int, FittedRating]:
    """The latest fitted rating of each of these (public) bots, by bot id; one query; bots the fit did not
    include are absent."""
    return {fitted.bot_id: fitted for fitted in fitted_leaderboard(game).filter(bot_id__in=list(bot_ids))}


def bot_fit(bot) -> tuple[RatingFit | None, FittedRating | None]:
    """The latest fit of the bot's game and the bot's row in it (None where there is none), in one query,
    whoever may see the bot: the caller decides that."""
    fit = (RatingFit.objects.filter(game=bot.game)
           .annotate(mine=FilteredRelation("ratings", condition=Q(ratings__bot=bot)))
           .annotate(mine_id=F("mine__id"), mine_status=F("mine__status"), mine_elo=F("mine__elo"),
                     mine_margin=F("mine__margin"), mine_games=F("mine__games"))
           .first())
    if fit is None or fit.mine_id is None:
        return fit, None
    return fit, FittedRating(id=fit.mine_id, fit=fit, bot=bot, status=fit.mine_status, elo=fit.mine_elo,
                             margin=fit.mine_margin, games=fit.mine_games)


def fitted_summary(games: int, fitted: FittedRating | None, fit: RatingFit | None) -> dict:
    """What the API shows of the fit beside a bot's live rating (the leaderboard and the bot alike): the
    fitted rating and its 95% margin, unrounded; its status; the provisional flag; the game's first-player
    advantage. ``games``: the bot's rated games."""
    return {"fitted_elo": fitted.elo if fitted else None, "fitted_margin": fitted.margin if fitted else None,
            "fitted_status": fitted.status if fitted else None, "provisional": is_provisional(games, fitted),
            "first_player_advantage": fit.advantage if fit else None}


def is_provisional(games: int, fitted: FittedRating | None) -> bool:
    """Few rated games (the live Elo's large-K phase) or no fitted rating narrower than the threshold."""
    arena = settings.ARENA
    return (games < arena["ELO_PROVISIONAL_GAMES"] or fitted is None or fitted.margin is None
            or fitted.margin > arena["RATING_PROVISIONAL_MARGIN"])


def held_back(prefix: str = "") -> Q:
    """Versions the SPRT gate keeps off the ladder, as a filter on a bot version reached through ``prefix``:
    the owner asked for a gated test of them and none of those tests has passed (yet)."""
    gated = VersionTest.objects.filter(gate=True).values("candidate_id")
    passed = VersionTest.objects.filter(gate=True, state=VersionTest.State.PASSED).values("candidate_id")
    return Q(**{f"{prefix}pk__in": gated}) & ~Q(**{f"{prefix}pk__in": passed})


def own_rating(bot) -> Rating | None:
    """The bot's live rating in its own game, from its prefetched ``ratings``; None before any rated game."""
    return next((rating for rating in bot.ratings.all() if rating.game == bot.game), None)


def version_test_of(bot_id: int, test_id) -> VersionTest | None:
    """One of a bot's SPRTs by the id a URL or a form gave (text or a number); None for anything that names
    none of its tests, an id too large for the database included."""
    text = str(test_id)
    if not re.fullmatch(r"[0-9]{1,18}", text):
        return None
    return version_tests_of(bot_id).filter(pk=int(text)).first()


def version_tests_of(bot_id: int) -> QuerySet[VersionTest]:
    """A bot's SPRTs (its versions' tests as the candidate), newest first."""
    return VersionTest.objects.filter(candidate__bot_id=bot_id).order_by("-created_at", "-id")
