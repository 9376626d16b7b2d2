"""A player's endpoints (made, listed, removed) and what follows an event: a notice per owner, written at once, and
its deliveries made and sent by the ``arena.hooks`` queue's tasks (never the matches' queue: a slow receiver
delays no match, and a match worker's report finds no endpoint)."""

from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.db import transaction

from knobs import arena

from . import notices, tasks
from .addresses import BadAddress, check_destination
from .models import Delivery, Endpoint, Notice

LOG_LENGTH = 20  # the deliveries a player's page shows


def bad(field: str, message: str) -> ValidationError:
    """The refusal of a webhook that may not be made, naming the input at fault (a 400 in the API)."""
    return ValidationError({field: [message]})


def endpoints_of(owner):
    return Endpoint.objects.filter(owner=owner)


def deliveries_of(owner):
    """The owner's delivery log, newest first (no secret in it)."""
    return Delivery.objects.filter(endpoint__owner=owner).select_related("notice", "endpoint")


def create_endpoint(owner, url: str, secret: str = "") -> Endpoint:
    """A new active endpoint: the URL checked (scheme, and every address the host resolves to), at most
    ``WEBHOOK_MAX_ENDPOINTS`` per player, the secret generated when none is given."""
    try:
        check_destination(url)
    except BadAddress as refused:
        raise bad("url", f"url {refused}") from None
    if len(secret) > 128 or (secret and len(secret) < 16):
        raise bad("secret", "secret must be from 16 to 128 characters (or left out: one is made for you)")
    limit = arena.WEBHOOK_MAX_ENDPOINTS
    with transaction.atomic():
        if Endpoint.objects.select_for_update().filter(owner=owner).count() >= limit:
            raise bad("url", f"you have {limit} webhooks already, the most a player may have: remove one")
        return Endpoint.objects.create(owner=owner, url=url, secret=secret or secrets.token_urlsafe(32))


def remove_endpoint(endpoint: Endpoint) -> None:
    endpoint.delete()  # its deliveries with it; a delivery already queued finds nothing and stops


def publish(name: str, owner_ids, data: dict, endpoints=None) -> list[Notice]:
    """One notice per owner and a queued delivery per active endpoint of theirs (or of ``endpoints`` only)."""
    with transaction.atomic():  # the feed never sees a notice before its body
        made = write_notices(name, owner_ids, data)
        tasks.queue_deliveries(made, endpoints)
        return made


def write_notices(name: str, owner_ids, data: dict) -> list[Notice]:
    return Notice.objects.bulk_create([Notice(owner_id=owner, event=name, payload=data) for owner in owner_ids])


def notify(event) -> None:
    """The reaction to an event about bots (``api.reactions``): its owners hear of it. On the reporting worker's
    thread only the event's read, the notices' one INSERT (the feed has them even if the broker loses the
    message) and, when an owner has an active endpoint, one message: the deliveries are the ``hooks.fan_out``
    task's, on the ``arena.hooks`` queue. Most owners have no endpoint: the indexed look costs the worker what the
    message did (0.4 ms each, median, on Redis and PostgreSQL), and spares the hooks worker a task, its queries
    and its log lines for every match that nobody's webhook hears of."""
    name, owner_ids, data = notices.DESCRIBE[type(event)](event)
    if owner_ids:
        notice_ids = [notice.pk for notice in write_notices(name, owner_ids, data)]
        if Endpoint.objects.filter(owner__in=owner_ids, active=True).exists():
            transaction.on_commit(lambda: tasks.fan_out.apply_async((notice_ids,)))


def send_test(endpoint: Endpoint) -> Delivery:
    """A ``ping`` to one endpoint (active or not), as the owner asks: to check their receiver."""
    (notice,) = publish(notices.PING, [endpoint.owner_id], {"endpoint": endpoint.pk}, endpoints=[endpoint])
    return notice.deliveries.get()
