"""The owner's events feed (``/api/events/stream/``): Server-Sent Events carrying the notices the webhooks carry
(``hooks.models.Notice``, the same JSON), read from the database, bounded as the live page's streams are."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from hooks.models import Notice
from hooks.sending import encode

from .streaming import HEARTBEAT_SECONDS, RETRY_MS, STREAM_BYTES, STREAM_SECONDS, Slots

STREAMS_PER_PROCESS = 16  # beside the live pages' 32 (web.streams): each holds a server thread
TICK_SECONDS = 1.0  # how often a feed asks the database for new notices (one indexed query)
BACKLOG = 50  # a feed resumed after a long absence sends at most the last this many notices it missed
LAST_ID = re.compile(r"\d{1,18}")

SLOTS = Slots(STREAMS_PER_PROCESS)


class BadResume(ValueError):
    pass


def resume_point(last_event_id: str | None, owner_id: int) -> int:
    """The notice id after which the feed starts: the reconnecting browser's Last-Event-ID, else the newest."""
    if last_event_id:
        if not LAST_ID.fullmatch(last_event_id):
            raise BadResume("Last-Event-ID must be a notice id, as the feed's own ids are")
        return int(last_event_id)
    return Notice.objects.filter(owner_id=owner_id).order_by("-pk").values_list("pk", flat=True).first() or 0


def events(owner_id: int, after: int) -> Iterator[bytes]:
    started = last_write = time.monotonic()
    written = 0
    yield f"retry: {RETRY_MS}\n\n".encode()
    while time.monotonic() - started < STREAM_SECONDS and written < STREAM_BYTES:
        newest = list(Notice.objects.filter(owner_id=owner_id, pk__gt=after).order_by("-pk")[:BACKLOG])
        for notice in reversed(newest):
            event = b"id: %d\nevent: %s\ndata: %s\n\n" % (notice.pk, notice.event.encode(), encode(notice.body))
            written += len(event)
            after, last_write = notice.pk, time.monotonic()
            yield event
        if time.monotonic() - last_write > HEARTBEAT_SECONDS:
            last_write = time.monotonic()
            yield b": still listening\n\n"
        time.sleep(TICK_SECONDS)
