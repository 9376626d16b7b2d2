"""Reads the API needs, each one query-bounded (select_related / prefetch_related, no N+1)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet

from ratings import selectors as ratings_selectors
from ratings.models import FittedRating
from tournaments import selectors as app_selectors
from tournaments.models import Bot, BotVersion, Game, Match, TournamentEntrant

from .rows import LEADERBOARD_COLUMNS


def players() -> QuerySet:
    return get_user_model().objects.filter(is_active=True).order_by("id")


def bots_visible_to(user) -> QuerySet:
    return app_selectors.visible_bots(user)


def bot_detail_visible_to(user) -> QuerySet:
    return bots_visible_to(user).prefetch_related(
        # No join back to the bot: the prefetch sets each version's bot to this one.
        Prefetch("versions", queryset=BotVersion.objects.defer("file", "original").order_by("-number")
                 .prefetch_related("sprt_tests", Prefetch("fitted_ratings",
                                                          queryset=FittedRating.objects.select_related("fit")))),
        "ratings",
    )


def versions_visible_to(user) -> QuerySet:
    return (BotVersion.objects.filter(app_selectors.visible_bot_q(user, "bot__")).select_related("bot")
            .prefetch_related("sprt_tests", "fitted_ratings"))


def _both_visible_q(user, first: str, second: str) -> Q:
    """Both bots, reached through the two prefixes, visible to ``user`` (no filter at all for staff)."""
    return app_selectors.visible_bot_q(user, first) & app_selectors.visible_bot_q(user, second)


def matches_visible_to(user) -> QuerySet:
    """Matches whose two bots the user may see (private bots' matches are their owner's business)."""
    # Only the joins the match serializer reads: each extra join costs planning time on every page.
    return (Match.objects.filter(_both_visible_q(user, "version_a__bot__", "version_b__bot__"))
            .select_related("version_a__bot", "version_b__bot"))


def match_detail_visible_to(user) -> QuerySet:
    return matches_visible_to(user).prefetch_related(
        Prefetch("games", queryset=Game.objects.select_related("white__bot", "black__bot").defer("record")
                 .order_by("number")))


def games_visible_to(user, *, with_record: bool = False) -> QuerySet:
    games = Game.objects.select_related("white__bot", "black__bot").filter(
        _both_visible_q(user, "white__bot__", "black__bot__"))
    return games if with_record else games.defer("record")


def tournaments_all() -> QuerySet:
    return app_selectors.tournament_list()


def tournament_detail() -> QuerySet:
    return tournaments_all().prefetch_related(
        Prefetch("entrants", queryset=TournamentEntrant.objects.select_related("version__bot").order_by("seed")))


def leaderboard_rows(game_id: str) -> QuerySet:
    """The leaderboard as rows: no window function, the rank of a row is its place in the order (the view
    adds it), so the page's COUNT is a plain indexed count."""
    return ratings_selectors.leaderboard(game_id).values(*LEADERBOARD_COLUMNS)


def rating_history(bot: Bot) -> QuerySet:
    """Newest game first."""
    return ratings_selectors.rating_history(bot).order_by("-played_id")
