"""Reads: querysets and tables the API and the pages show. Each does a fixed number of queries."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count, Q, QuerySet

from engines import GAME_IDS, get_game
from engines.core import BLACK, NONE, WHITE, Termination
from engines.core import other as other_side
from engines.stats import EloEstimate, elo_trinomial, tally
from ratings.elo import scores_for
from ratings.selectors import held_back, on_leaderboard_q
from ratings.services import is_rated_pairing

from .models import Bot, BotVersion, Game, Match, OpeningSuite, Tournament, TournamentEntrant

# Who may see a bot, once: ``may_see_bot`` for one loaded bot and ``visible_bot_q``, its SQL twin, side by side
# (tests/service/test_visibility.py checks that they agree for every kind of reader and every state of a bot).
# Public bots, retired or not, are seen by everyone; a private one by its owner and staff (``is_insider``).


def is_insider(user, *owner_ids) -> bool:
    """An owner of the bot (of any of the bots, given several), or staff: who may see the bot's private bits
    (rejection reasons, stderr and protocol logs, the uploaded file, its own page rather than the public one).
    With no owner given: whether ``user`` is staff. The one place that rule is written: every page and endpoint
    asks it."""
    return user is not None and user.is_authenticated and (user.is_staff or user.pk in owner_ids)


def may_see_bot(user, bot) -> bool:
    """Whether ``user`` (None for nobody signed in) may see ``bot`` at all."""
    return bot.is_public or is_insider(user, bot.owner_id)


def visible_bot_q(user, prefix: str = "") -> Q:
    """``may_see_bot`` as a filter on a bot reached through ``prefix`` (``"bot__"`` from a version)."""
    if is_insider(user):
        return Q()
    visible = Q(**{f"{prefix}is_public": True})
    if user is not None and user.is_authenticated:
        visible |= Q(**{f"{prefix}owner_id": user.pk})
    return visible


def seen_by_everyone(bot) -> bool:
    """Whether anyone at all may see ``bot`` (so a page of it may be kept and shared)."""
    return may_see_bot(None, bot)


def visible_bots(user=None) -> QuerySet[Bot]:
    """Public bots, plus the user's own private ones."""
    return Bot.objects.select_related("owner").filter(visible_bot_q(user))


def versions_of(bot: Bot) -> QuerySet[BotVersion]:
    return (BotVersion.objects.filter(bot=bot).select_related("bot").prefetch_related("sprt_tests", "fitted_ratings")
            .order_by("-number"))


def match_list() -> QuerySet[Match]:
    return Match.objects.select_related("version_a__bot__owner", "version_b__bot__owner", "tournament")


def match_status(match_id: int) -> str | None:
    """The match's status, or None when there is no such match."""
    return Match.objects.filter(pk=match_id).values_list("status", flat=True).first()


def tournament_list() -> QuerySet[Tournament]:
    """Tournaments with their organisers and ``entrant_count`` (for the games they will play)."""
    # Ordered again: a grouped query does not take the model's default ordering.
    return (Tournament.objects.select_related("organiser").annotate(entrant_count=Count("entrants"))
            .order_by(*Tournament._meta.ordering))


def games_per_two_entrants(tournament: Tournament) -> int:
    """Games any two entrants play against each other: one match of ``games_per_pairing``, two if double round."""
    return tournament.games_per_pairing * (2 if tournament.double_round else 1)


def entrants_of(tournament: Tournament) -> list[TournamentEntrant]:
    return list(tournament.entrants.select_related("version__bot__owner").order_by("seed"))


def _scored_games(tournament: Tournament):
    """(white version, black version, winner) of every counted game of the tournament."""
    return (Game.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
            .exclude(reason=Termination.VOID.value).values_list("white_id", "black_id", "winner"))


@dataclass
class Standing:
    """An entrant's line. Before its first counted game it has no place in the table: rank, score and the
    tie-breaks are None (an empty table is not a tie of everyone for first).

    ``direct_encounter`` is the points scored in the games among the entrants it was level with when that
    tie-break was applied (first pass); None when it was not level with anyone then, or when not all of them
    had met. ``tiebreaks`` is (name, value) of each tie-break in the tournament's order."""

    rank: int | None
    entrant: TournamentEntrant
    games: int = 0
    score: float | None = 0.0
    sonneborn_berger: float | None = 0.0
    direct_encounter: float | None = None
    koya: float | None = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    tiebreaks: list[tuple[str, float | None]] = field(default_factory=list)


@dataclass
class Crosstable:
    """``cells[row][col]`` is (points, games) of entrant ``row`` against ``col`` (version ids); ``tiebreaks``
    the tie-break order the standings were ranked by, after score."""

    entrants: list[TournamentEntrant]
    cells: dict[int, dict[int, tuple[float, int]]] = field(default_factory=dict)
    standings: list[Standing] = field(default_factory=list)
    tiebreaks: list[str] = field(default_factory=list)


def crosstable(tournament: Tournament) -> Crosstable:
    """The live crosstable and standings: score, then the tournament's tie-breaks in its order (FIDE's
    recommended direct encounter, wins, Sonneborn–Berger, Koya by default). Two queries."""
    entrants = entrants_of(tournament)
    ids = [entrant.version_id for entrant in entrants]
    points = {row: {col: 0.0 for col in ids if col != row} for row in ids}
    games = {row: {col: 0 for col in ids if col != row} for row in ids}
    rows = {vid: Standing(rank=0, entrant=entrant) for vid, entrant in zip(ids, entrants)}
    for white, black, winner in _scored_games(tournament):
        if white not in rows or black not in rows:
            continue
        white_points, black_points = scores_for(winner)
        for me, opponent, mine in ((white, black, white_points), (black, white, black_points)):
            points[me][opponent] += mine
            games[me][opponent] += 1
            standing = rows[me]
            standing.games += 1
            standing.score += mine
            standing.wins, standing.draws, standing.losses = tally(
                [mine], (standing.wins, standing.draws, standing.losses))
    for me, standing in rows.items():
        # Sonneborn–Berger: each point scored against an opponent, weighted by that opponent's score.
        standing.sonneborn_berger = sum(points[me][opponent] * rows[opponent].score for opponent in points[me])
        # Koya: the points scored against the opponents with at least half the points they could have had. The
        # live table counts the games played so far; at the end that is the maximum of a round robin.
        standing.koya = sum(points[me][opponent] for opponent in points[me]
                            if rows[opponent].games and 2 * rows[opponent].score >= rows[opponent].games)
    order = tournament.tiebreak_order
    played = [vid for vid in ids if rows[vid].games]
    groups = _tied_groups(played, lambda vid: rows[vid].score)
    for name in order:
        if name == "direct_encounter":
            groups = [part for group in groups for part in _direct_encounter(group, rows, points, games)]
        else:
            values = {vid: getattr(standing, name) for vid, standing in rows.items()}  # wins, SB or Koya
            groups = [part for group in groups for part in _tied_groups(group, values.get)]
    ordered, place = [], 1
    for group in groups:  # entrants level on all of it share the rank (the seed only orders them)
        for vid in sorted(group, key=lambda vid: rows[vid].entrant.seed):
            rows[vid].rank = place
            rows[vid].tiebreaks = [(name, getattr(rows[vid], name)) for name in order]
            ordered.append(rows[vid])
        place += len(group)
    for vid in ids:
        if not rows[vid].games:
            standing = rows[vid]
            standing.rank = standing.score = standing.sonneborn_berger = standing.koya = None
            standing.tiebreaks = [(name, None) for name in order]
            ordered.append(standing)
    cells = {row: {col: (points[row][col], games[row][col]) for col in points[row]} for row in ids}
    return Crosstable(entrants=entrants, cells=cells, standings=ordered, tiebreaks=order)


def _tied_groups(members: list[int], value) -> list[list[int]]:
    """``members`` split by ``value`` (higher first): the groups still level, best first."""
    groups = defaultdict(list)
    for vid in members:
        groups[value(vid)].append(vid)
    return [groups[key] for key in sorted(groups, reverse=True)]


def _direct_encounter(members: list[int], rows: dict[int, Standing], points, games) -> list[list[int]]:
    """FIDE's direct encounter: entrants level so far are ordered by the points scored in the games among
    them, if all of them have met (else the tie stands, for the next tie-break). A smaller group still level
    after that is compared again on the games among its own members alone, and so on while groups shrink."""
    if len(members) < 2:
        return [members]
    if any(not games[me][other] for me in members for other in members if other != me):
        return [members]
    among = {me: sum(points[me][other] for other in members if other != me) for me in members}
    for me in members:
        if rows[me].direct_encounter is None:  # the first pass is the figure shown
            rows[me].direct_encounter = among[me]
    parts = _tied_groups(members, among.get)
    if len(parts) == 1:
        return parts
    return [final for part in parts for final in _direct_encounter(part, rows, points, games)]


def standings(tournament: Tournament) -> list[Standing]:
    return crosstable(tournament).standings


# --- what a reader may see of a game's record and of a tournament's entrants -------------------------

# The public record: the game, its rules and start, the actions with their times, the result and its reason.
PUBLIC_RECORD_FIELDS = frozenset({"game", "ruleset", "settings", "initial", "actions", "times", "winner", "reason",
                                  "plies", "final", "white", "black", "tc", "duration", "thinking"})
LOG_SIDES = {"w": WHITE, WHITE: WHITE, "b": BLACK, BLACK: BLACK}


def owned_sides(game: Game, user) -> list[str]:
    """The sides of ``game`` whose bot ``user`` owns (both for staff); its white and black bots loaded."""
    return [side for side, version in ((WHITE, game.white), (BLACK, game.black))
            if is_insider(user, version.bot.owner_id)]


def record_seen_by(game: Game, user) -> dict:
    """The part of the record ``user`` may read. Everyone: the public fields. A bot's owner also: that bot's
    stderr, the protocol log lines to and from it (and the runner's about it), and the detail of the game's
    end when their bot lost or drew (it may quote the loser's stderr). Staff: the whole record."""
    record = game.record if isinstance(game.record, dict) else {}
    if is_insider(user):  # staff
        return dict(record)
    seen = {key: value for key, value in record.items() if key in PUBLIC_RECORD_FIELDS}
    sides = owned_sides(game, user)
    if not sides:
        return seen
    stderr = record.get("stderr") if isinstance(record.get("stderr"), dict) else {}
    seen["stderr"] = {side: stderr.get(side, "") for side in sides}
    log = record.get("log") if isinstance(record.get("log"), list) else []
    seen["log"] = [line for line in log if _log_side(line) in (*sides, None)]
    if "detail" in record and (game.winner not in sides or game.winner == NONE):
        seen["detail"] = record["detail"]
    return seen


def _log_side(line) -> str | None:
    """Whose a protocol log line is (``runner.match.GameLog``: ``<ms> <w>|w<|b>|b<|runner> <text>``, a runner
    line naming its side first); None for a line about neither bot, "?" for one that cannot be read."""
    parts = line.split(" ", 3) if isinstance(line, str) else []
    if len(parts) < 3:
        return "?"
    who = parts[1]
    if who in ("w>", "w<", "b>", "b<"):
        return LOG_SIDES[who[0]]
    if who == "runner":
        return LOG_SIDES.get(parts[2].rstrip(":"), None)
    return "?"


@dataclass
class OpponentResult:
    """A bot's games against one other bot, from its own side: W/D/L and the Elo difference (bot minus opponent)
    with its 95% interval, as cutechess reports a match."""

    bot_id: int
    name: str
    owner: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def estimate(self) -> EloEstimate:
        return elo_trinomial(self.wins, self.draws, self.losses)


def tally_counts(side: str) -> dict[str, Count]:
    """``engines.stats.tally`` in SQL: ``side``'s wins, draws and losses as counts over grouped game rows."""
    return {"wins": Count("id", filter=Q(winner=side)), "draws": Count("id", filter=Q(winner=NONE)),
            "losses": Count("id", filter=Q(winner=other_side(side)))}


def opponents(bot: Bot, user) -> list[OpponentResult]:
    """Every other bot this bot has played (any version, any finished match: ladder, tournament, casual) that
    ``user`` may see, most games first. Two grouped queries: the bot as white, then as black."""
    results: dict[int, OpponentResult] = {}
    for side, other in ((WHITE, BLACK), (BLACK, WHITE)):
        rows = (Game.objects.filter(**{f"{side}__bot": bot}).exclude(**{f"{other}__bot": bot})
                .filter(visible_bot_q(user, f"{other}__bot__"))
                .values_list(f"{other}__bot", f"{other}__bot__name", f"{other}__bot__owner__username")
                .annotate(**tally_counts(side))
                .order_by())
        for bot_id, name, owner, wins, draws, losses in rows:
            result = results.setdefault(bot_id, OpponentResult(bot_id, name, owner))
            result.wins += wins
            result.draws += draws
            result.losses += losses
    return sorted(results.values(), key=lambda result: (-result.games, result.bot_id))


# The rated games, as ratings.services replays and fits them.


def rated_game_rows():
    """(game row id, game id, white bot, black bot, winner) of every rated game, in the order applied.

    Versions are mapped to bots in Python (a small dict) rather than by two joins per game row.
    """
    bot_of = dict(BotVersion.objects.values_list("id", "bot_id"))
    rows = (
        Game.objects.filter(match__rated=True, match__status=Match.Status.FINISHED)
        .order_by("id")
        .values_list("id", "match__game", "white_id", "black_id", "winner")
        .iterator(chunk_size=50000)
    )
    for played_id, game_id, white, black, winner in rows:
        yield played_id, game_id, bot_of[white], bot_of[black], winner


def rated_results_since(game_id: str, since) -> bool:
    """Whether a rated match of this game has finished since ``since`` (ever, with None)."""
    finished = Match.objects.filter(game=game_id, rated=True, status=Match.Status.FINISHED)
    return (finished if since is None else finished.filter(finished_at__gte=since)).exists()


def rated_pair_counts(game_ids) -> tuple[dict[str, np.ndarray], dict[int, int]]:
    """Per game id, rows of (white version, black version, white's wins, draws, losses) over every rated game;
    and the bot of every version in them.

    Versions are the fit's players: a bot's new version is not its old one, and pooling them would rate
    a much stronger new version far too low. Two versions of one bot never rate each other.
    """
    bot_of = dict(BotVersion.objects.filter(bot__game__in=game_ids).values_list("id", "bot_id"))
    rows = (Game.objects.filter(match__rated=True, match__status=Match.Status.FINISHED, match__game__in=game_ids)
            .values_list("match__game", "white_id", "black_id")
            .annotate(**tally_counts(WHITE))
            .order_by())
    tables: dict[str, list[tuple]] = {game: [] for game in game_ids}
    for game_id, white, black, wins, draws, losses in rows:
        if is_rated_pairing(bot_of[white], bot_of[black]):
            tables[game_id].append((white, black, wins, draws, losses))
    return {game: np.array(table, dtype=np.int64).reshape(-1, 5) for game, table in tables.items()}, bot_of


def ladder_versions(game_id: str) -> dict[int, BotVersion]:
    """The version each bot plays the ladder with, by bot id, for every public bot of the game that is not
    retired: its pinned version, or else its newest ready, enabled and active one (a bot whose pinned version
    cannot play sits out). A version its owner put behind an SPRT gate plays only once that test has passed;
    until then the version before it keeps the bot's place. The one rule: the ladder pairs these
    (``workers.ladder.ladder_pool``) and the leaderboard shows their fitted ratings."""
    versions = (BotVersion.objects.filter(on_leaderboard_q("bot__"), bot__game=game_id,
                                          status=BotVersion.Status.READY, is_disabled=False, is_active=True)
                .exclude(held_back())
                .order_by("bot_id", "-number").select_related("bot"))
    chosen: dict[int, BotVersion] = {}
    for version in versions:
        pinned = version.bot.pinned_version_id
        if pinned is None or pinned == version.pk:
            chosen.setdefault(version.bot_id, version)
    return chosen


def opening_suites(game_id: str | None = None, *, current: bool = False) -> QuerySet[OpeningSuite]:
    """Opening suites by game and name, their openings counted (``opening_count``, ``retired_count``, ``active``).
    ``current``: only those an organiser may pick, of the referee's current ruleset and with an opening in play."""
    found = OpeningSuite.objects.annotate(
        opening_count=Count("openings"), retired_count=Count("openings", filter=Q(openings__retired_at__isnull=False)),
        active=Count("openings", filter=Q(openings__retired_at__isnull=True))).order_by("game", "name")
    if game_id is not None:
        found = found.filter(game=game_id)
    if current:
        rulesets = Q(pk__in=[])
        for game in [game_id] if game_id else GAME_IDS:
            rulesets |= Q(game=game, ruleset=get_game(game).ruleset)
        found = found.filter(rulesets, active__gt=0)
    return found


def opening_suite(suite_id) -> OpeningSuite | None:
    """The suite with this id, or None."""
    return OpeningSuite.objects.filter(pk=suite_id).first() if isinstance(suite_id, int) else None
