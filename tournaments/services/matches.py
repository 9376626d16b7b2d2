"""A match's life: queued → (claimed) running → finished, or requeued, failed, cancelled."""

from __future__ import annotations

import enum
import logging
import math
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import DataError, connection, transaction
from django.db.models import F, Q, Subquery
from django.utils import timezone

from engines.core import BLACK, WHITE, WINNERS, Termination, other, points
from knobs import arena
from ratings.services import apply_rated_game, lock_ratings, store_rating_changes

from .. import events
from ..models import BotVersion, Game, Match, Tournament, Worker
from . import (
    knockout,
    openings,  # a knockout's next matches are queued in the transaction that ends the last one
    swiss,  # a Swiss pairs its next round in the transaction that finishes the last one
    version_tests,  # an SPRT's match counts in its test, in the transaction that stores it
    worker_time,
)
from .match_rules import cancel_queued, release
from .queueing import (  # noqa: F401  (a match's life starts here: callers find it with the rest)
    check_game,
    check_games_per_match,
    check_playable,
    check_time_control,
    create_match,
)

log = logging.getLogger(__name__)

TERMINATIONS = frozenset(t.value for t in Termination)
BOT_TEXTS = ("detail", "stderr", "log")  # what a record holds that the bots wrote (engines.record.safe_text)


# The order of one account's queued matches (served by the index match_claim_owner_idx): priority is only a
# tie-break inside an owner's own work; which account is served is worker_time.claim_accounts' decision.
CLAIM_ORDER = ("-priority", "created_at", "id")


def _take_lease(queued, worker_id: str) -> uuid.UUID | None:
    """queued → running for the one match ``queued`` selects, under a new lease; None if it selects none."""
    now = timezone.now()
    token = uuid.uuid4()
    claimed = queued.filter(status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, worker_id=str(worker_id)[:100], lease_token=token, heartbeat_at=now,
        lease_expires_at=now + timedelta(seconds=arena.MATCH_LEASE_SECONDS),
        attempts=F("attempts") + 1, started_at=now, failure_reason="",
    )
    return token if claimed else None


def claim_match(match_id: int, worker_id: str) -> uuid.UUID | None:
    """Take the lease of queued match ``match_id`` (queued → running); None when someone else has it."""
    token = _take_lease(Match.objects.filter(pk=match_id), worker_id)
    if token is not None:
        events.emit(events.MatchStarted(match_id))
    return token


def note_worker(worker_id: str, isolation_problem: str, plays_rated: bool) -> None:
    """Remember how a worker asking for work keeps its bots apart (the operators' dashboard shows it)."""
    fields = {"isolation_problem": isolation_problem[:300], "plays_rated": plays_rated, "seen_at": timezone.now()}
    # One UPDATE for a worker already known (every claim but its first), not update_or_create's locked read
    if not Worker.objects.filter(worker_id=str(worker_id)[:100]).update(**fields):
        Worker.objects.update_or_create(worker_id=str(worker_id)[:100], defaults=fields)


def claim_next_match(worker_id: str, rated: bool = True) -> tuple[int, uuid.UUID] | None:
    """Take the lease of the queued match whose turn it is: its id and token, or None when nothing is queued.

    The turn goes to an account, not to a queue position (``worker_time.claim_accounts``: the ladder while it
    is below its share, else the owner who used the workers least lately); within the account, the highest
    priority, then the oldest. Each try is one UPDATE whose scalar subquery picks the account's first match:
    on PostgreSQL ``FOR UPDATE SKIP LOCKED`` lets concurrent claims take the next ones instead of waiting;
    SQLite runs one write at a time. (Not ``pk IN (subquery)``: PostgreSQL may run that as a join that
    re-runs the subquery and so updates several rows.) An account emptied by another worker since the
    accounts were read is skipped for the next one. ``rated=False``: unrated matches only (a worker whose
    bots are not kept apart must not decide a rating).
    """
    for account in worker_time.claim_accounts():
        first = (Match.objects.select_for_update(skip_locked=True)
                 .filter(status=Match.Status.QUEUED, charged_to_id=account, **({} if rated else {"rated": False}))
                 .order_by(*CLAIM_ORDER).values("pk")[:1])
        with transaction.atomic():
            token = _take_lease(Match.objects.filter(pk=Subquery(first)), worker_id)
            if token is None:
                continue
            # Running matches are few (one per worker): the status index finds ours by its new token.
            match_id = Match.objects.filter(status=Match.Status.RUNNING, lease_token=token).values_list(
                "pk", flat=True).get()
            events.emit(events.MatchStarted(match_id))
        return match_id, token
    return None


def heartbeat(match_id: int, lease_token) -> bool:
    """Extend the lease; False when the lease is no longer this worker's."""
    now = timezone.now()
    return bool(Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=lease_token).update(
        heartbeat_at=now, lease_expires_at=now + timedelta(seconds=arena.MATCH_LEASE_SECONDS)))


@dataclass(frozen=True)
class MatchPlan:
    """What a worker needs to play a claimed match, as plain data (``begin``): no row to keep in step."""

    match_id: int
    game: str
    time_control: str
    games_per_match: int
    version_a: int  # the versions' ids; ``colours(plan, number)`` says who is white in a game
    version_b: int
    starts: tuple[str | None, ...] = ()  # each game's start position (an opening), None or missing: the initial one

    @classmethod
    def of(cls, match: Match) -> MatchPlan:
        return cls(match.pk, match.game, match.time_control, match.games_per_match, match.version_a_id,
                   match.version_b_id,
                   openings.deal(match.pk, match.opening_suite_id, match.games_per_match))

    def start(self, number: int) -> str | None:
        """The position game ``number`` (from 1) starts from; None: the game's initial position."""
        return self.starts[number - 1] if number <= len(self.starts) else None


def begin(match_id: int, lease_token) -> MatchPlan | None:
    """The plan of a match running under ``lease_token``, or None when the lease is not (or no longer) ours. A match
    with an opening suite gets its openings dealt here, when it is played (``openings.deal``)."""
    match = (Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_token=lease_token)
             .only("game", "time_control", "games_per_match", "version_a_id", "version_b_id", "opening_suite_id")
             .first())
    return None if match is None else MatchPlan.of(match)


def colours(match, number: int):
    """(white, black) of game ``number`` (from 1): A is white in odd games, colours swap every game. ``match`` is a
    Match (its versions come back) or a ``MatchPlan`` (their ids do)."""
    if number % 2 == 1:
        return match.version_a, match.version_b
    return match.version_b, match.version_a


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
        if record["reason"] not in TERMINATIONS:
            raise ValidationError({"records": [f"game {number}: unknown reason {record['reason']!r}"]})
        if record.get("game", match.game) != match.game:
            message = f"game {number}: a {record.get('game')} record in a {match.game} match"
            raise ValidationError({"records": [message]})
        initial = record.get("initial")
        # The runner writes the position the game started from; the record column holds no NaN, and PostgreSQL's
        # no NUL. A position of no opening of the suite is stored as the record says, with no opening.
        if initial is not None and (not isinstance(initial, str) or "\x00" in initial):
            raise ValidationError({"records": [f"game {number}: initial must be a position's text without NUL, "
                                               f"got {initial!r:.40}"]})


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
        milliseconds = str(int(arena.MATCH_LEASE_SECONDS * 1000))
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
        if any(record["reason"] == Termination.VOID for record in records):
            _requeue(match, "void game: both bots failed before the first move")
            return Report.REQUEUED
        bot_a, bot_b = match.version_a.bot_id, match.version_b.bot_id
        ratings = lock_ratings(match.game, (bot_a, bot_b)) if match.rated else {}
        score_a = score_b = 0.0
        games = _store_games(match, records)
        changes = []
        for played in games:
            side_a = WHITE if played.white_id == match.version_a_id else BLACK
            score_a += points(played.winner, side_a)
            score_b += points(played.winner, other(side_a))
            if match.rated:
                changes += apply_rated_game(played, played.white.bot_id, played.black.bot_id, ratings, store=False)
        if changes:  # the whole match's rating writes in two queries
            store_rating_changes(changes, ratings.values())
        match.status = Match.Status.FINISHED
        match.score_a, match.score_b = score_a, score_b
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "score_a", "score_b", "finished_at"])
        _ended(match, (bot_a, bot_b))
        version_tests.record_test_match(match, games)
    return Report.FINISHED


def _store_games(match: Match, records) -> list[Game]:
    """The match's games. Should the database refuse a record for its data (bot text it cannot hold,
    though the runner made it safe), every game is stored without the bots' texts, and the record
    says so: a bad byte from a bot never leaves its match unscored, nor played again and again."""
    started_from = openings.openings_by_position(match.opening_suite_id)
    try:
        with transaction.atomic():  # a savepoint: only the failed insert is undone
            return Game.objects.bulk_create([_new_game(match, number, record, started_from)  # one INSERT for them all
                                             for number, record in enumerate(records, start=1)])
    except DataError as error:
        log.warning("match %s: the database refused a game record (%s); storing it without %s",
                    match.pk, error, ", ".join(BOT_TEXTS))
        note = f"{', '.join(BOT_TEXTS)} not stored: the database refused them ({type(error).__name__})"
        return Game.objects.bulk_create([
            _new_game(match, number, {**{key: value for key, value in record.items() if key not in BOT_TEXTS},
                                      "dropped": note}, started_from)
            for number, record in enumerate(records, start=1)])


def _new_game(match: Match, number: int, record: dict, started_from: dict[str, int]) -> Game:
    white, black = colours(match, number)
    thinking = record.get("thinking") if isinstance(record.get("thinking"), dict) else {}
    initial = record.get("initial")
    return Game(
        match=match, number=number, white=white, black=black, record=record, winner=record["winner"],
        opening_id=started_from.get(initial) if isinstance(initial, str) else None,
        reason=record["reason"], plies=int(record.get("plies") or 0), duration=_seconds(record.get("duration")),
        white_thinking=_seconds(thinking.get("white")), black_thinking=_seconds(thinking.get("black")),
    )


def _seconds(value) -> float | None:
    """A time from the runner's record; None when the record has none (never a guess passed off as one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def _ended(match: Match, bot_ids: tuple[int, int] | None = None) -> None:
    """A match left play for good (finished or failed, row saved): say so, and close its round and its
    tournament if it was their last open match. Inside the transaction that ends it."""
    if bot_ids is None:
        bot_ids = tuple(BotVersion.objects.filter(pk__in=(match.version_a_id, match.version_b_id))
                        .values_list("bot_id", flat=True))
    events.emit(events.MatchFinished(match.pk, match.game, bot_ids, match.status, match.rated, match.tournament_id,
                                     match.opening_suite_id))
    if not match.tournament_id:
        return
    if match.round is not None and not Match.objects.filter(
            tournament_id=match.tournament_id, round=match.round,
            status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).exists():
        events.emit(events.TournamentRoundDone(match.tournament_id, match.round))
    finish_tournament_if_done(match.tournament_id)


# Formats whose next matches depend on results: called when any of their matches ends, with the row locked.
FOLLOW_UPS = {Tournament.Format.KNOCKOUT: knockout.advance}


def _follow_up(tournament: Tournament) -> None:
    """Queue what a running tournament of a format in ``FOLLOW_UPS`` needs next. A failure is logged, never
    raised: the result that called it must be stored."""
    try:
        with transaction.atomic():  # a savepoint: a refused match leaves the rest of the transaction whole
            FOLLOW_UPS[tournament.format](tournament)
    except (ValidationError, DataError):
        log.exception("tournament %s: could not queue its next matches", tournament.pk)


def finish_tournament_if_done(tournament_id: int) -> bool:
    """After one of its matches ended: a Swiss pairs its next round, a knockout queues its next matches, and a
    tournament with nothing left to play is finished. Its row is locked first (one read for every format): two of
    its matches ending at once are serialised here, so the second sees the first's result and exactly one of them
    pairs the next round or finishes the tournament."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(
            pk=tournament_id, status=Tournament.Status.RUNNING).first()
        if tournament is None:
            return False
        if tournament.format == Tournament.Format.SWISS and swiss.goes_on(tournament):
            return False  # a Swiss pairs its next round when the last one is done
        if tournament.format in FOLLOW_UPS:
            _follow_up(tournament)
        return _finish_if_done(tournament_id)


def _finish_if_done(tournament_id: int) -> bool:
    open_matches = Match.objects.filter(tournament_id=tournament_id,
                                        status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    if open_matches.exists():
        return False
    finished = bool(Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.RUNNING).update(
        status=Tournament.Status.FINISHED, finished_at=timezone.now()))
    if finished:
        events.emit(events.TournamentFinished(tournament_id))
    return finished


def _requeue(match: Match, reason: str) -> None:
    """Back to the queue (locked row), or failed and ended once it has used up its attempts."""
    if not release(match, reason):
        _ended(match)
        version_tests.match_ended_unscored(match)


def requeue_match(match_id: int, lease_token=None, reason: str = "requeued", counted: bool = True) -> bool:
    """Put a running match back in the queue (infrastructure failure, lost worker).

    With ``lease_token``, only that lease's holder may do it. Nothing of the attempt is kept; not even the attempt
    itself when it is not ``counted`` (its worker was stopped: not the match's failure, and a match must not fail
    for having been played during restarts).
    """
    with transaction.atomic():
        end_if_silent()
        match = Match.objects.select_for_update().filter(pk=match_id, status=Match.Status.RUNNING).first()
        if match is None or (lease_token is not None and str(match.lease_token) != str(lease_token)):
            return False
        if not counted:
            match.attempts = max(0, match.attempts - 1)
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
        _ended(match)
        version_tests.match_ended_unscored(match)
    return True


def cancel_match(match_id: int) -> bool:
    """Only a queued match can be cancelled; a running one finishes (or is requeued) first."""
    return bool(cancel_queued(Q(pk=match_id), ""))


def cancel_queued_matches_of(version: BotVersion) -> int:
    version_tests.stop_tests_of(version, f"{version} was disabled")
    return cancel_queued(Q(version_a=version) | Q(version_b=version), f"{version} was disabled")


