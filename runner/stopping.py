"""A request that this process stop playing: every game it plays ends at its next wait on a bot, with no result."""

from __future__ import annotations

import threading

requested = threading.Event()


class Stopped(Exception):
    """A game (or the smoke test) was stopped because its process is stopping: it has no result."""


def check() -> None:
    """``Stopped`` if this process was asked to stop."""
    if requested.is_set():
        raise Stopped("stopped: the worker is stopping")
