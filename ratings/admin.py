"""Ratings in the admin: the leaderboard rows and every change, searchable by bot."""

from __future__ import annotations

from django.contrib import admin

from ratings.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["id", "bot", "owner", "game", "elo_rounded", "games", "wins", "draws", "losses", "updated_at"]
    list_filter = ["game"]
    search_fields = ["bot__name", "bot__owner__username"]
    list_select_related = ["bot__owner"]
    raw_id_fields = ["bot"]
    ordering = ["game", "-elo"]

    @admin.display(description="owner", ordering="bot__owner__username")
    def owner(self, rating):
        return rating.bot.owner

    @admin.display(description="elo", ordering="elo")
    def elo_rounded(self, rating):
        return round(rating.elo, 1)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["id", "bot", "played", "before", "after", "delta", "k", "score", "created_at"]
    list_filter = ["bot__game"]
    search_fields = ["bot__name", "=played__id"]
    list_select_related = ["bot", "played"]
    raw_id_fields = ["bot", "played"]
    show_full_result_count = False
