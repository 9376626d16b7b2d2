"""The cache's one failure and its two moves: what it raises when it does not answer (Redis down or unreachable;
the per-process and file caches of the embedded stack do not fail so), and reading or keeping a value without failing
for it. Everything the arena keeps there is a shortcut: a caller goes on without it."""

from __future__ import annotations

import logging

from django.core.cache import cache
from redis.exceptions import RedisError

log = logging.getLogger("arena.cache")

CACHE_DOWN = (RedisError, OSError)


def kept(key: str):
    """The cache's value for ``key``; None when it has none, or does not answer (logged)."""
    try:
        return cache.get(key)
    except CACHE_DOWN as error:
        log.warning("cache: %s not read (%s)", key, error)
        return None


def keep(key: str, value, seconds: float | None) -> None:
    """Keep ``value`` under ``key`` for ``seconds``; a cache that does not answer is logged and passed over."""
    try:
        cache.set(key, value, seconds)
    except CACHE_DOWN as error:
        log.warning("cache: %s not kept (%s)", key, error)
