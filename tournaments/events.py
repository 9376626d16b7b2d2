"""What happened in the domain, said once it is true: named events, delivered when their transaction commits."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchCreated:
    """A match was queued (a challenge, a tournament's pairing, an SPRT's pair, the ladder's pairing)."""

    match_id: int
    game: str
    bot_ids: tuple[int, int]
    tournament_id: int | None = None


@dataclass(frozen=True)
class MatchRequeued:
    """Matches went back to the queue (a lost lease, a void game, an operator, a resumed tournament)."""

    match_ids: tuple[int, ...]


@dataclass(frozen=True)
class MatchesCancelled:
    """Queued matches were cancelled (by their requester, a stopped test, a disabled version, a tournament)."""

    match_ids: tuple[int, ...]


@dataclass(frozen=True)
class MatchStarted:
    """A worker claimed a match: it is being played."""

    match_id: int


@dataclass(frozen=True)
class MatchFinished:
    """A match left play for good: its result stored (``finished``), or given up on (``failed``)."""

    match_id: int
    game: str
    bot_ids: tuple[int, int]
    status: str
    rated: bool = False
    tournament_id: int | None = None
    opening_suite_id: int | None = None


@dataclass(frozen=True)
class VersionJudged:
    """A version's smoke test decided it: ``ready`` to play, or ``rejected`` with a reason."""

    version_id: int
    bot_id: int
    game: str
    status: str


@dataclass(frozen=True)
class TournamentCreated:
    """A draft tournament was made (drafts are listed on the home page)."""

    tournament_id: int


@dataclass(frozen=True)
class TournamentCancelled:
    tournament_id: int


@dataclass(frozen=True)
class TournamentStarted:
    tournament_id: int
    game: str


@dataclass(frozen=True)
class TournamentRoundDone:
    """Every match of one round of a tournament has ended."""

    tournament_id: int
    round: int


@dataclass(frozen=True)
class TournamentFinished:
    tournament_id: int


@dataclass(frozen=True)
class SprtVerdict:
    """A running SPRT ended: ``passed``, ``failed``, ``inconclusive`` or ``stopped``."""

    test_id: int
    bot_id: int
    game: str
    state: str


@dataclass(frozen=True)
class RatingsRefitted:
    """A fit of these game ids' rated games was stored (the fitted leaderboard and ratings changed)."""

    games: tuple[str, ...]


EVENTS = (MatchCreated, MatchRequeued, MatchesCancelled, MatchStarted, MatchFinished, VersionJudged, TournamentCreated,
          TournamentCancelled, TournamentStarted, TournamentRoundDone, TournamentFinished, SprtVerdict,
          RatingsRefitted)

_reactions: dict[type, list[Callable]] = defaultdict(list)


def subscribe(kind: type, reaction: Callable) -> None:
    """Call ``reaction(event)`` for every ``kind`` of event once it commits (a second subscription of the same
    reaction is ignored: ``ready()`` may run twice in a test process)."""
    if kind not in EVENTS:
        raise ValueError(f"unknown event {kind!r}; known: {', '.join(event.__name__ for event in EVENTS)}")
    if reaction not in _reactions[kind]:
        _reactions[kind].append(reaction)


def reactions(kind: type) -> tuple[Callable, ...]:
    return tuple(_reactions[kind])


def emit(event) -> None:
    """Deliver ``event`` to its reactions once the current transaction commits (at once outside one)."""
    if type(event) not in EVENTS:
        raise ValueError(f"unknown event {event!r}")
    transaction.on_commit(lambda: deliver(event))


def deliver(event) -> None:
    """Each reaction in turn; one that fails is logged and the others still run."""
    for reaction in _reactions[type(event)]:
        try:
            reaction(event)
        except Exception:  # noqa: BLE001 - the change is committed: a reaction's safety net catches up
            log.exception("%s: reaction %s failed", event, getattr(reaction, "__name__", reaction))
