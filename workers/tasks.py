"""Celery tasks: small, idempotent, ids in and nothing out; each only calls services."""

from __future__ import annotations

import logging
import os
import socket

from celery import shared_task
from celery.signals import task_prerun, worker_process_init, worker_ready, worker_shutting_down

from engines import GAME_IDS
from play.limits import claim_again_seconds
from tournaments.models import BotVersion
from tournaments.services import ratings

from . import dispatching, playing
from .ladder import fill_ladders

log = logging.getLogger("workers.tasks")

MAX_ID = 2**63 - 1


def checked_id(raw, what: str) -> int | None:
    """A positive database id, or None (logged) for anything else a forged message might carry."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 < raw <= MAX_ID:
        log.warning("rejected task message: %s id must be a positive integer, got %r", what, raw)
        return None
    return raw


def the_one_id(task: str, what: str, raw, extra, unexpected) -> int | None:
    """The single id a task message may carry, or None (logged) for extra arguments or a bad id."""
    if extra or unexpected:
        log.warning("rejected task message: %s takes one %s id, got extra %r %r", task, what, extra, unexpected)
        return None
    return checked_id(raw, what)


# --- a clean stop (workers.playing says how) -----------------------------------------------------------
_pool = {}  # the worker's pool of processes, once the worker is ready (its main process)


@worker_ready.connect
def remember_pool(sender=None, **kwargs) -> None:
    _pool["pool"] = getattr(sender, "pool", None)  # the sender is the worker's consumer


@worker_shutting_down.connect
def stop_playing(sig=None, how=None, **kwargs) -> None:
    """The worker was told to stop: its pool processes stop what they play (the match goes back to the queue)
    rather than Celery waiting for the match to end, or the 'arena' command's grace running out and a kill
    leaving it running with its bots' folders on disk."""
    try:
        pids = _pool["pool"].info.get("processes", [])
    except Exception:  # noqa: BLE001 - no pool yet, or one without processes (solo: this process plays)
        pids = []
    log.warning("worker stopping (%s, %s): stopping the play in pool processes %s", sig, how, pids)
    playing.stop_playing(pids)


@worker_process_init.connect
@task_prerun.connect
def listen_for_stop(**kwargs) -> None:
    playing.listen_for_stop()


def worker_name(request) -> str:
    return f"{request.hostname or socket.gethostname()}:{os.getpid()}"[:100]


def no_arguments(task: str, args, kwargs) -> bool:
    """Whether a wake-up message is as sent: without arguments (a forged priority or id is refused)."""
    if args or kwargs:
        log.warning("rejected task message: %s takes no arguments, got %r %r", task, args, kwargs)
        return False
    return True


@shared_task(name="workers.play_next", bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def play_next(self, *args, **kwargs) -> str | None:
    """There is work: take the first (a smoke test, else a match by priority and age) and do it; then the next, for
    as long as this task's time limits leave room for the longest match (``play.limits.claim_again_seconds``)."""
    if not no_arguments("play_next", args, kwargs):
        return None
    hard, soft = self.request.timelimit or (None, None)
    return playing.play_while_work(worker_name(self.request), claim_again_seconds(hard, soft))


@shared_task(name="workers.smoke_next", bind=True, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, soft_time_limit=600, time_limit=660)
def smoke_next(self, *args, **kwargs) -> str | None:
    """There is a smoke test: take the oldest pending version's, if any."""
    if not no_arguments("smoke_next", args, kwargs):
        return None
    return playing.smoke_next(worker_name(self.request))


@shared_task(name="workers.run_match", bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_match(self, match_id=None, *extra, **unexpected) -> str | None:
    """A message naming a match, as sent before wake-ups: taken as a wake-up while that match is queued."""
    match_id = the_one_id("run_match", "match", match_id, extra, unexpected)
    if match_id is None:
        return None
    return playing.play_hinted(match_id, worker_name(self.request))


@shared_task(name="workers.dispatch", ignore_result=True)
def dispatch() -> int:
    """Wake-ups for queued matches that have none on the way, and for smoke tests that never ran."""
    sent = dispatching.dispatch_queued()
    for _ in dispatching.pending_versions():
        dispatching.send_smoke_test()
    return len(sent)


@shared_task(name="workers.scavenge", ignore_result=True)
def scavenge() -> int:
    """Matches whose worker went silent go back to the queue; attempts are counted."""
    return len(dispatching.scavenge())


@shared_task(name="workers.schedule_ladder", ignore_result=True)
def schedule_ladder() -> int:
    """Keep every game's ranked ladder busy with new pairings (each wakes a worker: the MatchCreated reaction)."""
    return len(fill_ladders())


@shared_task(name="workers.smoke_test", bind=True, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, soft_time_limit=600, time_limit=660)
def smoke_test(self, version_id=None, *extra, **unexpected) -> str | None:
    """A message naming a version, as sent before wake-ups: taken as a smoke-test wake-up while that
    version is pending (a judged or unknown version is left alone, and the log says so)."""
    version_id = the_one_id("smoke_test", "bot version", version_id, extra, unexpected)
    if version_id is None:
        return None
    status = BotVersion.objects.filter(pk=version_id).values_list("status", flat=True).first()
    if status is None:
        log.warning("smoke test: unknown bot version %s, nothing done", version_id)
        return None
    if status != BotVersion.Status.PENDING:
        log.info("smoke test: bot version %s is already %s, nothing done", version_id, status)
        return status
    return playing.smoke_next(worker_name(self.request))


@shared_task(name="ratings.fit", ignore_result=True)
def fit_ratings(*extra, **unexpected) -> int:
    """Refit the games whose rated results changed (beat runs it every ARENA["RATING_FIT_SECONDS"]); the games
    read. The fit reads only the database, so any arguments a message carries are ignored."""
    return sum(row.games for row in ratings.refit_changed())


@shared_task(name="ratings.refit", ignore_result=True)
def refit_game(game_id=None, *extra, **unexpected) -> int:
    """Refit one game id soon after a rated match of it finished (``schedule_refit`` sends it, coalesced);
    the games read. A message naming no known game id, or carrying more, changes nothing and is logged."""
    if extra or unexpected or not isinstance(game_id, str) or game_id not in GAME_IDS:
        log.warning("rejected task message: ratings.refit takes one game id, got %r %r %r", game_id, extra,
                    unexpected)
        return 0
    fit = ratings.refit_game(game_id)
    return fit.games if fit is not None else 0
