"""Ratings in the admin: the leaderboard rows, every change, the latest fits and the SPRTs, searchable by bot."""

from __future__ import annotations

from django.contrib import admin

from ops.admin.paging import LargeTableAdmin
from ratings.models import FittedRating, Rating, RatingChange, RatingFit, VersionTest


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
class RatingChangeAdmin(LargeTableAdmin, admin.ModelAdmin):
    list_display = ["id", "bot", "played", "before", "after", "delta", "k", "score", "created_at"]
    list_filter = ["bot__game"]
    search_fields = ["bot__name", "=played__id"]
    list_select_related = ["bot", "played"]
    raw_id_fields = ["bot", "played"]


@admin.register(RatingFit)
class RatingFitAdmin(admin.ModelAdmin):
    list_display = ["game", "fitted_at", "games", "fitted_games", "advantage", "advantage_margin", "draw_nu", "note"]


@admin.register(FittedRating)
class FittedRatingAdmin(admin.ModelAdmin):
    list_display = ["id", "bot", "version", "fit", "status", "elo", "margin", "games", "current", "rank", "rank_low",
                    "rank_high", "p_first"]
    list_filter = ["fit__game", "status", "current"]
    search_fields = ["bot__name", "bot__owner__username"]
    list_select_related = ["bot", "version__bot", "fit"]
    raw_id_fields = ["bot", "version"]


@admin.register(VersionTest)
class VersionTestAdmin(admin.ModelAdmin):
    list_display = ["id", "candidate", "baseline", "state", "llr", "elo0", "elo1", "gate", "pentanomial", "created_at"]
    list_filter = ["state", "gate", "candidate__bot__game"]
    search_fields = ["candidate__bot__name", "candidate__bot__owner__username"]
    list_select_related = ["candidate__bot", "baseline__bot"]
    raw_id_fields = ["candidate", "baseline"]
    readonly_fields = ["matches"]
