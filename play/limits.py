"""Timing: each match's time limits, the heartbeat's pace and the Redis visibility timeout (config/settings.py sets
it)."""

from __future__ import annotations

from dataclasses import dataclass

from engines import get_game
from engines.protocol import TimeControl
from knobs import arena

STARTUP_S = 2 * 10.0 * 2  # both bots, `bgtp` and `ready` deadlines (protocol §5)
REFEREE_S_PER_PLY = 0.05  # move generation, pipes and logging the referee does per action
HARD_EXTRA_S = 30  # between the soft limit (clean requeue) and the hard kill
VISIBILITY_MARGIN_S = 3600


def heartbeat_seconds() -> float:
    """How often a playing worker extends its lease: by default a quarter of ``MATCH_LEASE_SECONDS``.

    The lease itself (and the attempts before a match fails) belong to the match services, which
    read ``knobs.arena``.
    """
    return float(arena.HEARTBEAT_SECONDS)


def max_match_seconds() -> int:
    """The hard time limit no match task exceeds; the Redis visibility timeout sits above it."""
    return int(arena.MAX_MATCH_SECONDS)


@dataclass(frozen=True)
class TimeLimits:
    soft: int
    hard: int


def worst_game_seconds(game_id: str, time_control: str) -> float:
    plies = get_game(game_id).max_plies
    return STARTUP_S + TimeControl.parse(time_control).thinking_seconds(plies) + plies * REFEREE_S_PER_PLY


def match_time_limits(game_id: str, time_control: str, games: int) -> TimeLimits:
    """Soft and hard limits for one run of a match task; never above ``conf.max_match_seconds``."""
    cap = max_match_seconds()
    soft = min(int(games * worst_game_seconds(game_id, time_control)) + 1, cap - HARD_EXTRA_S)
    return TimeLimits(soft=max(soft, 1), hard=max(soft, 1) + HARD_EXTRA_S)


def match_time_limits_cap() -> TimeLimits:
    """The longest any match may take (each match then keeps to its own limits)."""
    cap = max_match_seconds()
    return TimeLimits(soft=cap - HARD_EXTRA_S, hard=cap)


def wakeup_time_limits() -> TimeLimits:
    """The limits of a wake-up: the longest match, started up to ``CLAIM_AGAIN_SECONDS`` after the wake-up (a worker
    that finished a match claims the next itself for that long, ``claim_again_seconds``)."""
    cap, again = match_time_limits_cap(), int(arena.CLAIM_AGAIN_SECONDS)
    return TimeLimits(soft=cap.soft + again, hard=cap.hard + again)


def claim_again_seconds(hard: float | None, soft: float | None) -> float:
    """For how long a task with these Celery time limits (None: none) may claim another match: while the longest
    match started then still ends within them, and at most ``CLAIM_AGAIN_SECONDS``."""
    cap = match_time_limits_cap()
    room = [limit - longest for limit, longest in ((hard, cap.hard), (soft, cap.soft)) if limit]
    return max(0.0, min([float(arena.CLAIM_AGAIN_SECONDS), *room]))


def visibility_timeout() -> int:
    """Above the longest a wake-up's task may run, so Redis never hands it to a second worker meanwhile."""
    return wakeup_time_limits().hard + VISIBILITY_MARGIN_S
