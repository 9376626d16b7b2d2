"""The workers' own knobs: from ``settings.ARENA`` when the settings define them, else the environment."""

from __future__ import annotations

import os

from django.conf import settings


def _arena(name: str, default: int | float) -> float:
    arena = getattr(settings, "ARENA", {}) or {}
    if name in arena:
        return arena[name]
    raw = os.environ.get(f"ARENA_{name}")
    if raw in (None, ""):
        return default
    try:
        return type(default)(raw)
    except ValueError:
        raise ValueError(f"ARENA_{name} must be a number, got {raw!r}") from None


def heartbeat_seconds() -> float:
    """How often a playing worker extends its lease: a few beats per lease so one late beat is harmless.

    The lease itself (and the attempts before a match fails) belong to the match services, which
    read ``settings.ARENA`` directly; the default here follows the same setting.
    """
    return float(_arena("HEARTBEAT_SECONDS", max(0.2, settings.ARENA["MATCH_LEASE_SECONDS"] / 4)))


def scavenge_seconds() -> float:
    return float(_arena("SCAVENGE_SECONDS", 30.0))


def dispatch_seconds() -> float:
    return float(_arena("DISPATCH_SECONDS", 30.0))


def schedule_seconds() -> float:
    return float(_arena("SCHEDULE_SECONDS", 60.0))


def dispatch_grace_seconds() -> float:
    """A queued match older than this with no claim has probably lost its message: send another."""
    return float(_arena("DISPATCH_GRACE_SECONDS", 60.0))


def max_match_seconds() -> int:
    """The hard time limit no match task exceeds; the Redis visibility timeout sits above it."""
    return int(_arena("MAX_MATCH_SECONDS", 4 * 3600))


def ladder_target_queued() -> int:
    """Open (queued or running) ranked matches per game the scheduler keeps at most."""
    return int(_arena("LADDER_QUEUED_PER_GAME", 8))


def ladder_queued_per_worker() -> int:
    """Queued matches per worker (seen lately) beyond which the ladder queues no more: enough that a
    worker finishing a match finds the next, few enough that a pairing is played soon after it is made."""
    return int(_arena("LADDER_QUEUED_PER_WORKER", 2))


def owner_share() -> float:
    """The largest fraction of one game's queued ranked matches one owner's bots may take part in."""
    return float(_arena("LADDER_OWNER_SHARE", 0.5))


def placement_games() -> int:
    """Ranked matches a new version plays before ordinary pairing by rating."""
    return int(_arena("LADDER_PLACEMENT_MATCHES", 3))
