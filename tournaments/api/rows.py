"""Hot list reads as plain rows: exactly the JSON the model serializers give, built from ``.values()``
dicts, without a model instance and a tree of serializer fields per row (a page of 25 matches through
``MatchSerializer`` spends most of its time in DRF's field machinery, not in the database)."""

from __future__ import annotations

from django.utils import timezone

from ratings import selectors as ratings_selectors
from tournaments.selectors import is_insider

from .serializers import VersionTestSerializer, latest_test


def when(value) -> str | None:
    """What DRF's DateTimeField answers for a stored (aware) datetime: ISO 8601 in the current time zone,
    UTC written as Z; without its per-value format and settings look-ups."""
    if value is None:
        return None
    text = value.astimezone(timezone.get_current_timezone()).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _version_columns(prefix: str) -> tuple[str, ...]:
    return (f"{prefix}_id", f"{prefix}__bot", f"{prefix}__bot__name", f"{prefix}__number")


def _version(row: dict, prefix: str) -> dict:
    """The VersionBriefSerializer shape."""
    return {"id": row[f"{prefix}_id"], "bot_id": row[f"{prefix}__bot"], "bot_name": row[f"{prefix}__bot__name"],
            "number": row[f"{prefix}__number"]}


MATCH_COLUMNS = ("id", "game", *_version_columns("version_a"), *_version_columns("version_b"), "tournament_id",
                 "round", "rated", "time_control", "games_per_match", "ruleset", "status", "score_a", "score_b",
                 "created_at", "started_at", "finished_at", "attempts", "failure_reason")


def match_row(row: dict) -> dict:
    """The MatchSerializer shape."""
    return {"id": row["id"], "game": row["game"], "version_a": _version(row, "version_a"),
            "version_b": _version(row, "version_b"), "tournament": row["tournament_id"], "round": row["round"],
            "rated": row["rated"], "time_control": row["time_control"], "games_per_match": row["games_per_match"],
            "ruleset": row["ruleset"], "status": row["status"], "score_a": row["score_a"],
            "score_b": row["score_b"], "created_at": when(row["created_at"]), "started_at": when(row["started_at"]),
            "finished_at": when(row["finished_at"]), "attempts": row["attempts"],
            "failure_reason": row["failure_reason"]}


GAME_COLUMNS = ("id", "match_id", "number", *_version_columns("white"), *_version_columns("black"), "winner",
                "reason", "plies", "duration", "white_thinking", "black_thinking", "created_at")


def game_row(row: dict) -> dict:
    """The GameBriefSerializer shape."""
    return {"id": row["id"], "match": row["match_id"], "number": row["number"], "white": _version(row, "white"),
            "black": _version(row, "black"), "winner": row["winner"], "reason": row["reason"],
            "plies": row["plies"], "duration": row["duration"], "white_thinking": row["white_thinking"],
            "black_thinking": row["black_thinking"], "created_at": when(row["created_at"])}


LEADERBOARD_COLUMNS = ("bot_id", "bot__name", "bot__owner__username", "game", "elo", "games", "wins", "draws",
                       "losses")


def leaderboard_row(row: dict, rank: int, fitted, fit) -> dict:
    """The LeaderboardEntrySerializer shape; ``rank`` is the row's place in the whole ordered board, ``fitted``
    the bot's latest FittedRating (or None) and ``fit`` the game's latest RatingFit (or None)."""
    return {"rank": rank, "bot": row["bot_id"], "bot_name": row["bot__name"], "owner": row["bot__owner__username"],
            "game": row["game"], "elo": row["elo"], "games": row["games"], "wins": row["wins"],
            "draws": row["draws"], "losses": row["losses"],
            **ratings_selectors.fitted_summary(row["games"], fitted, fit)}


RATING_CHANGE_COLUMNS = ("id", "played_id", "match_id", "before", "after", "delta", "k", "score", "created_at")


def rating_change_row(row: dict) -> dict:
    """The RatingChangeSerializer shape (``match_id`` is the selector's annotation)."""
    return {"id": row["id"], "game": row["played_id"], "match": row["match_id"], "before": row["before"],
            "after": row["after"], "delta": row["delta"], "k": row["k"], "score": row["score"],
            "created_at": when(row["created_at"])}


def bot_detail(bot, user) -> dict:
    """The BotDetailSerializer shape, from a bot with its versions and ratings prefetched; the rejection
    reasons are shown to the owner and staff only, decided once for the bot rather than per version."""
    insider = is_insider(user, bot.owner_id)
    rating = next((r for r in bot.ratings.all() if r.game == bot.game), None)
    fit, fitted = ratings_selectors.bot_fit(bot) if rating else (None, None)
    return {"id": bot.id, "name": bot.name, "game": bot.game, "description": bot.description,
            "is_public": bot.is_public, "open_to_tournaments": bot.open_to_tournaments,
            "is_retired": bot.is_retired, "pinned_version": bot.pinned_version_id,
            "owner": bot.owner.username, "owner_id": bot.owner_id,
            "created_at": when(bot.created_at),
            "versions": [{"id": v.id, "bot": v.bot_id, "number": v.number, "filename": v.filename, "kind": v.kind,
                          "sha256": v.sha256, "size": v.size, "uploaded_at": when(v.uploaded_at),
                          "status": v.status, "reject_reason": v.reject_reason if insider else "",
                          "checked_at": when(v.checked_at), "is_disabled": v.is_disabled, "is_active": v.is_active,
                          "sprt": version_test_row(latest_test(v))}
                         for v in bot.versions.all()],
            "rating": None if rating is None else {
                "game": rating.game, "elo": rating.elo, "games": rating.games, "wins": rating.wins,
                "draws": rating.draws, "losses": rating.losses, "updated_at": when(rating.updated_at),
                **ratings_selectors.fitted_summary(rating.games, fitted, fit)}}


def version_test_row(test) -> dict | None:
    """The VersionTestSerializer shape of a version's latest SPRT, or None."""
    return None if test is None else VersionTestSerializer(test).data
