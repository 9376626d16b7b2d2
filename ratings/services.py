"""Writes to ratings: one rated game applied exactly once, and the replay of the whole history."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from .elo import EloRules, rules_from_settings, scores_for, updated
from .models import Rating, RatingChange


def is_rated_pairing(white_bot_id: int, black_bot_id: int) -> bool:
    """Two versions of one bot may meet, but a bot does not gain rating from itself."""
    return white_bot_id != black_bot_id


def lock_ratings(game_id: str, bot_ids) -> dict[int, Rating]:
    """Create the missing rating rows and lock them all, in bot id order so that workers never deadlock.

    Call inside the transaction that stores the games, before inserting them: the ids of games that
    share a bot then follow the order in which their rating changes were applied, which is what
    ``recompute_ratings`` replays.
    """
    rules = rules_from_settings()
    bot_ids = sorted(set(bot_ids))
    Rating.objects.bulk_create(
        [Rating(bot_id=bot_id, game=game_id, elo=rules.start) for bot_id in bot_ids], ignore_conflicts=True
    )
    rows = Rating.objects.select_for_update().filter(game=game_id, bot_id__in=bot_ids).order_by("bot_id")
    return {rating.bot_id: rating for rating in rows}


def apply_rated_game(played, white_bot_id: int, black_bot_id: int, ratings: dict[int, Rating],
                     rules: EloRules | None = None) -> list[RatingChange]:
    """Apply one finished game to the (locked) ratings of both bots and record the changes.

    Each bot's change uses its own K; both use the ratings from before the game.
    """
    if not is_rated_pairing(white_bot_id, black_bot_id):
        return []
    rules = rules or rules_from_settings()
    white, black = ratings[white_bot_id], ratings[black_bot_id]
    white_score, black_score = scores_for(played.winner)
    changes = []
    befores = (white.elo, black.elo)
    for rating, own, opponent, score in ((white, befores[0], befores[1], white_score),
                                         (black, befores[1], befores[0], black_score)):
        k = rules.k_for(rating.games)
        after = updated(own, opponent, score, k)
        changes.append(RatingChange(bot_id=rating.bot_id, played=played, before=own, after=after,
                                    delta=after - own, k=k, score=score))
        rating.elo = after
        rating.games += 1
        rating.wins += score == 1.0
        rating.draws += score == 0.5
        rating.losses += score == 0.0
    RatingChange.objects.bulk_create(changes)
    for rating in (white, black):
        rating.save(update_fields=["elo", "games", "wins", "draws", "losses", "updated_at"])
    return changes


@dataclass
class ReplayState:
    elo: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass
class RecomputeReport:
    games: int = 0
    ratings_changed: int = 0
    ratings_created: int = 0
    ratings_deleted: int = 0
    changes_fixed: int = 0
    changes_created: int = 0
    changes_deleted: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return not (self.ratings_changed or self.ratings_created or self.ratings_deleted
                    or self.changes_fixed or self.changes_created or self.changes_deleted)


def rated_game_rows():
    """(game row id, game id, white bot, black bot, winner) of every rated game, in the order applied."""
    from tournaments.models import Game, Match

    return (
        Game.objects.filter(match__rated=True, match__status=Match.Status.FINISHED)
        .order_by("id")
        .values_list("id", "match__game", "white__bot_id", "black__bot_id", "winner")
        .iterator(chunk_size=20000)
    )


def replay(rows, rules: EloRules):
    """Plain-Python replay: the rating table and every change, from the games alone."""
    table: dict[tuple[int, str], ReplayState] = {}
    changes: dict[tuple[int, int], tuple[float, float, int, float]] = {}
    count = 0
    for played_id, game_id, white_bot, black_bot, winner in rows:
        if not is_rated_pairing(white_bot, black_bot):
            continue
        count += 1
        white = table.get((white_bot, game_id)) or table.setdefault((white_bot, game_id), ReplayState(rules.start))
        black = table.get((black_bot, game_id)) or table.setdefault((black_bot, game_id), ReplayState(rules.start))
        white_score, black_score = scores_for(winner)
        before_white, before_black = white.elo, black.elo
        for bot, state, own, opponent, score in ((white_bot, white, before_white, before_black, white_score),
                                                 (black_bot, black, before_black, before_white, black_score)):
            k = rules.k_for(state.games)
            after = updated(own, opponent, score, k)
            changes[(bot, played_id)] = (own, after, k, score)
            state.elo = after
            state.games += 1
            if score == 1.0:
                state.wins += 1
            elif score == 0.5:
                state.draws += 1
            else:
                state.losses += 1
    return table, changes, count


@transaction.atomic
def recompute_ratings(rules: EloRules | None = None, batch_size: int = 5000) -> RecomputeReport:
    """Replay every rated game in order; rewrite only the rows that differ from the replay."""
    rules = rules or rules_from_settings()
    # Lock the table so no live update interleaves with the replay.
    list(Rating.objects.select_for_update().values_list("id", flat=True))
    table, changes, count = replay(rated_game_rows(), rules)
    report = RecomputeReport(games=count)

    stale_changes, fixed_changes = [], []
    stored = RatingChange.objects.values_list("id", "bot_id", "played_id", "before", "after", "k", "score")
    seen = set()
    for change_id, bot_id, played_id, before, after, k, score in stored.iterator(chunk_size=50000):
        expected = changes.get((bot_id, played_id))
        if expected is None:
            stale_changes.append(change_id)
            continue
        seen.add((bot_id, played_id))
        if (before, after, k, score) != expected:
            fixed_changes.append(RatingChange(id=change_id, before=expected[0], after=expected[1],
                                              delta=expected[1] - expected[0], k=expected[2], score=expected[3]))
    missing = [RatingChange(bot_id=bot, played_id=played, before=v[0], after=v[1], delta=v[1] - v[0], k=v[2],
                            score=v[3])
               for (bot, played), v in changes.items() if (bot, played) not in seen]
    if stale_changes:
        RatingChange.objects.filter(id__in=stale_changes).delete()
    RatingChange.objects.bulk_update(fixed_changes, ["before", "after", "delta", "k", "score"],
                                     batch_size=batch_size)
    RatingChange.objects.bulk_create(missing, batch_size=batch_size)
    report.changes_deleted, report.changes_fixed, report.changes_created = (
        len(stale_changes), len(fixed_changes), len(missing))

    fixed_ratings, stale_ratings = [], []
    for rating in Rating.objects.all():
        state = table.pop((rating.bot_id, rating.game), None)
        if state is None:
            stale_ratings.append(rating.id)
            continue
        values = (state.elo, state.games, state.wins, state.draws, state.losses)
        if (rating.elo, rating.games, rating.wins, rating.draws, rating.losses) != values:
            report.mismatches.append(f"bot {rating.bot_id} {rating.game}: stored {rating.elo!r}, replay {state.elo!r}")
            rating.elo, rating.games, rating.wins, rating.draws, rating.losses = values
            fixed_ratings.append(rating)
    Rating.objects.filter(id__in=stale_ratings).delete()
    Rating.objects.bulk_update(fixed_ratings, ["elo", "games", "wins", "draws", "losses"], batch_size=batch_size)
    Rating.objects.bulk_create(
        [Rating(bot_id=bot, game=game, elo=s.elo, games=s.games, wins=s.wins, draws=s.draws, losses=s.losses)
         for (bot, game), s in table.items()],
        batch_size=batch_size,
    )
    report.ratings_deleted, report.ratings_changed, report.ratings_created = (
        len(stale_ratings), len(fixed_ratings), len(table))
    return report
