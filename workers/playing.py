"""What a worker does with a wake-up: take the first piece of work the database names, and do it."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from celery.exceptions import SoftTimeLimitExceeded

from knobs import arena
from play import claimed as claimed_match
from play.claimed import FINISHED, LEASE_LOST, REFUSED, REQUEUED  # noqa: F401  (what play_next may answer)
from play.lease import deadline
from runner import stopping
from tournaments import selectors
from tournaments.models import BotVersion, Match
from tournaments.referee import InfrastructureError, isolation_problem
from tournaments.services import matches as match_services
from tournaments.services import uploads as upload_services

from . import dispatching

log = logging.getLogger("workers.playing")

NOT_QUEUED, UNKNOWN, NOTHING = "not-queued", "unknown-match", "nothing-queued"
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


def plays_rated(isolation_problem: str) -> bool:
    """Rated matches only where each bot is kept apart, unless the operator vouches for every bot (trusted
    mode) or has switched the rule off (ARENA_RATED_NEEDS_ISOLATION)."""
    return not isolation_problem or arena.SANDBOX_TRUSTED or not arena.RATED_NEEDS_ISOLATION


def play_next(worker_id: str, note: bool = True) -> str:
    """Take the first piece of work: a pending version's smoke test, else the first queued match. ``note=False``:
    the worker was noted at its wake-up (``play_while_work``), and each claim stamps the match with it anyway."""
    version_id = upload_services.claim_smoke_test()
    if version_id is not None:
        return smoke_test(version_id)
    problem = isolation_problem()
    rated = plays_rated(problem)
    claimed = match_services.claim_next_match(worker_id, rated=rated)
    if note:  # after the claim, not on the way to it: a woken worker starts its match a write sooner
        match_services.note_worker(worker_id, problem, rated)
    if claimed is None:
        log.info("nothing queued: a surplus wake-up, nothing done")
        return NOTHING
    return claimed_match.play_match(*claimed, worker_id)


# What lets a worker claim again at once: its last piece of work went as planned. After a requeue (the sandbox broke,
# the worker is stopping) or a lost lease it goes back to the broker, so a broken worker does not burn every queued
# match's attempts in a tight loop.
CLAIM_AGAIN = frozenset({FINISHED, BotVersion.Status.READY, BotVersion.Status.REJECTED})


def play_while_work(worker_id: str, seconds: float) -> str:
    """``play_next`` again and again, for up to ``seconds``, while each piece of work is done as planned and the
    worker is not stopping: a worker that finds work claims the next match itself instead of going back to the
    broker for the next wake-up (whose message then finds nothing, and says so). Returns the last outcome."""
    until = time.monotonic() + seconds
    outcome = play_next(worker_id)
    while outcome in CLAIM_AGAIN and time.monotonic() < until and not stopping.requested.is_set():
        following = play_next(worker_id, note=False)  # one write less a match: alive_worker_ids counts its claims
        if following == NOTHING:
            break
        outcome = following
    return outcome


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
    status = selectors.match_status(match_id)
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
