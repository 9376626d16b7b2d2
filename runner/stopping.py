"""A request that this process stop playing: a worker sets it when it is told to stop (``workers.playing``), and
every game the process is playing sees it at its next wait on a bot (``runner.match.Pipes``, a quarter of a second
at most) and ends at once with ``Stopped``, no result: ``play_game``'s cleanup kills both bots and removes their
folders on the way out, and the caller gives the work back.

Process-wide on purpose: a stop comes by a signal, which is the process's, and it means every game in it.
"""

from __future__ import annotations

import threading

requested = threading.Event()


class Stopped(Exception):
    """A game (or the smoke test) was stopped because its process is stopping: it has no result."""


def check() -> None:
    """``Stopped`` if this process was asked to stop."""
    if requested.is_set():
        raise Stopped("stopped: the worker is stopping")
