"""Games being played now, for their watchers: the worker publishes the game so far to the cache after
every ply, the game page of a running match reads it. Nothing here is the source of truth (the database
is, once the match is finished); a cache that does not answer only means nobody can watch."""

from __future__ import annotations

import logging

from django.core.cache import cache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

KEEP_SECONDS = 3600  # a live entry outlives its match's lease by far; the finished match replaces it
CACHE_DOWN = (RedisError, OSError)


def _key(match_id: int) -> str:
    return f"live:match:{match_id}"


def publish(match_id: int, number: int, record: dict) -> None:
    """The game ``number`` of the match so far, record-shaped (``initial``, ``actions``, ``times``; ``winner``
    and ``reason`` once it is over). Only the referee's fields: never what the bots wrote (stderr, log)."""
    shown = {key: record[key] for key in ("game", "ruleset", "settings", "initial", "actions", "times", "winner",
                                          "reason", "plies", "final", "white", "black", "tc") if key in record}
    try:
        cache.set(_key(match_id), {"number": number, "record": shown}, KEEP_SECONDS)
    except CACHE_DOWN as error:
        log.warning("live match %s: not published (%s)", match_id, error)


def current(match_id: int) -> dict | None:
    """``{"number": n, "record": {...}}`` of the game the match is playing (or played last), or None."""
    try:
        return cache.get(_key(match_id))
    except CACHE_DOWN as error:
        log.warning("live match %s: not read (%s)", match_id, error)
        return None
