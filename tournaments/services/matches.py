"""A match's life: queued → (claimed) running → finished, or requeued, failed, cancelled.

The database is the source of truth. A worker holds a lease (a token) while it plays; only the
holder of the current token can report the result, exactly once, in one transaction that stores
the games, the score and the rating changes.
"""

from __future__ import annotations

import enum
import logging
import re
import uuid
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DataError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from engines import GAME_IDS, get_game
from ratings.elo import scores_for
from ratings.services import apply_rated_game, is_rated_pairing, lock_ratings

from ..models import BotVersion, Game, Match, Tournament

log = logging.getLogger(__name__)

TIME_CONTROL = re.compile(r"^(move:[1-9][0-9]{0,7}|clock:[0-9]{1,8}\+[0-9]{1,7})$")
WINNERS = ("white", "black", "none")
VOID = "void"
BOT_TEXTS = ("detail", "stderr", "log")  # what a record holds that the bots wrote (engines.record.safe_text)


class LeaseLost(RuntimeError):
    """The match is no longer ours: requeued by the scavenger, cancelled, or finished elsewhere."""


def check_game(game: str) -> str:
    if game not in GAME_IDS:
        raise ValidationError({"game": [f"unknown game {game!r}; known: {', '.join(GAME_IDS)}"]})
    return game


def check_time_control(time_control: str) -> str:
    if not isinstance(time_control, str) or not TIME_CONTROL.match(time_control):
        raise ValidationError({"time_control": [
            f"{time_control!r} is not a time control; use move:<ms> or clock:<base_ms>+<inc_ms>"]})
    if time_control.startswith("clock:") and time_control[6:].split("+")[0] == "0":
        raise ValidationError({"time_control": ["a clock needs a base time above 0 ms"]})
    return time_control


def check_games_per_match(games: int, field: str = "games_per_match") -> int:
    top = settings.ARENA["MAX_GAMES_PER_MATCH"]
    if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= top:
        raise ValidationError({field: [f"must be a whole number from 1 to {top}, got {games!r}"]})
    return games


def check_playable(version: BotVersion, field: str) -> None:
    if version.status != BotVersion.Status.READY:
        raise ValidationError({field: [f"{version} is {version.status}, not ready to play"]})
    if version.is_disabled:
        raise ValidationError({field: [f"{version} is disabled by an operator"]})


def create_match(version_a: BotVersion, version_b: BotVersion, *, time_control: str | None = None,
                 games: int | None = None, rated: bool = True, tournament: Tournament | None = None,
                 round_number: int | None = None) -> Match:
    """Queue a match between two ready versions of bots of the same game.

    A is white in odd-numbered games, B in even ones. Two versions of one bot may meet, unrated.
    """
    if version_a.pk == version_b.pk:
        raise ValidationError({"version_b": ["a version cannot play itself"]})
    if version_a.bot.game != version_b.bot.game:
        raise ValidationError({"version_b": [
            f"{version_b} plays {version_b.bot.game}, {version_a} plays {version_a.bot.game}"]})
    check_playable(version_a, "version_a")
    check_playable(version_b, "version_b")
    time_control = check_time_control(time_control or settings.ARENA["DEFAULT_TIME_CONTROL"])
    games = check_games_per_match(settings.ARENA["DEFAULT_GAMES_PER_MATCH"] if games is None else games)
    game = get_game(version_a.bot.game)
    return Match.objects.create(
        game=game.id, version_a=version_a, version_b=version_b, time_control=time_control,
        games_per_match=games, ruleset=game.ruleset, tournament=tournament, round=round_number,
        rated=rated and is_rated_pairing(version_a.bot_id, version_b.bot_id),
    )


def claim_match(match_id: int, worker_id: str) -> uuid.UUID | None:
    """Take the lease of a queued match (queued → running); None when someone else has it."""
    now = timezone.now()
    token = uuid.uuid4()
    claimed = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, worker_id=str(worker_id)[:100], lease_token=token, heartbeat_at=now,
        lease_expires_at=now + timedelta(seconds=settings.ARENA["MATCH_LEASE_SECONDS"]),
        attempts=F("attempts") + 1, started_at=now, failure_reason="",
    )
    return token if claimed else None


def heartbeat(match_id: int, lease_token) -> bool:
    """Extend the lease; False when the lease is no longer this worker's."""
    now = timezone.now()
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=lease_token).update(
        heartbeat_at=now, lease_expires_at=now + timedelta(seconds=settings.ARENA["MATCH_LEASE_SECONDS"])))


def colours(match: Match, number: int) -> tuple[BotVersion, BotVersion]:
    """(white, black) of game ``number`` (from 1): A is white in odd games, colours swap every game."""
    if number % 2 == 1:
        return match.version_a, match.version_b
    return match.version_b, match.version_a


def run_match(match_id: int, lease_token) -> list[dict]:
    """Play every game of a claimed match through the sandbox; the runner's records come back.

    Raises ``LeaseLost`` when the lease goes away between games, ``InfrastructureError`` when the
    sandbox fails (the caller requeues; nothing is scored).
    """
    from ..referee import load_version, open_sandbox, play_game

    match = Match.objects.select_related("version_a__bot", "version_b__bot").get(pk=match_id)
    if match.status != Match.Status.RUNNING or str(match.lease_token) != str(lease_token):
        raise LeaseLost(f"match {match_id} is not running under this lease")
    bots = {match.version_a_id: load_version(match.version_a), match.version_b_id: load_version(match.version_b)}
    sandbox = open_sandbox()
    records = []
    for number in range(1, match.games_per_match + 1):
        if not heartbeat(match_id, lease_token):
            raise LeaseLost(f"match {match_id} lost its lease before game {number}")
        white, black = colours(match, number)
        records.append(play_game(match, number, bots[white.pk], bots[black.pk], sandbox))
    return records


def _check_records(match: Match, records) -> None:
    if not isinstance(records, (list, tuple)) or len(records) != match.games_per_match:
        count = len(records) if isinstance(records, (list, tuple)) else records
        message = f"match {match.pk} needs {match.games_per_match} game records, got {count}"
        raise ValidationError({"records": [message]})
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise ValidationError({"records": [f"game {number}: a record is a JSON object"]})
        if record.get("winner") not in WINNERS:
            raise ValidationError({"records": [f"game {number}: winner must be white, black or none"]})
        if not isinstance(record.get("reason"), str) or not record["reason"]:
            raise ValidationError({"records": [f"game {number}: the record has no reason"]})
        if record.get("game", match.game) != match.game:
            message = f"game {number}: a {record.get('game')} record in a {match.game} match"
            raise ValidationError({"records": [message]})


def _points(winner: str, a_is_white: bool) -> tuple[float, float]:
    """(A's points, B's points) of one game."""
    white, black = scores_for(winner)
    return (white, black) if a_is_white else (black, white)


class Report(enum.Enum):
    """What ``finish_match`` did with a report; true only when the result was stored."""

    FINISHED = "finished"
    REQUEUED = "requeued"  # a void game: never scored, the match is back in the queue
    REFUSED = "refused"  # a stale lease or a duplicate report: nothing changed

    def __bool__(self) -> bool:
        return self is Report.FINISHED


def end_if_silent() -> None:
    """Call first in a transaction that locks a match: should this process stop while it holds the
    locks (paused, cut off from the database), PostgreSQL ends the transaction once it has been
    silent for a lease, so that the scavenger and the reports of the same bots are not held up
    until the process comes back (or a TCP timeout hours later). The transaction itself takes
    milliseconds."""
    if connection.vendor == "postgresql":
        milliseconds = str(int(settings.ARENA["MATCH_LEASE_SECONDS"] * 1000))
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('idle_in_transaction_session_timeout', %s, true)", [milliseconds])


def finish_match(match_id: int, lease_token, records) -> Report:
    """Store the games, the score and the rating changes in one transaction, exactly once.

    Only the holder of the current lease of a running match may report; a stale or duplicate report
    changes nothing (REFUSED). A record of a void game (both bots failed before move 1) is never
    scored: the match goes back to the queue (REQUEUED).
    """
    with transaction.atomic():
        end_if_silent()
        match = (Match.objects.select_for_update().filter(pk=match_id)
                 .select_related("version_a", "version_b").first())
        if match is None or match.status != Match.Status.RUNNING or str(match.lease_token) != str(lease_token):
            return Report.REFUSED
        _check_records(match, records)
        if any(record["reason"] == VOID for record in records):
            _requeue(match, "void game: both bots failed before the first move")
            return Report.REQUEUED
        bot_a, bot_b = match.version_a.bot_id, match.version_b.bot_id
        ratings = lock_ratings(match.game, (bot_a, bot_b)) if match.rated else {}
        score_a = score_b = 0.0
        for played in _store_games(match, records):
            points_a, points_b = _points(played.winner, played.white_id == match.version_a_id)
            score_a += points_a
            score_b += points_b
            if match.rated:
                apply_rated_game(played, played.white.bot_id, played.black.bot_id, ratings)
        match.status = Match.Status.FINISHED
        match.score_a, match.score_b = score_a, score_b
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "score_a", "score_b", "finished_at"])
        if match.tournament_id:
            finish_tournament_if_done(match.tournament_id)
    return Report.FINISHED


def _store_games(match: Match, records) -> list[Game]:
    """The match's games. Should the database refuse a record for its data (bot text it cannot hold,
    though the runner made it safe), every game is stored without the bots' texts, and the record
    says so: a bad byte from a bot never leaves its match unscored, nor played again and again."""
    try:
        with transaction.atomic():  # a savepoint: only the failed inserts are undone
            return [_new_game(match, number, record) for number, record in enumerate(records, start=1)]
    except DataError as error:
        log.warning("match %s: the database refused a game record (%s); storing it without %s",
                    match.pk, error, ", ".join(BOT_TEXTS))
        note = f"{', '.join(BOT_TEXTS)} not stored: the database refused them ({type(error).__name__})"
        return [_new_game(match, number, {**{key: value for key, value in record.items() if key not in BOT_TEXTS},
                                          "dropped": note})
                for number, record in enumerate(records, start=1)]


def _new_game(match: Match, number: int, record: dict) -> Game:
    white, black = colours(match, number)
    return Game.objects.create(
        match=match, number=number, white=white, black=black, record=record, winner=record["winner"],
        reason=record["reason"], plies=int(record.get("plies") or 0),
        duration=float(record.get("duration") or sum(t or 0 for t in record.get("times") or []) / 1000),
    )


def finish_tournament_if_done(tournament_id: int) -> bool:
    open_matches = Match.objects.filter(tournament_id=tournament_id,
                                        status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    if open_matches.exists():
        return False
    return bool(Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()))


def _requeue(match: Match, reason: str) -> None:
    """Back to the queue (locked row), or failed once it has used up its attempts."""
    if match.attempts >= settings.ARENA["MATCH_MAX_ATTEMPTS"]:
        match.status = Match.Status.FAILED
        match.failure_reason = f"gave up after {match.attempts} attempts; last: {reason}"[:2000]
        match.finished_at = timezone.now()
    else:
        match.status = Match.Status.QUEUED
        match.failure_reason = reason[:2000]
    match.lease_token = None
    match.lease_expires_at = None
    match.worker_id = ""
    match.save(update_fields=["status", "failure_reason", "finished_at", "lease_token", "lease_expires_at",
                              "worker_id"])
    if match.status == Match.Status.FAILED and match.tournament_id:
        finish_tournament_if_done(match.tournament_id)


def requeue_match(match_id: int, lease_token=None, reason: str = "requeued") -> bool:
    """Put a running match back in the queue (infrastructure failure, lost worker).

    With ``lease_token``, only that lease's holder may do it. Nothing of the attempt is kept.
    """
    with transaction.atomic():
        end_if_silent()
        match = Match.objects.select_for_update().filter(pk=match_id, status=Match.Status.RUNNING).first()
        if match is None or (lease_token is not None and str(match.lease_token) != str(lease_token)):
            return False
        _requeue(match, reason)
    return True


def requeue_expired_matches(now=None) -> list[int]:
    """The scavenger: running matches whose lease ran out go back to the queue."""
    now = now or timezone.now()
    expired = list(Match.objects.filter(status=Match.Status.RUNNING, lease_expires_at__lt=now)
                   .values_list("pk", flat=True))
    return [pk for pk in expired if _requeue_expired(pk, now)]


def _requeue_expired(match_id: int, now) -> bool:
    """Requeue one match if its lease is still over once its row is ours.

    A row someone holds is being reported or requeued right now: skipped, never waited for (the
    scavenger runs on a worker; waiting would stop it playing), and looked at again next run. A lease
    renewed since the match was listed is left alone."""
    with transaction.atomic():
        end_if_silent()
        match = (Match.objects.select_for_update(skip_locked=True)
                 .filter(pk=match_id, status=Match.Status.RUNNING, lease_expires_at__lt=now).first())
        if match is None:
            return False
        _requeue(match, "lease expired (worker lost)")
    return True


def fail_match(match_id: int, reason: str, lease_token=None) -> bool:
    """Give up on a match that cannot be played (e.g. a version vanished). Nothing is scored."""
    if not reason:
        raise ValidationError({"reason": ["a failed match needs a reason"]})
    with transaction.atomic():
        query = Match.objects.select_for_update().filter(
            pk=match_id, status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
        match = query.first()
        if match is None or (lease_token is not None and str(match.lease_token) != str(lease_token)):
            return False
        match.status = Match.Status.FAILED
        match.failure_reason = reason[:2000]
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "failure_reason", "finished_at"])
        if match.tournament_id:
            finish_tournament_if_done(match.tournament_id)
    return True


def cancel_match(match_id: int) -> bool:
    """Only a queued match can be cancelled; a running one finishes (or is requeued) first."""
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, finished_at=timezone.now()))


def cancel_queued_matches_of(version: BotVersion) -> int:
    return Match.objects.filter(Q(version_a=version) | Q(version_b=version), status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, finished_at=timezone.now(), failure_reason=f"{version} was disabled")


def play_match_now(match_id: int, worker_id: str = "inline") -> Match:
    """Claim, play and finish a match in this process (quick start and tests).

    A sandbox failure requeues the match and re-raises; a match someone else holds is left alone.
    """
    from ..referee import InfrastructureError

    token = claim_match(match_id, worker_id)
    if token is None:
        return Match.objects.get(pk=match_id)
    try:
        records = run_match(match_id, token)
    except LeaseLost:
        return Match.objects.get(pk=match_id)
    except InfrastructureError as error:
        requeue_match(match_id, token, reason=str(error))
        raise
    except Exception as error:
        requeue_match(match_id, token, reason=f"runner error: {error!r}")
        raise
    finish_match(match_id, token, records)
    return Match.objects.get(pk=match_id)
