"""A bot's Elo per game and the change every rated game made to it."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from engines import GAME_IDS


class Rating(models.Model):
    bot = models.ForeignKey("tournaments.Bot", on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=16, choices=[(g, g) for g in GAME_IDS])
    elo = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-elo", "bot_id"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "game"], name="rating_unique_bot_game"),
            models.CheckConstraint(condition=Q(games=F("wins") + F("draws") + F("losses")),
                                   name="rating_games_add_up"),
        ]
        indexes = [models.Index(fields=["game", "-elo"], name="rating_leaderboard_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.game} {self.elo:.1f}"


class RatingChange(models.Model):
    """What one rated game did to one bot's rating."""

    bot = models.ForeignKey("tournaments.Bot", on_delete=models.CASCADE, related_name="rating_changes")
    played = models.ForeignKey("tournaments.Game", on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.PositiveIntegerField()
    score = models.FloatField(help_text="1 win, 0.5 draw, 0 loss, for this bot.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["played_id", "bot_id"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "played"], name="ratingchange_once_per_game"),
            models.CheckConstraint(condition=Q(score__in=[0, 0.5, 1]), name="ratingchange_score_known"),
        ]
        indexes = [models.Index(fields=["bot", "played"], name="ratingchange_history_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.before:.1f}->{self.after:.1f}"
