"""The state every Django test suite starts from (players, bots, ready versions, finished matches), made once and
only through the services, so that no test stands on a state the arena itself could never reach."""

from __future__ import annotations

import random
import shutil
from datetime import timedelta
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from engines import get_game
from engines.record import record_of_play
from ratings.models import FittedRating
from tournaments import events
from tournaments.models import BotVersion, Match
from tournaments.services import (
    claim_match,
    create_bot,
    create_match,
    create_player,
    finish_match,
    smoke_test_version,
    upload_version,
)
from tournaments.services.ratings import fit_ratings

BOTS = Path(__file__).resolve().parents[1] / "bots"  # the test bots every suite shares
RANDOM_BOT = (BOTS / "random_bot.py").read_bytes()

# Every scope of api.throttles, far above what a test does (a throttle's own tests set theirs lower).
GENEROUS = {"uploads": "1000/hour", "writes": "10000/hour", "registration": "1000/hour", "login": "1000/hour",
            "token": "1000/hour", "tournaments": "1000/hour", "challenges": "1000/hour", "sprt": "1000/hour",
            "live": "10000/hour", "exports": "10000/hour", "webhooks": "10000/hour"}


def throttle_rates(settings, **rates: str) -> None:
    """Throttle rates for one test, over the current ones (the THROTTLE_* settings; the site shares them)."""
    current = settings.REST_FRAMEWORK
    settings.REST_FRAMEWORK = {**current, "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **rates}}


# --- players, bots and versions ---------------------------------------------------------------------------

def make_player(username: str, password: str | None = None, **options):
    return create_player(username, password, **options)


def make_bot(owner, name: str, game: str = "tafl9", *, open_to_tournaments: bool = True, **options):
    """A bot whose owner agrees to others' tournaments unless asked otherwise (the consent tests do)."""
    return create_bot(owner, game, name, open_to_tournaments=open_to_tournaments, **options)


def bot_file(name: str = "random_bot.py", content: bytes | None = None) -> SimpleUploadedFile:
    """An upload of test bot ``name`` (tests/bots), or of ``content`` under that file name."""
    data = (BOTS / name).read_bytes() if content is None else content
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def upload(bot, name: str = "random_bot.py", content: bytes | None = None) -> BotVersion:
    """The bot's next version, pending its smoke test, as the upload form and the API store it."""
    return upload_version(bot, bot_file(name, content))


def pass_smoke_test(version: BotVersion) -> BotVersion:
    """The pending version as a passing smoke test leaves it (``smoke_test_version``: ready, checked now, the
    pages told), without starting the bot: for tests about matches, not smoke tests. tests/test_support.py checks
    that this and a real smoke test leave the same state."""
    judged = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
        status=BotVersion.Status.READY, reject_reason="", reject_stderr="", checked_at=timezone.now())  # state: checked
    if judged:
        events.emit(events.VersionJudged(version.pk, version.bot_id, version.bot.game, BotVersion.Status.READY))
    version.refresh_from_db()
    return version


def ready_version(bot, name: str = "random_bot.py", content: bytes | None = None) -> BotVersion:
    """A new version of ``bot`` that has passed its smoke test (test bot ``name``, or ``content``)."""
    return pass_smoke_test(upload(bot, name, content))


def smoke_tested(version_id: int) -> BotVersion:
    """The pending version after a real smoke test, in the sandbox where bwrap is (else its bot runs bare)."""
    return smoke_test_version(version_id, trusted=shutil.which("bwrap") is None)


def rejected_version(bot, name: str = "crash_bot.py") -> BotVersion:
    """A new version of ``bot`` that a real smoke test rejected (the crash bot exits at its first line: quick)."""
    return smoke_tested(upload(bot, name).pk)


# --- game records and finished matches ---------------------------------------------------------------------

REASONS = {"white": "escape", "black": "king-captured", "none": "no-capture-limit"}  # tafl9's


def record(winner: str, reason: str | None = None, plies: int = 10, game: str = "tafl9") -> dict:
    """The least record a worker's report may carry: who won and why (no actions to replay)."""
    return {"game": game, "winner": winner, "reason": reason or REASONS[winner], "plies": plies, "actions": []}


def random_record(game_id: str, seed: int, plies: int = 12) -> dict:
    """A game the referee plays out with random legal actions (its outcome; a resignation at ``plies``)."""
    rng = random.Random(seed)
    position = get_game(game_id).initial()
    initial, actions = position, []
    while len(actions) < plies and position.outcome() is None:
        action = rng.choice(position.legal_moves())
        actions.append(action)
        position = position.play(action)
    played = record_of_play(initial, actions, times=[rng.randrange(1, 400) for _ in actions])
    if played["winner"] == "none" and played["reason"] == "max-plies":
        played.update(winner=rng.choice(["white", "black"]), reason="resign")  # a decided game, as most are
    return played


def report(match: Match, records, worker: str = "worker-1") -> Match:
    """Queued ``match`` claimed by ``worker`` and finished with ``records``, as a worker reports it."""
    token = claim_match(match.pk, worker)
    assert token is not None, f"match {match.pk} is not queued"
    assert finish_match(match.pk, token, list(records))
    return Match.objects.get(pk=match.pk)


def finished_match(version_a, version_b, winners=None, *, games: int = 2, seed: int = 1, rated: bool = True,
                   worker: str = "worker-1", also: dict | None = None, **options) -> Match:
    """A match queued, claimed and finished through the services. ``winners`` (one per game: white, black or
    none; version A is white in odd games) gives short records; without it, the referee plays random games
    (seeded by ``seed``), so pages and the API have real, replayable records. ``also``: what else every record
    carries, as a worker reports it (the bots' stderr, the protocol log). ``options`` go to create_match."""
    if winners is not None:
        games = len(winners)
    match = create_match(version_a, version_b, rated=rated, games=games, **options)
    if winners is not None:
        records = [record(winner, game=match.game) for winner in winners]
    else:
        records = [random_record(match.game, seed * 100 + n) for n in range(games)]
    return report(match, [{**played, **(also or {})} for played in records], worker)



def scored(version_a, version_b, wins: int = 0, draws: int = 0, losses: int = 0, **options) -> Match:
    """One finished match in which version A wins ``wins`` games, draws ``draws`` and loses ``losses`` (in that
    order, colours alternating: A is white in odd games), as finished_match plays it."""
    results = ["win"] * wins + ["draw"] * draws + ["loss"] * losses
    winners = ["none" if result == "draw" else "white" if (result == "win") == (n % 2 == 0) else "black"
               for n, result in enumerate(results)]
    return finished_match(version_a, version_b, winners, **options)


def refit(game: str = "tafl9") -> dict:
    """The fit the beat (or a rated match's refit) runs, over every rated game stored: the rows it marked
    current (the versions on the ladder), by bot id."""
    fit_ratings([game])
    return {row.bot_id: row for row in FittedRating.objects.filter(fit__game=game, current=True)}


# --- an SPRT's pairs -------------------------------------------------------------------------------------------

CANDIDATE_WINNER = ({1.0: "white", 0.5: "none", 0.0: "black"}, {1.0: "black", 0.5: "none", 0.0: "white"})


def play_test_match(test, candidate_points: tuple[float, ...]):
    """Play the SPRT's oldest queued match, as a worker reports it: the candidate (version A, white in odd games)
    scores ``candidate_points``, one per game. The test as the match left it (counted, perhaps decided)."""
    match = test.matches.filter(status=Match.Status.QUEUED).order_by("pk").first()
    assert match is not None, f"SPRT {test.pk} has no queued match ({test.state})"
    report(match, [record(CANDIDATE_WINNER[n % 2][points], game=match.game)
                   for n, points in enumerate(candidate_points)])
    test.refresh_from_db()
    return test

# --- time passing ------------------------------------------------------------------------------------------------
# The one write a test may make past the services: moving a timestamp, which is what waiting would do.

def played_lately(match_ids, seconds: float, ago: float = 60) -> None:
    """Queued matches played through the services (claimed, each game won by white), then time passes: each
    took ``seconds`` of a worker and ended ``ago`` seconds ago (what the fair share counts)."""
    for match in Match.objects.filter(pk__in=list(match_ids)):
        report(match, [record("white", game=match.game) for _ in range(match.games_per_match)])
    end = timezone.now() - timedelta(seconds=ago)
    Match.objects.filter(pk__in=list(match_ids)).update(  # state: time passes
        finished_at=end, started_at=end - timedelta(seconds=seconds))


def lease_runs_out(match_id: int, seconds: float = 1) -> None:
    """The running match's worker went silent: its lease ran out ``seconds`` ago (what waiting would do)."""
    Match.objects.filter(pk=match_id).update(  # state: time passes
        lease_expires_at=timezone.now() - timedelta(seconds=seconds))
