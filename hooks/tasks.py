"""The hooks' tasks, on their own queue (``arena.hooks``): a notice's deliveries made and queued (``fan_out``), and
each delivery POSTed, the tries further and further apart until ``WEBHOOK_MAX_ATTEMPTS`` are spent, each owner's
within their share of the hooks worker's minute (``postponed``)."""

from __future__ import annotations

import logging
import time

from celery import shared_task
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from knobs import arena
from knobs.cache import CACHE_DOWN, kept

from . import sending
from .models import Delivery, Endpoint, Notice

log = logging.getLogger("hooks.tasks")


def backoff(attempts: int) -> float:
    return arena.WEBHOOK_RETRY_SECONDS * 2 ** (attempts - 1)


def spent_key(owner_id: int, minute: int) -> str:
    return f"hooks:spent:{owner_id}:{minute}"


def postponed(owner_id: int) -> float:
    """Seconds until the owner's deliveries may be tried again: 0 while this minute's ``WEBHOOK_SECONDS_A_MINUTE``
    of the hooks worker's time is not spent yet. (The hooks worker serves everyone: a player whose five receivers
    each take the whole timeout would otherwise hold it, and everyone's deliveries would wait behind theirs.)"""
    now = time.time()
    spent_ms = kept(spent_key(owner_id, int(now // 60))) or 0
    return 0.0 if spent_ms < arena.WEBHOOK_SECONDS_A_MINUTE * 1000 else 60 - now % 60


def charge(owner_id: int, seconds: float) -> None:
    """Count a try's time against its owner's minute; a cache that does not answer counts nothing (logged)."""
    key = spent_key(owner_id, int(time.time() // 60))
    try:
        cache.add(key, 0, 120)
        cache.incr(key, int(seconds * 1000))
    except (*CACHE_DOWN, ValueError) as error:  # ValueError: the key expired between the two
        log.warning("hooks: %.1f s of player %s's deliveries not counted (%s)", seconds, owner_id, error)


def queue_deliveries(notices, endpoints=None) -> list[Delivery]:
    """A delivery per active endpoint of each notice's owner (or per one of ``endpoints``), each sent to the
    ``arena.hooks`` queue once its row is committed (the task must find it)."""
    by_owner = {notice.owner_id: notice for notice in notices}
    targets = endpoints if endpoints is not None else Endpoint.objects.filter(owner__in=by_owner, active=True)
    deliveries = Delivery.objects.bulk_create([Delivery(endpoint=endpoint, notice=by_owner[endpoint.owner_id])
                                               for endpoint in targets])
    for delivery in deliveries:
        transaction.on_commit(lambda pk=delivery.pk: deliver.apply_async((pk,)))
    return deliveries


@shared_task(name="hooks.fan_out", ignore_result=True)
def fan_out(notice_ids=None, *extra, **unexpected) -> int | None:
    """The deliveries of notices written on the match worker's thread (``services.notify``); a message run twice
    (a worker lost before its acknowledgement) finds its notices delivered already and makes none."""
    if (extra or unexpected or not isinstance(notice_ids, list)
            or not all(isinstance(pk, int) and not isinstance(pk, bool) for pk in notice_ids)):
        log.warning("rejected task message: hooks.fan_out takes one list of notice ids, got %r %r %r", notice_ids,
                    extra, unexpected)
        return None
    with transaction.atomic():
        waiting = Notice.objects.filter(pk__in=notice_ids, deliveries__isnull=True)
        return len(queue_deliveries(waiting))


@shared_task(name="hooks.deliver", bind=True, ignore_result=True, max_retries=None)
def deliver(self, delivery_id=None, *extra, **unexpected) -> str | None:
    if extra or unexpected or isinstance(delivery_id, bool) or not isinstance(delivery_id, int):
        log.warning("rejected task message: hooks.deliver takes one delivery id, got %r %r %r", delivery_id, extra,
                    unexpected)
        return None
    delivery = (Delivery.objects.select_related("endpoint", "notice")
                .filter(pk=delivery_id, status=Delivery.Status.PENDING).first())
    if delivery is None:  # delivered, given up, or its endpoint removed: nothing to do
        return None
    owner = delivery.endpoint.owner_id
    wait = postponed(owner)
    if wait:  # their share of this minute is spent: a later try, none counted (the countdown is the broker's)
        Delivery.objects.filter(pk=delivery.pk).update(error=(  # what the owner's log says meanwhile
            f"waiting {wait:.0f} s: your deliveries took their {arena.WEBHOOK_SECONDS_A_MINUTE:g} s of this minute"))
        raise self.retry(countdown=wait)
    started = time.monotonic()
    outcome = sending.post(delivery.endpoint.url, delivery.endpoint.secret, delivery.notice.event,
                           sending.encode(delivery.notice.body))
    charge(owner, time.monotonic() - started)
    delivery.attempts += 1
    delivery.last_attempt = timezone.now()
    delivery.response_code, delivery.error = outcome.code, outcome.error
    if outcome.delivered:
        delivery.status, delivery.delivered = Delivery.Status.DELIVERED, delivery.last_attempt
    elif outcome.final or delivery.attempts >= arena.WEBHOOK_MAX_ATTEMPTS:
        delivery.status = Delivery.Status.FAILED
    delivery.save(update_fields=["attempts", "last_attempt", "response_code", "error", "status", "delivered"])
    if delivery.status == Delivery.Status.PENDING:
        raise self.retry(countdown=backoff(delivery.attempts))
    return delivery.status
