"""Sending wake-ups ("there is work"), and finding the queued matches whose wake-up was lost."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app
from django.db.models import F, Q
from django.utils import timezone

from play.limits import wakeup_time_limits
from tournaments.models import BotVersion, Match
from tournaments.services import matches as match_services
from tournaments.services.uploads import SMOKE_LEASE_SECONDS

from . import conf
from .models import Dispatch

log = logging.getLogger("workers.dispatching")
# Wake-ups are sent through the Celery app's task registry, by the task's name ("workers.play_next"), as a
# message is addressed: the sender needs the broker, not the code that answers it, so this module stays
# below workers.tasks, which calls it. WorkersConfig.ready registers the tasks in every process.

DISPATCH_BATCH = 500


def send_match(match_id: int) -> bool:
    """A wake-up on account of a queued match; False (nothing sent) if it is not queued."""
    if not Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).exists():
        return False
    _send(match_id)
    return True


def _send(match_id: int) -> None:
    """A wake-up for a worker, with the longest time limits any match may need (the worker holds the
    match it claims to that match's own limits) plus the time it may go on claiming the next ones
    (``play.limits.wakeup_time_limits``), and the ``Dispatch`` stamp of the match it is for."""
    cap = wakeup_time_limits()
    current_app.tasks["workers.play_next"].apply_async(soft_time_limit=cap.soft, time_limit=cap.hard)
    now = timezone.now()
    updated = Dispatch.objects.filter(match_id=match_id).update(sent_at=now, sends=F("sends") + 1)
    if not updated:
        Dispatch.objects.get_or_create(match_id=match_id, defaults={"sent_at": now, "sends": 1})


def send_smoke_test() -> None:
    """A wake-up on the housekeeping queue for a pending version's smoke test."""
    current_app.tasks["workers.smoke_next"].delay()


def broker_queue_depth() -> int | None:
    """Messages waiting in the default queue, or None when the broker cannot say."""
    try:
        with current_app.connection_for_write() as conn:
            declared = conn.default_channel.queue_declare(current_app.conf.task_default_queue, passive=True)
            return int(declared.message_count)
    except Exception as error:  # noqa: BLE001 - an unknown depth only makes the dispatcher cautious
        log.info("broker queue depth unknown: %s", error)
        return None


def dispatch_queued(now=None) -> list[int]:
    """Wake-ups for every queued match never sent, and for those whose wake-up must have been lost."""
    now = now or timezone.now()
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    never = list(queued.filter(dispatch__isnull=True).order_by("created_at", "pk")
                 .values_list("pk", flat=True)[:DISPATCH_BATCH])
    stale_before = now - timedelta(seconds=conf.dispatch_grace_seconds())
    stale = list(queued.filter(dispatch__sent_at__lt=stale_before).order_by("dispatch__sent_at", "pk")
                 .values_list("pk", flat=True)[:DISPATCH_BATCH])
    if stale and broker_queue_depth():  # wake-ups still waiting: they will serve these matches
        stale = []
    for match_id in never + stale:  # just read as queued: no second look per match
        _send(match_id)
    if stale:
        log.warning("re-sent wake-ups for %d queued matches whose message was lost: %s", len(stale), stale[:20])
    return never + stale


def scavenge(now=None) -> list[int]:
    """Matches whose lease ran out go back to the queue (or fail after too many attempts), each re-sent by the
    MatchRequeued reaction."""
    requeued = match_services.requeue_expired_matches(now)
    rows = Match.objects.filter(pk__in=requeued).order_by("pk").values("pk", "status", "attempts", "failure_reason")
    for match in rows:
        if match["status"] == Match.Status.QUEUED:
            # its wake-up is the reaction to MatchRequeued (api.reactions), sent once the requeue committed
            log.warning("match %s: lease expired after attempt %s, requeued", match["pk"], match["attempts"])
        else:
            log.error("match %s: %s (%s)", match["pk"], match["status"], match["failure_reason"])
    return requeued


def pending_versions(now=None) -> list[int]:
    """Versions still waiting for their smoke test after the grace period, no worker holding it (their
    wake-up was lost, or the worker that took it died)."""
    now = now or timezone.now()
    before = now - timedelta(seconds=conf.dispatch_grace_seconds())
    held = now - timedelta(seconds=SMOKE_LEASE_SECONDS)
    free = Q(smoke_started_at__isnull=True) | Q(smoke_started_at__lt=held)
    return list(BotVersion.objects.filter(free, status=BotVersion.Status.PENDING, uploaded_at__lt=before)
                .order_by("uploaded_at").values_list("pk", flat=True)[:DISPATCH_BATCH])
