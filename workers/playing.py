"""What a worker does with a wake-up: take the first piece of work the database names, and do it.

Which work comes first is the database's decision, never the broker's: a message only says "there is
work" (``workers.play_next``), or "there is a smoke test" (``workers.smoke_next``), and the worker
claims, with one conditional update, the smoke test of the oldest pending version and else the
queued match of the highest priority, oldest first. So the order in which a broker hands out
messages does not matter (the filesystem transport's names sort wrongly when the host's uptime
crosses a power of ten in milliseconds), and no queued match waits behind more than one newer match
of its priority per worker that claimed at the same moment.

Why one "there is work" task rather than a queue per kind of work: a worker consuming several
queues takes whichever message it gets (Redis rotates between them), so priorities across queues
would again be the broker's. Each queued match or upload sends one wake-up; a surplus wake-up finds
nothing and says so; a duplicate or forged one can only make a worker take work that was due anyway,
in the database's order. Smoke tests also get ``smoke_next`` on the housekeeping queue, which the
quick start serves with a process of its own, so an upload is tested while the match worker plays.

A worker told to stop (SIGTERM: Celery's warm shutdown, which waits for the running task, and a match may last
an hour) tells its pool processes (``STOP_SIGNAL``, ``stop_playing``), and the game being played ends at the
runner's next wait (``runner.stopping``): its bots are killed and their folders removed, and the match goes back to
the queue at once, the attempt not counted, with a wake-up for another worker, long before its lease would have
run out. A match being reported is reported first; a smoke test is given back to the next worker.

Who pays: an infrastructure failure (the sandbox would not start, the runner broke, the match ran out
of time, the lease was lost) puts the match back in the queue unscored; a bot's own failure is
already a scored game in the runner's record. Every path that changes nothing says why in the log.

This module is the one orchestration of a match: claim, play (``play_games``), heartbeats, report,
requeue. The database writes each step makes (the lease, the stored result) are the match services';
tests play a match through ``play_next``, the same call the ``workers.play_next`` task makes.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from contextlib import contextmanager

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, close_old_connections, connection

from runner import stopping
from tournaments.models import BotVersion, Match
from tournaments.referee import InfrastructureError, isolation_problem, loaded_versions, open_sandbox, play_game
from tournaments.services import matches as match_services
from tournaments.services import uploads as upload_services

from . import conf, dispatching
from .schedule import match_time_limits

log = logging.getLogger("workers.playing")

FINISHED, REQUEUED, NOT_QUEUED, UNKNOWN, LEASE_LOST, REFUSED, NOTHING = (
    "finished", "requeued", "not-queued", "unknown-match", "lease-lost", "report-refused", "nothing-queued")
# A smoke test's own limit, inside its lease (the next worker may take it after the lease).
SMOKE_TEST_SECONDS = upload_services.SMOKE_LEASE_SECONDS - 60


# What a worker's main process sends its pool processes when it is told to stop (SIGTERM, SIGINT or SIGQUIT). Not
# SIGTERM, which Celery leaves deadly in a pool process, nor any signal billiard turns into a SystemExit there (the
# SIGUSRs among them): a real-time signal, which nothing else sends (a terminal sends SIGWINCH to a foreground
# worker's every process), keeps the handler a pool process installs at its start, idle or not.
STOP_SIGNAL = signal.SIGRTMIN + 1 if hasattr(signal, "SIGRTMIN") else signal.SIGUSR2


def on_stop_signal(signum, frame) -> None:
    stopping.requested.set()


def listen_for_stop() -> None:
    """In a process that plays (a pool process at its start; any worker's before each task, for a solo pool):
    ``STOP_SIGNAL`` asks every game here to stop. Signals reach the main thread only."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(STOP_SIGNAL) is not on_stop_signal:
        signal.signal(STOP_SIGNAL, on_stop_signal)


def stop_playing(pids) -> None:
    """In the worker's main process, told to stop: each pool process ``pids`` stops what it plays; with no pool
    processes (a solo pool plays here) this process does. A process already gone is skipped."""
    stopping.requested.set()
    for pid in pids:
        try:
            os.kill(pid, STOP_SIGNAL)
        except (ProcessLookupError, PermissionError):
            pass


class LeaseLost(RuntimeError):
    """The match is no longer ours: requeued by the scavenger, cancelled, or finished elsewhere."""


class Heartbeat:
    """A thread that extends the lease every ``interval`` seconds while the match is played, until
    ``seconds`` have passed: a worker wedged past its match's hard limit lets the lease lapse, and
    the scavenger gives the match to another."""

    def __init__(self, match_id: int, lease_token, interval: float, seconds: float = float("inf")):
        self.match_id, self.lease_token, self.interval = match_id, lease_token, interval
        self.until = time.monotonic() + seconds
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{match_id}", daemon=True)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                if time.monotonic() > self.until:
                    log.error("match %s: still playing past its hard limit; the lease is left to lapse",
                              self.match_id)
                    return
                try:
                    if not match_services.heartbeat(self.match_id, self.lease_token):
                        log.warning("match %s: heartbeat refused, the lease is no longer ours", self.match_id)
                        self.lost.set()
                        return
                except Exception:  # a database blip: the next beat may get through before the lease ends
                    log.exception("match %s: heartbeat failed", self.match_id)
                    close_old_connections()
        finally:
            connection.close()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval + 5)


def requeue(match_id: int, lease_token, reason: str, counted: bool = True) -> str:
    if match_services.requeue_match(match_id, lease_token, reason=reason, counted=counted):
        log.warning("match %s: requeued (%s)", match_id, reason)  # its wake-up: the MatchRequeued event
        return REQUEUED
    log.warning("match %s: could not requeue (%s): the lease is no longer ours", match_id, reason)
    return LEASE_LOST


@contextmanager
def deadline(seconds: float):
    """``SoftTimeLimitExceeded`` in this thread after ``seconds``: each match's own time limit, inside a
    task whose Celery limit is the longest any match may take (the task does not know in advance which
    match it will claim). Only the main thread gets signals: elsewhere (a thread pool) the task's own
    limit and the heartbeat's are what is left."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum, frame):
        raise SoftTimeLimitExceeded(f"over its own time limit of {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def plays_rated(isolation_problem: str, arena: dict) -> bool:
    """Rated matches only where each bot is kept apart, unless the operator vouches for every bot (trusted
    mode) or has switched the rule off (ARENA_RATED_NEEDS_ISOLATION)."""
    return not isolation_problem or arena["SANDBOX_TRUSTED"] or not arena["RATED_NEEDS_ISOLATION"]


def play_next(worker_id: str) -> str:
    """Take the first piece of work: a pending version's smoke test, else the first queued match."""
    version_id = upload_services.claim_smoke_test()
    if version_id is not None:
        return smoke_test(version_id)
    problem = isolation_problem()
    rated = plays_rated(problem, settings.ARENA)
    match_services.note_worker(worker_id, problem, rated)
    claimed = match_services.claim_next_match(worker_id, rated=rated)
    if claimed is None:
        log.info("nothing queued: a surplus wake-up, nothing done")
        return NOTHING
    return play_match(*claimed, worker_id)


def smoke_next(worker_id: str) -> str:
    """Take the smoke test of the oldest pending version, if any."""
    version_id = upload_services.claim_smoke_test()
    if version_id is None:
        log.info("no smoke test waiting: a surplus wake-up, nothing done")
        return NOTHING
    return smoke_test(version_id)


def play_hinted(match_id: int, worker_id: str) -> str:
    """A message naming a match (sent before wake-ups existed, or forged): if that match is queued,
    the worker takes the first work in the database's order (not necessarily this match: a message
    never jumps the queue); otherwise nothing happens, and the log says why."""
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    if status is None:
        log.warning("match %s: unknown match id, nothing done", match_id)
        return UNKNOWN
    if status != Match.Status.QUEUED:
        log.info("match %s is %s, not queued: a duplicate or late delivery, nothing done", match_id, status)
        return NOT_QUEUED
    return play_next(worker_id)


def smoke_test(version_id: int) -> str:
    """Run a claimed smoke test: the version becomes ready or rejected; it stays pending (and is tried
    again after its lease) when the sandbox failed or the test ran out of time."""
    try:
        with deadline(SMOKE_TEST_SECONDS):
            return upload_services.smoke_test_version(version_id).status
    except BotVersion.DoesNotExist:
        log.warning("smoke test: bot version %s is gone, nothing done", version_id)
        return UNKNOWN
    except (InfrastructureError, SoftTimeLimitExceeded) as error:  # ours, not the bot's
        log.warning("smoke test of version %s postponed: %s", version_id, error)
        return BotVersion.Status.PENDING
    except stopping.Stopped:  # the worker is stopping: the next one takes the test now, not after its lease
        upload_services.release_smoke_test(version_id)
        log.warning("smoke test of version %s given back: the worker is stopping", version_id)
        try:
            dispatching.send_smoke_test()
        except Exception:  # noqa: BLE001 - the broker is down: the dispatcher will send it later
            log.exception("smoke test of version %s: could not re-send; the dispatcher will", version_id)
        return BotVersion.Status.PENDING


def play_games(match_id: int, lease_token) -> list[dict]:
    """Play every game of a claimed match through the sandbox; the runner's records come back.

    The lease is extended (and checked) before each game besides the ``Heartbeat``'s beats, so a match
    requeued meanwhile is not played on. Raises ``LeaseLost`` when the lease has gone,
    ``InfrastructureError`` when the sandbox fails (the caller requeues; nothing is scored), ``runner.stopping.Stopped``
    when the worker is stopping (likewise, the attempt not counted).
    """
    match = Match.objects.select_related("version_a__bot", "version_b__bot").get(pk=match_id)
    if match.status != Match.Status.RUNNING or str(match.lease_token) != str(lease_token):
        raise LeaseLost(f"match {match_id} is not running under this lease")
    # both trees are held in the bot cache for the whole match: no other worker's eviction takes them
    with loaded_versions(match.version_a, match.version_b) as (bot_a, bot_b):
        bots = {match.version_a_id: bot_a, match.version_b_id: bot_b}
        sandbox = open_sandbox()
        records = []
        for number in range(1, match.games_per_match + 1):
            stopping.check()
            if not match_services.heartbeat(match_id, lease_token):
                raise LeaseLost(f"match {match_id} lost its lease before game {number}")
            white, black = match_services.colours(match, number)
            records.append(play_game(match, number, bots[white.pk], bots[black.pk], sandbox))
    return records


def play_match(match_id: int, token, worker_id: str) -> str:
    """Play match ``match_id``, claimed under lease ``token``, within its own time limits; returns what
    happened (one of the words above)."""
    match = Match.objects.values("game", "time_control", "games_per_match").get(pk=match_id)
    limits = match_time_limits(match["game"], match["time_control"], match["games_per_match"])
    log.info("match %s: claimed by %s", match_id, worker_id)
    with Heartbeat(match_id, token, conf.heartbeat_seconds(), limits.hard) as beat:
        try:
            with deadline(limits.soft):
                records = play_games(match_id, token)
        except LeaseLost as error:
            log.warning("match %s: %s; nothing reported", match_id, error)
            return LEASE_LOST
        except InfrastructureError as error:
            return requeue(match_id, token, f"infrastructure: {error}")
        except stopping.Stopped:  # not the match's fault: the attempt is given back
            return requeue(match_id, token, "the worker stopped while playing it", counted=False)
        except BaseException as error:  # SoftTimeLimitExceeded, a runner bug, a signal: never scored
            outcome = requeue(match_id, token, f"runner error: {error!r}"[:500])
            if not isinstance(error, Exception):
                raise
            log.exception("match %s: the runner failed", match_id)
            return outcome
    if beat.lost.is_set():
        log.warning("match %s: the lease was lost while playing; the report will be refused", match_id)
    return report(match_id, token, records)


def finish(match_id: int, lease_token, records) -> match_services.Report:
    """``finish_match``, tried again while the database cannot be reached, for as long as a lease lasts:
    the games are played, and nobody can requeue the match meanwhile. Should the lease run out after
    all, the scavenger requeues it and the report is refused; a report whose commit went through
    but whose answer was lost is refused too (the match is finished): never counted twice."""
    deadline = time.monotonic() + settings.ARENA["MATCH_LEASE_SECONDS"]
    while True:
        try:
            return match_services.finish_match(match_id, lease_token, records)
        except (OperationalError, InterfaceError) as error:
            if time.monotonic() > deadline:
                raise
            log.warning("match %s: the database is unreachable (%s); reporting again", match_id,
                        str(error).splitlines()[0])
            connection.close()  # a broken connection is not reused; the next try opens one
            time.sleep(conf.heartbeat_seconds())


def report(match_id: int, lease_token, records) -> str:
    """Hand the records to ``finish_match``; only the current lease's report counts, once."""
    try:
        report = finish(match_id, lease_token, records)
    except ValidationError as error:
        return requeue(match_id, lease_token, f"bad records from the runner: {error}"[:500])
    if report is match_services.Report.REQUEUED:
        log.warning("match %s: void (both bots failed before move 1), requeued unscored", match_id)
        return REQUEUED
    if report is match_services.Report.REFUSED:
        log.warning("match %s: report refused (stale lease or duplicate report), nothing changed", match_id)
        return REFUSED
    log.info("match %s: finished", match_id)
    return FINISHED
