"""What every Server-Sent Events stream of the arena shares (the live page's, the owner's events feed): its
bounds, its heartbeat, the browser's reconnect delay, and the count of streams a process holds."""

from __future__ import annotations

import threading
from collections.abc import Iterator

STREAM_SECONDS = 25.0  # under gunicorn's 60 s worker timeout (docker-compose.yml), so a stream never trips it
STREAM_BYTES = 64 * 1024  # below a loopback socket's default buffers (128 KiB to receive, 16 KiB to send)
HEARTBEAT_SECONDS = 10.0  # a comment line now and then: proxies keep the connection, a gone client is noticed
RETRY_MS = 500  # the browser reconnects this soon after a stream ends


class Slots:
    """How many streams this process serves now (each holds a server thread)."""

    def __init__(self, size: int):
        self.size, self.used, self.lock = size, 0, threading.Lock()

    def take(self) -> bool:
        with self.lock:
            if self.used >= self.size:
                return False
            self.used += 1
            return True

    def give_back(self) -> None:
        with self.lock:
            self.used -= 1


class Body:
    """A stream's events as a response body whose ``close()`` gives its slot back: the WSGI server calls it when
    the response ends, read or not."""

    def __init__(self, events: Iterator[bytes], slots: Slots):
        self.events, self.slots, self.closed = events, slots, False

    def __iter__(self):
        return self.events

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.events.close()
            self.slots.give_back()
