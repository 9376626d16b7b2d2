"""A claimed match's lease, kept while it is played: the heartbeat thread and the match's own time limit."""

from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import contextmanager

from celery.exceptions import SoftTimeLimitExceeded
from django.db import close_old_connections, connection

from tournaments.services import matches as match_services

log = logging.getLogger("play.lease")


class LeaseLost(RuntimeError):
    """The match is no longer ours: requeued by the scavenger, cancelled, or finished elsewhere."""


class Heartbeat:
    """A thread that extends the lease every ``interval`` seconds while the match is played, until
    ``seconds`` have passed: a worker wedged past its match's hard limit lets the lease lapse, and
    the scavenger gives the match to another."""

    def __init__(self, match_id: int, lease_token, interval: float, seconds: float = float("inf")):
        self.match_id, self.lease_token, self.interval = match_id, lease_token, interval
        self.until = time.monotonic() + seconds
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{match_id}", daemon=True)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                if time.monotonic() > self.until:
                    log.error("match %s: still playing past its hard limit; the lease is left to lapse",
                              self.match_id)
                    return
                try:
                    if not match_services.heartbeat(self.match_id, self.lease_token):
                        log.warning("match %s: heartbeat refused, the lease is no longer ours", self.match_id)
                        self.lost.set()
                        return
                except Exception:  # a database blip: the next beat may get through before the lease ends
                    log.exception("match %s: heartbeat failed", self.match_id)
                    close_old_connections()
        finally:
            connection.close()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval + 5)


@contextmanager
def deadline(seconds: float):
    """``SoftTimeLimitExceeded`` in this thread after ``seconds``: each match's own time limit, inside a
    task whose Celery limit is the longest any match may take (the task does not know in advance which
    match it will claim). Only the main thread gets signals: elsewhere (a thread pool) the task's own
    limit and the heartbeat's are what is left."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum, frame):
        raise SoftTimeLimitExceeded(f"over its own time limit of {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
