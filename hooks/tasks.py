"""The delivery task, on its own queue (``arena.hooks``, config/settings.py): one POST per try, the tries
further and further apart until ``WEBHOOK_MAX_ATTEMPTS`` are spent; the row says each try's answer."""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from knobs import arena

from . import sending
from .models import Delivery

log = logging.getLogger("hooks.tasks")


def backoff(attempts: int) -> float:
    return arena.WEBHOOK_RETRY_SECONDS * 2 ** (attempts - 1)


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
    outcome = sending.post(delivery.endpoint.url, delivery.endpoint.secret, delivery.notice.event,
                           sending.encode(delivery.notice.body))
    delivery.attempts += 1
    delivery.last_attempt = timezone.now()
    delivery.response_code, delivery.error = outcome.code, outcome.error
    if outcome.delivered:
        delivery.status, delivery.delivered = Delivery.Status.DELIVERED, delivery.last_attempt
    elif outcome.error.startswith("refused") or delivery.attempts >= arena.WEBHOOK_MAX_ATTEMPTS:
        delivery.status = Delivery.Status.FAILED
    delivery.save(update_fields=["attempts", "last_attempt", "response_code", "error", "status", "delivered"])
    if delivery.status == Delivery.Status.PENDING:
        raise self.retry(countdown=backoff(delivery.attempts))
    return delivery.status

