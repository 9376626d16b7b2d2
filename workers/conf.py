"""The workers' own knobs, read through ``knobs.arena`` (declared in knobs, read from the environment by
config); a match's time limits and heartbeat are ``play.limits``'."""

from __future__ import annotations

from knobs import arena


def dispatch_grace_seconds() -> float:
    """A queued match older than this with no claim has probably lost its message: send another."""
    return float(arena.DISPATCH_GRACE_SECONDS)


def ladder_target_queued() -> int:
    """Open (queued or running) ranked matches per game the scheduler keeps at most."""
    return int(arena.LADDER_QUEUED_PER_GAME)


def ladder_queued_per_worker() -> int:
    """Queued matches per worker (seen lately) beyond which the ladder queues no more: enough that a
    worker finishing a match finds the next, few enough that a pairing is played soon after it is made."""
    return int(arena.LADDER_QUEUED_PER_WORKER)


def owner_share() -> float:
    """The largest fraction of one game's queued ranked matches one owner's bots may take part in."""
    return float(arena.LADDER_OWNER_SHARE)


def placement_games() -> int:
    """Ranked matches a new version plays before ordinary pairing by rating."""
    return int(arena.LADDER_PLACEMENT_MATCHES)
