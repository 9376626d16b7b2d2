"""What every Server-Sent Events stream of the arena shares (the live page's, the owner's events feed): its
bounds, its heartbeat, the browser's reconnect delay, and the count of streams a process holds."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse

from .throttles import client_address

STREAM_SECONDS = 25.0  # under gunicorn's 60 s worker timeout (docker-compose.yml), so a stream never trips it
STREAM_BYTES = 64 * 1024  # below a loopback socket's default buffers (128 KiB to receive, 16 KiB to send)
HEARTBEAT_SECONDS = 10.0  # a comment line now and then: proxies keep the connection, a gone client is noticed
RETRY_MS = 500  # the browser reconnects this soon after a stream ends


PER_CLIENT = 4  # streams one client (an account; a visitor: an address) may hold in one process
FULL, YOURS = "full", "yours"  # why a slot was not taken: the process's are all held, or the client holds its own


def client_of(request) -> str:
    """Whose a stream is, for ``PER_CLIENT``: the account, else the address as the throttles count it."""
    if request.user.is_authenticated:
        return f"account:{request.user.pk}"
    return f"address:{client_address(request)}"


class Slots:
    """The streams this process serves now (each holds a server thread), by client: one client that opens stream
    after stream (a rate the throttle allows) would otherwise hold them all."""

    def __init__(self, size: int, per_client: int = PER_CLIENT):
        self.size, self.per_client, self.held, self.lock = size, per_client, Counter(), threading.Lock()

    @property
    def used(self) -> int:
        return sum(self.held.values())

    def take(self, client: str) -> str | None:
        """None when a slot is now the client's; else why not (``FULL`` or ``YOURS``)."""
        with self.lock:
            if self.held[client] >= self.per_client:
                return YOURS
            if self.used >= self.size:
                return FULL
            self.held[client] += 1
            return None

    def give_back(self, client: str) -> None:
        with self.lock:
            self.held[client] -= 1
            if not self.held[client]:
                del self.held[client]


def open_stream(request, slots: Slots, events: Iterator[bytes], say) -> HttpResponse:
    """``events`` as a Server-Sent Events response holding one of ``slots``, or the refusal: 503 on a server
    without threads (a stream would hold its only one) or with every slot held, 429 to a client that holds its
    share. ``say(text)`` shapes a refusal's detail as the caller's door does."""
    if request.META.get("wsgi.multithread") is False:  # e.g. gunicorn's sync workers
        return JsonResponse({"detail": say("this server answers one request at a time per process")}, status=503,
                            headers={"Retry-After": "60"})
    client = client_of(request)
    why = slots.take(client)
    if why == YOURS:
        return JsonResponse({"detail": say(f"you hold {slots.per_client} streams on this server already, the most "
                                           "one client may: close one")}, status=429, headers={"Retry-After": "30"})
    if why == FULL:
        return JsonResponse({"detail": say("too many streams on this server now")}, status=503,
                            headers={"Retry-After": "30"})
    response = StreamingHttpResponse(Body(events, slots, client), content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on as it comes
    return response


class Body:
    """A stream's events as a response body whose ``close()`` gives its slot back: the WSGI server calls it when
    the response ends, read or not."""

    def __init__(self, events: Iterator[bytes], slots: Slots, client: str):
        self.events, self.slots, self.client, self.closed = events, slots, client, False

    def __iter__(self):
        return self.events

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.events.close()
            self.slots.give_back(self.client)
