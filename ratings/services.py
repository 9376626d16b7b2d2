"""Writes to ratings: one rated game applied exactly once, the replay of the whole history, and the fit."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from django.utils import timezone

from engines.core import WINNERS
from engines.stats import tally
from knobs import arena

from . import fit as fitting
from . import ranks
from .elo import EloRules, scores_for, updated
from .models import FittedRating, Rating, RatingChange, RatingFit


def rules_from_settings() -> EloRules:
    """The Elo rules the settings choose (``ARENA_ELO_*``): the pure math in ``ratings.elo`` reads no settings."""
    return EloRules(start=float(arena.ELO_START), k_provisional=arena.ELO_K_PROVISIONAL,
                    provisional_games=arena.ELO_PROVISIONAL_GAMES, k=arena.ELO_K)


def is_rated_pairing(white_bot_id: int, black_bot_id: int) -> bool:
    """Two versions of one bot may meet, but a bot does not gain rating from itself."""
    return white_bot_id != black_bot_id


def lock_ratings(game_id: str, bot_ids) -> dict[int, Rating]:
    """Create the missing rating rows and lock them all, in bot id order so that workers never deadlock.

    Call inside the transaction that stores the games, before inserting them: the ids of games that
    share a bot then follow the order in which their rating changes were applied, which is what
    ``recompute_ratings`` replays.
    """
    bot_ids = sorted(set(bot_ids))
    rows = Rating.objects.select_for_update().filter(game=game_id, bot_id__in=bot_ids).order_by("bot_id")
    locked = {rating.bot_id: rating for rating in rows}
    if len(locked) == len(bot_ids):  # a bot's every match but its first: one statement
        return locked
    rules = rules_from_settings()
    Rating.objects.bulk_create(
        [Rating(bot_id=bot_id, game=game_id, elo=rules.start) for bot_id in bot_ids if bot_id not in locked],
        ignore_conflicts=True,  # another worker may be creating the same row: then it is locked below
    )
    return {rating.bot_id: rating for rating in rows.all()}


def apply_rated_game(played, white_bot_id: int, black_bot_id: int, ratings: dict[int, Rating],
                     rules: EloRules | None = None, store: bool = True) -> list[RatingChange]:
    """Apply one finished game to the (locked) ratings of both bots and record the changes.

    Each bot's change uses its own K; both use the ratings from before the game. ``store=False``: the ratings
    change in memory and the changes come back unsaved, for ``store_rating_changes`` to write a whole match's at
    once (two queries a match instead of three a game).
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
        rating.wins, rating.draws, rating.losses = tally([score], (rating.wins, rating.draws, rating.losses))
    if store:
        store_rating_changes(changes, (white, black))
    return changes


RATING_FIELDS = ["elo", "games", "wins", "draws", "losses", "updated_at"]


def store_rating_changes(changes: list[RatingChange], ratings) -> None:
    """Write the changes (in the order they were applied: ``recompute_ratings`` replays them by id), one query, and
    each (locked) rating they changed, a query each. Not ``bulk_update``: its CASE per field and row took 3.1 ms of
    Python for a match's two ratings, against 1.0 ms for two plain UPDATEs (``benchmarks/throughput.py``'s report)."""
    RatingChange.objects.bulk_create(changes)
    for rating in ratings:
        rating.save(update_fields=RATING_FIELDS)  # updated_at: auto_now


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


# White's score per winner, as a dict for the replay's hot loop.
WHITE_SCORE = {winner: scores_for(winner)[0] for winner in WINNERS}
WHITE_TALLY = {winner: tally([score]) for winner, score in WHITE_SCORE.items()}


class ReplayState:
    """One bot's rating in one game during a replay (slots: the loop touches these a million times)."""

    __slots__ = ("elo", "games", "wins", "draws", "losses")

    def __init__(self, elo: float):
        self.elo, self.games, self.wins, self.draws, self.losses = elo, 0, 0, 0, 0

    def values(self) -> tuple:
        return self.elo, self.games, self.wins, self.draws, self.losses


def replay(rows, rules: EloRules, with_changes: bool = True):
    """Plain-Python replay: the rating table (and, if asked, every change) from the games alone.

    The arithmetic is ``elo.updated`` written out, in the same order, so the floats agree to the bit.
    """
    table: dict[tuple[int, str], ReplayState] = {}
    changes: dict[tuple[int, int], tuple[float, float, int, float]] = {}
    start, provisional, k_early, k_late = rules.start, rules.provisional_games, rules.k_provisional, rules.k
    count = 0
    for played_id, game_id, white_bot, black_bot, winner in rows:
        if white_bot == black_bot:
            continue
        count += 1
        white = table.get((white_bot, game_id))
        if white is None:
            white = table[(white_bot, game_id)] = ReplayState(start)
        black = table.get((black_bot, game_id))
        if black is None:
            black = table[(black_bot, game_id)] = ReplayState(start)
        white_score = WHITE_SCORE[winner]
        black_score = 1.0 - white_score
        white_before, black_before = white.elo, black.elo
        white_k = k_early if white.games < provisional else k_late
        black_k = k_early if black.games < provisional else k_late
        white_after = updated(white_before, black_before, white_score, white_k)
        black_after = updated(black_before, white_before, black_score, black_k)
        white.elo, black.elo = white_after, black_after
        white.games += 1
        black.games += 1
        wins, draws, losses = WHITE_TALLY[winner]  # White's; Black's is the mirror
        white.wins += wins
        white.draws += draws
        white.losses += losses
        black.wins += losses
        black.draws += draws
        black.losses += wins
        if with_changes:
            changes[(white_bot, played_id)] = (white_before, white_after, white_k, white_score)
            changes[(black_bot, played_id)] = (black_before, black_after, black_k, black_score)
    return table, changes, count


@transaction.atomic
def rewrite_ratings(rows, rules: EloRules | None = None, history: bool = False,
                    batch_size: int = 5000) -> RecomputeReport:
    """Replay the rated games ``rows`` and rewrite the rating rows that differ from the replay.

    ``rows`` is an iterable read only after the rating table is locked (a generator, such as
    ``tournaments.selectors.rated_game_rows()``: every rated game in the order applied).
    With ``history`` every stored rating change is checked (and repaired) as well.
    """
    rules = rules or rules_from_settings()
    # Lock the table so no live update interleaves with the replay.
    list(Rating.objects.select_for_update().values_list("id", flat=True))
    table, changes, count = replay(rows, rules, with_changes=history)
    report = RecomputeReport(games=count)
    if history:
        _repair_history(changes, report, batch_size)

    fixed_ratings, stale_ratings = [], []
    for rating in Rating.objects.all():
        state = table.pop((rating.bot_id, rating.game), None)
        if state is None:
            stale_ratings.append(rating.id)
            continue
        values = state.values()
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


def _repair_history(changes, report: RecomputeReport, batch_size: int) -> None:
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


def fit_games(counts: dict[str, np.ndarray], average: float, bot_of: dict[int, int],
              current: dict[str, set[int]] | None = None, ranked_margin: float | None = None) -> list[RatingFit]:
    """Fit each game's (white version, black version, wins, draws, losses) rows and store the result; the fits.

    Versions are the players: a bot's versions are rated apart. ``bot_of`` maps each version to its bot;
    ``current[game]`` holds the versions the bots play the ladder with now (those with no rated game yet
    too, so that the board can say so); of those, the rated ones with a margin within ``ranked_margin``
    (default ``LEADERBOARD_RANKED_MARGIN``) are ranked and get their rank intervals.

    The fit runs outside any lock; only storing it locks the game's row, so two fits at once store one after
    the other and the later one stands. ``tournaments.services.ratings.fit_ratings`` reads the rows.
    """
    current = current or {}
    if ranked_margin is None:
        ranked_margin = float(arena.LEADERBOARD_RANKED_MARGIN)
    fits = []
    for game_id, table in counts.items():
        now = set(current.get(game_id, ()))
        versions, result = _fit_pairs(table, average, bot_of, sorted(now))
        fits.append(_store_fit(game_id, average, versions, result, bot_of, now, ranked_margin))
    return fits


def _fit_pairs(table: np.ndarray, average: float, bot_of: dict[int, int], also=()) -> tuple[list[int], fitting.Fit]:
    """The fit of one game's (white, black, wins, draws, losses) rows; the players in the fit's order.
    ``also``: players to include even without a game (the fit says what it makes of them)."""
    players, index = np.unique(np.concatenate([table[:, :2].ravel(), np.asarray(also, dtype=np.int64)]),
                               return_inverse=True)
    index = index[: 2 * len(table)].reshape(-1, 2)
    cells = fitting.Cells(index[:, 0], index[:, 1], table[:, 2], table[:, 3], table[:, 4])
    return players.tolist(), fitting.fit(cells, len(players), average, prior_sd=arena.RATING_PRIOR_SD,
                                         advantage_prior_sd=arena.RATING_ADVANTAGE_PRIOR_SD,
                                         version_prior_sd=arena.RATING_VERSION_PRIOR_SD,
                                         predecessor=predecessors(players.tolist(), bot_of))


def predecessors(versions: list[int], bot_of: dict[int, int]) -> np.ndarray:
    """For each version (sorted ids), the index of the same bot's version just before it among ``versions``,
    or -1: the fit centres a new version's prior on it. Ids grow with each upload, so they order a bot's
    versions as their numbers do."""
    last: dict[int, int] = {}
    chain = np.full(len(versions), -1)
    for i, version in enumerate(versions):
        bot = bot_of.get(version)
        if bot is not None:
            chain[i] = last.get(bot, -1)
            last[bot] = i
    return chain


def board_ranks(result: fitting.Fit, current: list[bool], ranked_margin: float) -> dict[int, ranks.RankInterval]:
    """The rank intervals of the fit's ranked players (by index): those its bot plays the ladder with
    (``current``), rated, with a 95% margin within ``ranked_margin``; sampled from the fit's covariance."""
    chosen = [i for i, player in enumerate(result.players)
              if current[i] and player.status == fitting.RATED and player.margin <= ranked_margin]
    covariance = None if result.covariance is None else result.covariance[np.ix_(chosen, chosen)]
    found = ranks.rank_intervals([result.players[i].elo for i in chosen], covariance,
                                 [result.players[i].margin for i in chosen])
    return dict(zip(chosen, found))


@transaction.atomic
def _store_fit(game_id: str, average: float, versions: list[int], result: fitting.Fit, bot_of: dict[int, int],
               current: set[int], ranked_margin: float) -> RatingFit:
    RatingFit.objects.bulk_create([RatingFit(game=game_id, fitted_at=timezone.now(), games=0, fitted_games=0,
                                             average=0.0)], ignore_conflicts=True)
    row = RatingFit.objects.select_for_update().get(game=game_id)
    row.fitted_at, row.games, row.fitted_games = timezone.now(), result.games, result.fitted_games
    row.average = average
    row.advantage, row.advantage_margin, row.draw_nu = result.advantage, result.advantage_margin, result.draw_nu
    row.note = result.note
    row.save()
    placed = board_ranks(result, [version in current for version in versions], ranked_margin)
    FittedRating.objects.filter(fit=row).delete()
    stored = []
    for i, (version, player) in enumerate(zip(versions, result.players)):
        place = placed.get(i)
        ranked = {} if place is None else {"rank": place.rank, "rank_low": place.low, "rank_high": place.high,
                                           "p_first": place.p_first}
        stored.append(FittedRating(
            fit=row, version_id=version, bot_id=bot_of[version], status=player.status, elo=player.elo,
            margin=player.margin, games=player.games, current=version in current, **ranked))
    FittedRating.objects.bulk_create(stored, batch_size=5000)
    return row
