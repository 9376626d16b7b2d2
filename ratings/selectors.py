"""Reads of ratings: the leaderboard of a game and a bot's history."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import Rating, RatingChange


def leaderboard(game: str | None = None) -> QuerySet[Rating]:
    ratings = Rating.objects.select_related("bot__owner").order_by("game", "-elo", "bot_id")
    return ratings.filter(game=game) if game else ratings


def rating_history(bot) -> QuerySet[RatingChange]:
    return (RatingChange.objects.filter(bot=bot)
            .select_related("played__match", "played__white__bot", "played__black__bot")
            .order_by("played_id"))
