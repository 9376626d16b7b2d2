"""A player's endpoints (made, listed, removed) and what follows an event: a notice per owner, a delivery per
active endpoint of theirs, each sent to the ``arena.hooks`` queue (never the matches' queue: a slow receiver
delays no match)."""

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
        return _publish(name, owner_ids, data, endpoints)


def _publish(name: str, owner_ids, data: dict, endpoints) -> list[Notice]:
    made = Notice.objects.bulk_create([Notice(owner_id=owner, event=name, payload=data) for owner in owner_ids])
    by_owner = {notice.owner_id: notice for notice in made}
    targets = endpoints if endpoints is not None else Endpoint.objects.filter(owner__in=by_owner, active=True)
    deliveries = Delivery.objects.bulk_create([Delivery(endpoint=endpoint, notice=by_owner[endpoint.owner_id])
                                               for endpoint in targets])
    for delivery in deliveries:  # once committed: the task must find its row
        transaction.on_commit(lambda pk=delivery.pk: tasks.deliver.apply_async((pk,)))
    return made


def notify(event) -> None:
    """The reaction to an event about bots (``api.reactions``): its owners hear of it."""
    name, owner_ids, data = notices.DESCRIBE[type(event)](event)
    if owner_ids:
        publish(name, owner_ids, data)


def send_test(endpoint: Endpoint) -> Delivery:
    """A ``ping`` to one endpoint (active or not), as the owner asks: to check their receiver."""
    (notice,) = publish(notices.PING, [endpoint.owner_id], {"endpoint": endpoint.pk}, endpoints=[endpoint])
    return notice.deliveries.get()
