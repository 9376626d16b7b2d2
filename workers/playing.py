"""One delivery of "play match N" on a worker: claim, play while beating, report, or requeue.

Who pays: an infrastructure failure (the sandbox would not start, the runner broke, the task ran out
of time, the lease was lost) puts the match back in the queue unscored; a bot's own failure is
already a scored game in the runner's record. Every path that changes nothing says why in the log.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, close_old_connections, connection

from tournaments.models import Match
from tournaments.services import matches as match_services

from . import conf

log = logging.getLogger("workers.playing")

FINISHED, REQUEUED, NOT_QUEUED, UNKNOWN, LEASE_LOST, REFUSED = (
    "finished", "requeued", "not-queued", "unknown-match", "lease-lost", "report-refused")


class Heartbeat:
    """A thread that extends the lease every ``interval`` seconds while the match is played."""

    def __init__(self, match_id: int, lease_token, interval: float):
        self.match_id, self.lease_token, self.interval = match_id, lease_token, interval
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{match_id}", daemon=True)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval):
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


def resend_if_queued(match_id: int) -> None:
    """A match back in the queue gets a new message now, not only when the dispatcher next looks."""
    from .dispatching import send_match

    try:
        send_match(match_id)
    except Exception:  # noqa: BLE001 - the broker is down: the dispatcher will send it later
        log.exception("match %s: could not re-send; the dispatcher will", match_id)


def requeue(match_id: int, lease_token, reason: str) -> str:
    if match_services.requeue_match(match_id, lease_token, reason=reason):
        log.warning("match %s: requeued (%s)", match_id, reason)
        resend_if_queued(match_id)
        return REQUEUED
    log.warning("match %s: could not requeue (%s): the lease is no longer ours", match_id, reason)
    return LEASE_LOST


def play_match(match_id: int, worker_id: str) -> str:
    """Play match ``match_id`` if it is queued; returns what happened (one of the words above)."""
    from tournaments.referee import InfrastructureError

    token = match_services.claim_match(match_id, worker_id)
    if token is None:  # only now read why: the usual delivery costs the claim alone
        status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
        if status is None:
            log.warning("match %s: unknown match id, nothing done", match_id)
            return UNKNOWN
        log.info("match %s is %s, not queued: a duplicate or late delivery, nothing done", match_id, status)
        return NOT_QUEUED
    log.info("match %s: claimed by %s", match_id, worker_id)
    with Heartbeat(match_id, token, conf.heartbeat_seconds()) as beat:
        try:
            records = match_services.run_match(match_id, token)
        except match_services.LeaseLost as error:
            log.warning("match %s: %s; nothing reported", match_id, error)
            return LEASE_LOST
        except InfrastructureError as error:
            return requeue(match_id, token, f"infrastructure: {error}")
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
        resend_if_queued(match_id)
        return REQUEUED
    if report is match_services.Report.REFUSED:
        log.warning("match %s: report refused (stale lease or duplicate report), nothing changed", match_id)
        return REFUSED
    log.info("match %s: finished", match_id)
    return FINISHED
