"""What the configured cache raises when it does not answer (Redis down or unreachable; the per-process and file
caches of the embedded stack do not fail so). Everything the arena keeps there is a shortcut: a caller that catches
``CACHE_DOWN`` goes on without it, never fails for it."""

from __future__ import annotations

from redis.exceptions import RedisError

CACHE_DOWN = (RedisError, OSError)
