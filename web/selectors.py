"""Reads the pages need, built on the domain's selectors and its one visibility rule for private bots
(``tournaments.selectors.visible_bot_q``). Each read does a fixed number of queries, whatever the data."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import BooleanField, Count, ExpressionWrapper, F, Q

from api import selectors as api_selectors
from engines import GAME_IDS
from ratings import selectors as ratings_selectors
from tournaments import selectors as app_selectors
from tournaments.models import Bot, BotVersion, Game, Match, Tournament

GAME_NAMES = {"tafl9": "Tafl 9×9", "fidchell-1": "Fidchell (Rules One)", "fidchell-2": "Fidchell (Rules 2)",
              "shatra": "Altai Shatra"}
# Within each part of the board (the ranked bots, then the provisional ones); "rating" is the board's own order.
LEADERBOARD_SORTS = {"rating": (F("board_rank").asc(nulls_last=True), F("board_elo").desc(nulls_last=True), "-elo",
                                "bot_id"),
                     "games": ("-games", "-elo", "bot_id"), "name": ("bot__name", "bot_id"),
                     "last": ("-updated_at", "bot_id")}
PAGE_SIZE = 50


# --- home ---------------------------------------------------------------------------------------

def top_bots(game_id: str, count: int = 5) -> dict:
    """The head of the game's board as its page shows it: the ranked bots by rank, then the provisional ones apart,
    each with the rating the board orders it by (the fitted one, else the live Elo)."""
    rows = list(ratings_selectors.leaderboard(game_id)
                .values("bot_id", "bot__name", "elo", rank=F("board_rank"), fitted=F("board_elo"))[:count])
    for row in rows:
        row["shown_elo"] = row["elo"] if row["fitted"] is None else row["fitted"]
    return {"ranked": [row for row in rows if row["rank"] is not None],
            "provisional": [row for row in rows if row["rank"] is None]}


def matches_now(user, count: int = 10) -> list[Match]:
    return list(api_selectors.matches_visible_to(user).filter(status=Match.Status.RUNNING)
                .order_by("-started_at", "-id")[:count])


def recent_results(user, count: int = 10) -> list[Match]:
    return list(api_selectors.matches_visible_to(user).filter(status=Match.Status.FINISHED)
                .order_by("-finished_at", "-id")[:count])


def open_tournaments(count: int = 10) -> list[Tournament]:
    return list(app_selectors.tournament_list()
                .filter(status__in=[Tournament.Status.DRAFT, Tournament.Status.RUNNING])[:count])


def home(user) -> dict:
    return {"games": [{"id": g, "name": GAME_NAMES[g], "top": top_bots(g)} for g in GAME_IDS],
            "now": matches_now(user), "recent": recent_results(user), "tournaments": open_tournaments()}


# --- leaderboard --------------------------------------------------------------------------------

def leaderboard(game_id: str, sort: str, page_number) -> dict:
    """One page of a game's board in the ``sort`` order, the ranked bots before the provisional ones whatever
    the sort (never mixed); ``ranked`` and ``provisional`` split the page's rows. A ranked row's rank is its
    stored place by fitted rating (``ratings.selectors.leaderboard``), with its 95% interval and p_first."""
    board = (ratings_selectors.leaderboard(game_id)
             .order_by(ExpressionWrapper(Q(board_rank__isnull=True), output_field=BooleanField()),
                       *LEADERBOARD_SORTS[sort])
             .values("bot_id", "bot__name", "bot__owner__username", "elo", "games", "wins", "draws", "losses",
                     "updated_at", *(f"board_{name}" for name in ratings_selectors.BOARD_FIELDS)))
    page = Paginator(board, PAGE_SIZE).get_page(page_number)
    rows = list(page.object_list)
    for row in rows:
        row["fitted"] = ratings_selectors.board_fitted(row)
        row["standing"] = ratings_selectors.standing(row["fitted"])
        row["provisional"] = row["standing"] != "ranked"
        row["rank"] = row["board_rank"]
    return {"page": page, "rows": rows, "ranked": [row for row in rows if not row["provisional"]],
            "provisional": [row for row in rows if row["provisional"]],
            "standings": ratings_selectors.STANDINGS}


# --- a bot --------------------------------------------------------------------------------------

def bot(user, bot_id: int) -> Bot | None:
    """The bot with its versions and ratings, or None when it does not exist or is private to someone else."""
    return api_selectors.bot_detail_visible_to(user).filter(pk=bot_id).first()


def rating_points(bot: Bot) -> list[tuple[float, object]]:
    """(rating after, when) of each rated game, oldest first, starting from the rating before the first."""
    changes = list(ratings_selectors.rating_history(bot).values_list("before", "after", "created_at"))
    if not changes:
        return []
    return [(changes[0][0], changes[0][2])] + [(after, when) for _, after, when in changes]


def recent_games(user, version_ids: list[int], count: int = 20) -> list[Game]:
    """The newest games of these versions, as white or black (two index scans, merged); a game between two of
    them (a bot's own versions) comes from both scans and is listed once."""
    games = api_selectors.games_visible_to(user).order_by("-created_at", "-id")
    both = list(games.filter(white_id__in=version_ids)[:count]) + list(games.filter(black_id__in=version_ids)[:count])
    once = {game.pk: game for game in both}.values()
    return sorted(once, key=lambda g: (g.created_at, g.id), reverse=True)[:count]


# --- games, matches, tournaments, players ---------------------------------------------------------

def game(user, game_id: int) -> Game | None:
    return (api_selectors.games_visible_to(user, with_record=True).select_related("match__tournament")
            .filter(pk=game_id).first())


def match(user, match_id: int) -> Match | None:
    return api_selectors.match_detail_visible_to(user).select_related("tournament").filter(pk=match_id).first()


def tournament(tournament_id: int) -> Tournament | None:
    return app_selectors.tournament_list().filter(pk=tournament_id).first()


def tournament_progress(user, tournament: Tournament) -> dict:
    """Matches by status, and the ones being played now that the user may watch (not private bots' to others)."""
    counts = dict(tournament.matches.values_list("status").annotate(n=Count("id")).order_by())
    total = sum(counts.values())
    done = counts.get(Match.Status.FINISHED, 0) + counts.get(Match.Status.FAILED, 0)
    playing = list(api_selectors.matches_visible_to(user).filter(tournament=tournament, status=Match.Status.RUNNING)
                   .order_by("round", "id"))
    return {"total": total, "done": done, "counts": counts, "playing": playing,
            "percent": round(100 * done / total) if total else 0}


def tournament_matches(user, tournament: Tournament) -> list[Match]:
    """The tournament's matches the user may see (a private bot's are its owner's business, as in the API)."""
    return list(api_selectors.matches_visible_to(user).filter(tournament=tournament).order_by("round", "id"))


def entry_choices(user, tournament: Tournament) -> list:
    """Ready versions the organiser may enter: their own, or public bots' whose owners consented to
    tournaments (``open_to_tournaments``), of the tournament's game, by name."""
    consented = Q(bot__owner_id=tournament.organiser_id) | Q(bot__open_to_tournaments=True)
    return list(BotVersion.objects.filter(app_selectors.visible_bot_q(user, "bot__"), consented,
                                          bot__game=tournament.game, status=BotVersion.Status.READY,
                                          is_disabled=False)
                .exclude(entries__tournament=tournament).select_related("bot__owner")
                .order_by("bot__name", "-number")[:200])


def player(username: str):
    return get_user_model().objects.filter(username=username, is_active=True).first()


def player_bots(user, owner) -> list[Bot]:
    return list(app_selectors.visible_bots(user).filter(owner=owner).prefetch_related("ratings")
                .order_by("game", "name"))
