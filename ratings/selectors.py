"""Reads of ratings: the leaderboard of a game and a bot's history."""

from __future__ import annotations

from django.db.models import F, QuerySet

from .models import Rating, RatingChange


def leaderboard(game: str) -> QuerySet[Rating]:
    """Public bots' ratings for one game, best first: a row's rank is its place in this order."""
    return (Rating.objects.filter(game=game, bot__is_public=True).select_related("bot__owner")
            .order_by("-elo", "bot_id"))


def rating_history(bot) -> QuerySet[RatingChange]:
    """A bot's rating changes, oldest game first, each with its game's match as ``match_id``."""
    return (RatingChange.objects.filter(bot=bot).annotate(match_id=F("played__match_id"))
            .select_related("played__match", "played__white__bot", "played__black__bot")
            .order_by("played_id"))
