"""A match played in a test as a worker plays it: the very call the ``workers.play_next`` task makes
(claim, heartbeats, the sandbox, then the report or the requeue), in this process and without a broker."""

from __future__ import annotations

from tournaments.models import Match
from workers import playing


def play(match_id: int, worker_id: str = "test-worker") -> Match:
    """Play queued match ``match_id``, which must be the first work in the queue (no pending smoke test,
    no queued match before it); returns the match as stored afterwards."""
    attempts = Match.objects.values_list("attempts", flat=True).get(pk=match_id)
    outcome = playing.play_next(worker_id)
    match = Match.objects.get(pk=match_id)
    assert match.attempts == attempts + 1, f"the worker did other work ({outcome}), not match {match_id}"
    return match
