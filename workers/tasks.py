"""Celery tasks: small, idempotent, ids in and nothing out; each only calls services.

A message is a hint ("look at match N"); the database decides. A malformed or forged message
(a non-integer id, an unknown match, a match not queued) changes nothing and is logged with the reason.
"""

from __future__ import annotations

import logging
import os
import socket

from celery import shared_task

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


def worker_name(request) -> str:
    return f"{request.hostname or socket.gethostname()}:{os.getpid()}"[:100]


@shared_task(name="workers.run_match", bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_match(self, match_id=None, *extra, **unexpected) -> str | None:
    match_id = the_one_id("run_match", "match", match_id, extra, unexpected)
    if match_id is None:
        return None
    from .playing import play_match

    return play_match(match_id, worker_name(self.request))


@shared_task(name="workers.dispatch", ignore_result=True)
def dispatch() -> int:
    """Send queued matches that have no message on the way; re-send smoke tests that never ran."""
    from .dispatching import dispatch_queued, pending_versions

    sent = dispatch_queued()
    for version_id in pending_versions():
        smoke_test.delay(version_id)
    return len(sent)


@shared_task(name="workers.scavenge", ignore_result=True)
def scavenge() -> int:
    """Matches whose worker went silent go back to the queue; attempts are counted."""
    from .dispatching import scavenge as scavenge_expired

    return len(scavenge_expired())


@shared_task(name="workers.schedule_ladder", ignore_result=True)
def schedule_ladder() -> int:
    """Keep every game's ranked ladder busy with new pairings, then send them."""
    from .dispatching import send_match
    from .ladder import fill_ladders

    created = fill_ladders()
    for match_id in created:
        send_match(match_id)
    return len(created)


@shared_task(name="workers.smoke_test", bind=True, acks_late=True, reject_on_worker_lost=True,
             ignore_result=True, soft_time_limit=600, time_limit=660)
def smoke_test(self, version_id=None, *extra, **unexpected) -> str | None:
    """Handshake a new upload in the sandbox: pending → ready or rejected (a judged version is left alone)."""
    version_id = the_one_id("smoke_test", "bot version", version_id, extra, unexpected)
    if version_id is None:
        return None
    from tournaments.models import BotVersion
    from tournaments.referee import InfrastructureError
    from tournaments.services import smoke_test_version

    try:
        return smoke_test_version(version_id).status
    except BotVersion.DoesNotExist:
        log.warning("smoke test: unknown bot version %s, nothing done", version_id)
        return None
    except InfrastructureError as error:  # ours, not the bot's: it stays pending and the dispatcher retries
        log.warning("smoke test of version %s postponed: %s", version_id, error)
        return "pending"
