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


def _key(match_id: int, number: int | None = None) -> str:
    return f"live:match:{match_id}" if number is None else f"live:match:{match_id}:{number}"


def publish(match_id: int, number: int, record: dict) -> None:
    """The game ``number`` of the match so far, record-shaped (``initial``, ``actions``, ``times``; ``winner``
    and ``reason`` once it is over). Only the referee's fields: never what the bots wrote (stderr, log).
    Each game keeps its own entry, so a watcher of game 1 still sees how it ended while game 2 is played."""
    shown = {key: record[key] for key in ("game", "ruleset", "settings", "initial", "actions", "times", "winner",
                                          "reason", "plies", "final", "white", "black", "tc") if key in record}
    try:
        cache.set_many({_key(match_id): number, _key(match_id, number): shown}, KEEP_SECONDS)
    except CACHE_DOWN as error:
        log.warning("live match %s: not published (%s)", match_id, error)


def current(match_id: int) -> int | None:
    """The number of the game the match is playing (or played last), or None."""
    return _read(_key(match_id))


def game(match_id: int, number: int) -> dict | None:
    """Game ``number`` of the match as far as it went, or None."""
    return _read(_key(match_id, number))


def _read(key: str):
    try:
        return cache.get(key)
    except CACHE_DOWN as error:
        log.warning("live games: %s not read (%s)", key, error)
        return None


# A finished game's replay for the live viewer (web.boards.replay of its stored record): computed once, kept like
# any game record (it never changes), so a watcher polling a finished game costs a cache read, not a replay.
REPLAY_SECONDS = 24 * 3600


def kept_replay(game_id: int) -> dict | None:
    return _read(f"live:replay:{game_id}")


def keep_replay(game_id: int, body: dict) -> None:
    try:
        cache.set(f"live:replay:{game_id}", body, REPLAY_SECONDS)
    except CACHE_DOWN as error:
        log.warning("live games: the replay of game %s not kept (%s)", game_id, error)
