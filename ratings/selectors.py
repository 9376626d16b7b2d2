"""Reads of ratings: the leaderboard of a game, a bot's history, and the latest fitted ratings."""

from __future__ import annotations

import re

from django.db.models import F, FilteredRelation, Q, QuerySet

from .models import FittedRating, Rating, RatingChange, RatingFit, VersionTest

# The fitted fields of the bot's board row (its current version's), as annotations of a Rating query.
BOARD_FIELDS = ("id", "elo", "margin", "status", "games", "version_id", "rank", "rank_low", "rank_high", "p_first")


def on_leaderboard_q(prefix: str = "bot__") -> Q:
    """The bots the ladder pairs and the leaderboard lists, as a filter on a bot reached through ``prefix``:
    those everyone may see (``tournaments.selectors.may_see_bot`` with no reader) that their owner has not
    retired."""
    return Q(**{f"{prefix}is_public": True, f"{prefix}is_retired": False})


def leaderboard(game: str) -> QuerySet[Rating]:
    """Public bots' ratings for one game, each with the fitted rating of the version it plays the ladder
    with (annotations ``board_elo``, ``board_margin``, ... of ``BOARD_FIELDS``): the ranked bots first by
    their rank, then the provisional ones by fitted rating, then by live Elo. Retired bots have left it (their
    ratings stay, on their pages)."""
    return (Rating.objects.filter(on_leaderboard_q(), game=game)
            .annotate(board=FilteredRelation("bot__fitted_ratings",
                                             condition=Q(bot__fitted_ratings__current=True)))
            .annotate(**{f"board_{name}": F(f"board__{name}") for name in BOARD_FIELDS})
            .select_related("bot__owner")
            .order_by(F("board__rank").asc(nulls_last=True), F("board__elo").desc(nulls_last=True), "-elo",
                      "bot_id"))


def board_fitted(row) -> FittedRating | None:
    """The board row's fitted rating (a ``leaderboard`` row, as a dict of values or a model), unsaved."""
    get = row.get if isinstance(row, dict) else lambda name: getattr(row, name)
    if get("board_status") is None:
        return None
    return FittedRating(current=True, **{name: get(f"board_{name}") for name in BOARD_FIELDS})


def rating_history(bot) -> QuerySet[RatingChange]:
    """A bot's rating changes, oldest game first, each with its game's match as ``match_id``."""
    return (RatingChange.objects.filter(bot=bot).annotate(match_id=F("played__match_id"))
            .select_related("played__match", "played__white__bot", "played__black__bot")
            .order_by("played_id"))


def rating_fit(game: str) -> RatingFit | None:
    """The latest fit of one game (time, games, first-player advantage, draw rate, note), or None."""
    return RatingFit.objects.filter(game=game).first()


def fitted_elos(game: str, version_ids) -> dict[int, float]:
    """The latest fit's rating of each of these versions that it bounds (a knockout's seeding); one query."""
    return dict(FittedRating.objects.filter(fit__game=game, version_id__in=list(version_ids), elo__isnull=False)
                .values_list("version_id", "elo"))


def fitted_leaderboard(game: str) -> QuerySet[FittedRating]:
    """Public bots' fitted ratings for one game, one row a bot (the version it plays the ladder with, as of
    the latest fit): the ranked first by rank, then the others by fitted rating, those the results leave
    unbounded (``status`` above/below/apart/unrated, ``elo`` null) last; each with its bot and owner."""
    return (FittedRating.objects.filter(on_leaderboard_q(), fit__game=game, current=True)
            .select_related("bot__owner", "fit")
            .order_by(F("rank").asc(nulls_last=True), F("elo").desc(nulls_last=True), "bot_id"))


def stored_current(game: str) -> set[int]:
    """The versions the latest fit of this game marked current (the ladder's at the time)."""
    return set(FittedRating.objects.filter(fit__game=game, current=True).values_list("version_id", flat=True))


def bot_fit(bot) -> tuple[RatingFit | None, FittedRating | None]:
    """The latest fit of the bot's game and the bot's board row in it (the version it played the ladder with
    at that fit; None where there is none), in one query, whoever may see the bot: the caller decides that."""
    fit = (RatingFit.objects.filter(game=bot.game)
           .annotate(mine=FilteredRelation("ratings", condition=Q(ratings__bot=bot, ratings__current=True)))
           .annotate(**{f"mine_{name}": F(f"mine__{name}") for name in BOARD_FIELDS})
           .first())
    if fit is None or fit.mine_id is None:
        return fit, None
    return fit, FittedRating(fit=fit, bot=bot, current=True,
                             **{name: getattr(fit, f"mine_{name}") for name in BOARD_FIELDS})


# What ``standing`` says of a bot on the board (the API documents these words).
STANDINGS = {
    "ranked": "rated with a 95% margin within LEADERBOARD_RANKED_MARGIN: on the ranking",
    "provisional": "rated, but the 95% margin is still wider than LEADERBOARD_RANKED_MARGIN",
    "unplayed": "the version it plays the ladder with has no rated game yet",
    "unbounded": "the results do not bound its rating (see fitted_status: above, below, apart or unrated)",
    "unfitted": "no fit has marked a version it plays the ladder with (none ran since it came, or it has no "
                "playable version)",
}


def standing(fitted: FittedRating | None) -> str:
    """The bot's place on the board in one word (``STANDINGS``), from its board row."""
    if fitted is None:
        return "unfitted"
    if fitted.rank is not None:
        return "ranked"
    if fitted.games == 0:
        return "unplayed"
    if fitted.status == FittedRating.Status.RATED:
        return "provisional"
    return "unbounded"


def fitted_summary(fitted: FittedRating | None, fit: RatingFit | None) -> dict:
    """What the API shows of the fit beside a bot's live rating (the leaderboard and the bot alike): the
    fitted rating of the version it plays the ladder with and its 95% margin, unrounded; its status and
    games; its standing; the rank, its 95% interval and the chance of being first (ranked bots only); the
    game's first-player advantage."""
    have = fitted is not None
    place = standing(fitted)
    return {"fitted_version": fitted.version_id if have else None, "fitted_elo": fitted.elo if have else None,
            "fitted_margin": fitted.margin if have else None, "fitted_status": fitted.status if have else None,
            "fitted_games": fitted.games if have else 0, "standing": place, "provisional": place != "ranked",
            "rank": fitted.rank if have else None, "rank_low": fitted.rank_low if have else None,
            "rank_high": fitted.rank_high if have else None, "p_first": fitted.p_first if have else None,
            "first_player_advantage": fit.advantage if fit else None}


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
