"""The rules of a match's life that several callers share, each written once: how queued matches are cancelled,
how a match goes back to the queue, and when a worker counts as alive."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from knobs import arena

from .. import events
from ..models import Match, Worker

# A worker that asked for work, or beat on a match, this recently is alive: the ladder sizes its queue by them,
# the operators' dashboard lists them. Several leases long (ARENA_MATCH_LEASE_SECONDS, 2 minutes by default), so
# a worker busy with a long smoke test or between two matches is not forgotten.
WORKER_ALIVE = timedelta(minutes=10)

_RELEASED = {"lease_token": None, "lease_expires_at": None, "worker_id": ""}


def cancel_queued(where: Q, reason: str) -> int:
    """Cancel the queued matches ``where`` picks, saying why; running ones finish (or are requeued) first. The
    one way matches are cancelled: each caller says which and why."""
    queued = Match.objects.filter(where, status=Match.Status.QUEUED)
    ids = tuple(queued.values_list("pk", flat=True))
    cancelled = queued.filter(pk__in=ids).update(status=Match.Status.CANCELLED, finished_at=timezone.now(),
                                                 failure_reason=reason)
    if cancelled:
        events.emit(events.MatchesCancelled(ids))
    return cancelled


def release(match: Match, reason: str) -> bool:
    """A running match (its row locked) loses its lease: back to the queue, or failed once it has used up its
    attempts (``ARENA_MATCH_MAX_ATTEMPTS``). True when it is queued again (and ``MatchRequeued`` emitted); on
    False the caller ends the failed match."""
    if match.attempts >= arena.MATCH_MAX_ATTEMPTS:
        match.status = Match.Status.FAILED
        match.failure_reason = f"gave up after {match.attempts} attempts; last: {reason}"[:2000]
        match.finished_at = timezone.now()
    else:
        match.status = Match.Status.QUEUED
        match.failure_reason = reason[:2000]
    for name, value in _RELEASED.items():
        setattr(match, name, value)
    match.save(update_fields=["status", "failure_reason", "finished_at", *_RELEASED, "attempts"])
    if match.status == Match.Status.FAILED:
        return False
    events.emit(events.MatchRequeued((match.pk,)))
    return True


@transaction.atomic
def queue_again(where: Q, reason: str, *, fresh_attempts: bool) -> int:
    """Matches that ended without a result (cancelled or failed) that ``where`` picks go back to the queue, with
    their attempts counted afresh when ``fresh_attempts``. Returns how many; each wakes a worker once committed."""
    ended = Match.objects.filter(where, status__in=[Match.Status.CANCELLED, Match.Status.FAILED])
    ids = tuple(ended.values_list("pk", flat=True))
    fields = {"status": Match.Status.QUEUED, "finished_at": None, "failure_reason": reason, **_RELEASED}
    if fresh_attempts:
        fields["attempts"] = 0
    requeued = ended.filter(pk__in=ids).update(**fields)
    if requeued:
        events.emit(events.MatchRequeued(ids))
    return requeued


def alive_since(now: datetime | None = None) -> datetime:
    """The moment after which a worker seen is alive (``WORKER_ALIVE`` before ``now``)."""
    return (now or timezone.now()) - WORKER_ALIVE


def beating_workers(now: datetime | None = None):
    """The matches beaten on by a worker that is alive, as a queryset (one row a match, ``worker_id`` set). A match
    that keeps its worker is running or has ended since its last beat (a released one has no worker): so the
    status and finished-at indexes find them all, and the read never walks the whole table (heartbeat_at has no
    index, which would make every beat a costlier write)."""
    since = alive_since(now)
    return Match.objects.exclude(worker_id="").filter(Q(status=Match.Status.RUNNING) | Q(finished_at__gte=since),
                                                      heartbeat_at__gte=since)


def alive_worker_ids(now: datetime | None = None) -> set[str]:
    """The workers alive: those that asked for work or beat on a match since ``alive_since(now)``."""
    since = alive_since(now)
    asked = Worker.objects.filter(seen_at__gte=since).values_list("worker_id", flat=True)
    return set(asked) | set(beating_workers(now).values_list("worker_id", flat=True).order_by().distinct())
