"""Sending "play match N" messages, and finding the matches whose message was lost.

Every message goes through ``send_match``, which stamps ``Dispatch.sent_at``. The dispatcher re-sends
a queued match only when its last message is older than the grace period *and* the broker's queue
is empty, i.e. no message for it can still be waiting: a long backlog is never duplicated, a lost
message (Redis restarted without its data, a purged queue) is replaced within one period.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db.models import F, Q
from django.utils import timezone

from tournaments.models import BotVersion, Match
from tournaments.services import matches as match_services

from . import conf
from .models import Dispatch
from .schedule import match_time_limits

log = logging.getLogger("workers.dispatching")

DISPATCH_BATCH = 500
SENT_FIELDS = ("pk", "game", "time_control", "games_per_match")


def send_match(match_id: int) -> bool:
    """Queue one message for a queued match with time limits from its time control; False if not queued."""
    match = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).values(*SENT_FIELDS).first()
    if match is None:
        return False
    _send(match)
    return True


def _send(match: dict) -> None:
    """The message for a queued match's ``SENT_FIELDS`` row, and its ``Dispatch`` stamp."""
    from .tasks import run_match

    match_id = match["pk"]
    limits = match_time_limits(match["game"], match["time_control"], match["games_per_match"])
    run_match.apply_async(args=[match_id], soft_time_limit=limits.soft, time_limit=limits.hard)
    now = timezone.now()
    updated = Dispatch.objects.filter(match_id=match_id).update(sent_at=now, sends=F("sends") + 1)
    if not updated:
        Dispatch.objects.get_or_create(match_id=match_id, defaults={"sent_at": now, "sends": 1})


def broker_queue_depth() -> int | None:
    """Messages waiting in the default queue, or None when the broker cannot say."""
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            declared = conn.default_channel.queue_declare(app.conf.task_default_queue, passive=True)
            return int(declared.message_count)
    except Exception as error:  # noqa: BLE001 - an unknown depth only makes the dispatcher cautious
        log.info("broker queue depth unknown: %s", error)
        return None


def dispatch_queued(now=None) -> list[int]:
    """Send every queued match never sent, and re-send those whose message must have been lost."""
    now = now or timezone.now()
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    never = list(queued.filter(dispatch__isnull=True).order_by("created_at", "pk")
                 .values(*SENT_FIELDS)[:DISPATCH_BATCH])
    stale_before = now - timedelta(seconds=conf.dispatch_grace_seconds())
    stale = list(queued.filter(dispatch__sent_at__lt=stale_before).order_by("dispatch__sent_at", "pk")
                 .values(*SENT_FIELDS)[:DISPATCH_BATCH])
    if stale and broker_queue_depth():  # messages still waiting: one of them may be for these matches
        stale = []
    for match in never + stale:  # just read as queued: no second look per match
        _send(match)
    if stale:
        log.warning("re-sent %d queued matches whose message was lost: %s", len(stale),
                    [match["pk"] for match in stale[:20]])
    return [match["pk"] for match in never + stale]


def scavenge(now=None) -> list[int]:
    """Matches whose lease ran out go back to the queue (or fail after too many attempts) and are re-sent."""
    requeued = match_services.requeue_expired_matches(now)
    rows = Match.objects.filter(pk__in=requeued).order_by("pk").values(*SENT_FIELDS, "status", "attempts",
                                                                       "failure_reason")
    for match in rows:
        if match["status"] == Match.Status.QUEUED:
            log.warning("match %s: lease expired after attempt %s, requeued", match["pk"], match["attempts"])
            _send(match)
        else:
            log.error("match %s: %s (%s)", match["pk"], match["status"], match["failure_reason"])
    return requeued


def pending_versions(now=None) -> list[int]:
    """Versions still waiting for their smoke test after the grace period (their message was lost)."""
    now = now or timezone.now()
    before = now - timedelta(seconds=conf.dispatch_grace_seconds())
    return list(BotVersion.objects.filter(Q(status=BotVersion.Status.PENDING), uploaded_at__lt=before)
                .order_by("uploaded_at").values_list("pk", flat=True)[:DISPATCH_BATCH])
