"""Ranked play: which pairings the scheduler queues so every game's ladder stays busy, and fairly."""

from __future__ import annotations

import logging
import math
from collections import Counter

from django.db.models import Count, Q, Sum

from engines import GAME_IDS
from knobs import arena
from ratings.models import FittedRating, Rating
from ratings.pairing import Entrant, choose_pairings
from tournaments.models import BotVersion, Match
from tournaments.selectors import ladder_versions
from tournaments.services import create_match
from tournaments.services.match_rules import alive_worker_ids
from tournaments.services.openings import ladder_suite

from . import conf

log = logging.getLogger("workers.ladder")

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)
LADDER = Q(tournament__isnull=True, rated=True)  # a ladder match: rated, and of no tournament


def ladder_pool(game_id: str) -> list[Entrant]:
    """For every public bot of the game that is not retired: its pinned version, or else its newest ready,
    enabled and active one (a bot whose pinned version cannot play sits out); with its bot's rating: the
    fitted one where the fit rates the bot, else the live Elo.

    A version its owner put behind an SPRT gate plays only once that test has passed; until then the
    version before it keeps the bot's place.
    """
    newest = ladder_versions(game_id)  # the one rule, shared with the leaderboard
    if not newest:
        return []
    start = arena.ELO_START
    ratings = {r.bot_id: r for r in Rating.objects.filter(game=game_id, bot_id__in=list(newest))}
    ids = [v.pk for v in newest.values()]
    ladder = LADDER & ~Q(status__in=[Match.Status.CANCELLED, Match.Status.FAILED])
    as_a = dict(Match.objects.filter(ladder, version_a_id__in=ids).values_list("version_a_id")
                .annotate(n=Count("pk")))
    as_b = dict(Match.objects.filter(ladder, version_b_id__in=ids).values_list("version_b_id")
                .annotate(n=Count("pk")))
    # The fit rates versions: the one that plays is the one whose rating counts.
    fitted = {f.bot_id: f for f in FittedRating.objects.filter(fit__game=game_id, version_id__in=ids,
                                                                 status=FittedRating.Status.RATED)}
    pool = []
    for v in newest.values():
        live = ratings.get(v.bot_id)
        elo = fitted[v.bot_id].elo if v.bot_id in fitted else live.elo if live else float(start)
        pool.append(Entrant(version_id=v.pk, bot_id=v.bot_id, owner_id=v.bot.owner_id, elo=elo,
                            games=live.games if live else 0, placements=as_a.get(v.pk, 0) + as_b.get(v.pk, 0)))
    return pool


def ladder_meetings(game_id: str, pool: list[Entrant]) -> Counter:
    """Rated games already played between two versions of ``pool`` (key ``ratings.pairing.met_key``),
    counted from finished matches (a finished match played all its games): one grouped read of the match
    table. Per version, not per bot: a new version's strength is still unknown, whatever its bot's games."""
    versions = [e.version_id for e in pool]
    rows = (Match.objects.filter(game=game_id, rated=True, status=Match.Status.FINISHED,
                                 version_a_id__in=versions, version_b_id__in=versions)
            .values_list("version_a_id", "version_b_id").annotate(games=Sum("games_per_match"))
            .order_by())
    met: Counter = Counter()
    for version_a, version_b, games in rows:
        met[min(version_a, version_b), max(version_a, version_b)] += games
    return met


def ladder_games_per_match() -> int:
    games = int(arena.DEFAULT_GAMES_PER_MATCH)
    return games + games % 2  # always whole colour-swapped pairs


def fill_ladder(game_id: str, room: int | None = None) -> list[int]:
    """Queue ranked matches for ``game_id`` until it has ``conf.ladder_target_queued()`` open, and at most
    ``room`` more; their ids."""
    target = conf.ladder_target_queued()
    open_matches = list(Match.objects.filter(LADDER, game=game_id, status__in=OPEN)
                        .values_list("version_a_id", "version_b_id", "version_a__bot__owner_id",
                                     "version_b__bot__owner_id"))
    wanted = min(target - len(open_matches), target if room is None else room)
    if wanted <= 0:
        return []
    busy: set[int] = set()
    owner_load: Counter = Counter()
    for version_a, version_b, owner_a, owner_b in open_matches:
        busy.update((version_a, version_b))
        owner_load[owner_a] += 1
        owner_load[owner_b] += 1
    owner_cap = max(1, math.ceil(conf.owner_share() * target))
    pool = ladder_pool(game_id)
    pairs = choose_pairings(pool, wanted, busy, owner_load, owner_cap, conf.placement_games(),
                            met=ladder_meetings(game_id, pool))
    # With their bots: create_match reads each version's game, which would be two queries per match.
    versions = BotVersion.objects.select_related("bot").in_bulk([e.version_id for pair in pairs for e in pair])
    games = ladder_games_per_match()
    suite = ladder_suite(game_id)  # the game's ladder suite, if it has one of the referee's ruleset
    created = []
    for a, b in pairs:
        match = create_match(versions[a.version_id], versions[b.version_id], games=games, rated=True,
                             priority=Match.Priority.LADDER, opening_suite=suite)
        created.append(match.pk)
    if created:
        log.info("ladder %s: queued %d ranked matches", game_id, len(created))
    return created


def ladder_room(now=None) -> int:
    """How many more matches are worth queuing for the ladder: as many as the workers can start soon
    (a few per worker seen lately) less the ladder's matches already queued. Only the ladder's own count:
    it has its guaranteed share of the workers (``ARENA_LADDER_SHARE``) however long the other owners'
    queues are, so it must always have work queued to use it; and no more than that, since a pairing
    queued long before it is played was chosen on stale ratings."""
    workers = len(alive_worker_ids(now))
    queued = Match.objects.filter(status=Match.Status.QUEUED, charged_to__isnull=True).count()
    return max(0, conf.ladder_queued_per_worker() * max(1, workers) - queued)


def newest_ladder_matches():
    """The ladder's matches, newest first, by their own partial index (``match_ladder_idx``): the newest is read
    without walking back over the tournaments' and challenges' matches created since."""
    return Match.objects.filter(LADDER).order_by("-pk")


def fill_ladders() -> list[int]:
    """Every game's ladder topped up, the room shared between the games: each is offered an even share of
    what is left, and what a game cannot use (too few bots to pair, its target reached) goes to the others,
    so one game's ladder is kept full while the other games have nobody to pair. The games take turns, from
    the one after the game of the newest ladder match: with less room than games, the same games would
    otherwise always be served."""
    room, created = ladder_room(), []
    if room <= 0:
        return created
    last = newest_ladder_matches().values_list("game", flat=True).first()
    turn = GAME_IDS.index(last) + 1 if last in GAME_IDS else 0
    games = list(GAME_IDS[turn:] + GAME_IDS[:turn])
    while room > 0 and games:
        share = math.ceil(room / len(games))
        for game_id in list(games):
            made = fill_ladder(game_id, min(share, room))
            created += made
            room -= len(made)
            if len(made) < share:  # it took what it could: the rest is the others'
                games.remove(game_id)
            if room <= 0:
                break
    return created
