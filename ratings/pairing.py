"""Which ranked pairings to queue next: the ones that teach the ratings most (pure: no database).

Each entrant comes with a rating estimate and the half-width of its 95% interval (the fitted rating where
the fit has one, else the live Elo with ``PRIOR_MARGIN``). One game between ``a`` and ``b`` with expected
score ``p`` carries Fisher information ``p(1 − p)`` about their difference (Bradley–Terry); what it can
remove from the ratings' uncertainty grows with what is still unknown about that difference. So a
pairing's worth is

    information(a, b) = p(1 − p) · V,   1 / V = 1 / (σ_a² + σ_b²) + n_ab · p(1 − p) / s²

with σ from the margins, ``n_ab`` the games the two bots have already played each other and ``s`` the Elo
per natural-log unit: the margins alone would send two wide bots to play each other again and again,
while their many games against each other already pin their difference, not where the pair stands
in the pool. The worth is largest for an even game between two wide bots that have rarely met. The
pairings are taken greedily,
best first, within the rules: never two bots of one owner, no version in two open matches, and one
owner's bots in at most ``owner_cap`` open matches. Versions still in placement (fewer than a few ladder
matches: a new version inherits its bot's rating, which may no longer fit it) are paired first.

``rule="closest"`` is the ladder's earlier rule (the closest live Elo among opponents with few games),
kept for ``benchmarks/pairing.py``, which compares the two on simulated leagues.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from .elo import expected_score
from .fit import ELO_PER_UNIT, Z95

PRIOR_MARGIN = 350.0  # 95% half-width, Elo, of a bot the fit has not rated: about a league's whole spread
ELO_SCALE = 100.0  # closest rule: 100 Elo apart costs as much as ...
GAMES_SCALE = 20.0  # ... 20 more rated games of the opponent
RULES = ("information", "closest")


@dataclass(frozen=True)
class Entrant:
    version_id: int
    bot_id: int
    owner_id: int
    elo: float
    games: int
    placements: int  # ladder matches this version has played or has queued
    margin: float = PRIOR_MARGIN  # half-width of the rating's 95% interval, Elo


def information(a: Entrant, b: Entrant, met: int = 0) -> float:
    """What one game between ``a`` and ``b`` (who have played ``met`` games together) tells, Elo²."""
    p = expected_score(a.elo, b.elo)
    unknown = 1.0 / (1.0 / ((a.margin / Z95) ** 2 + (b.margin / Z95) ** 2) + met * p * (1.0 - p) / ELO_PER_UNIT ** 2)
    return p * (1.0 - p) * unknown


def met_key(a: Entrant, b: Entrant) -> tuple[int, int]:
    """The key of ``met``: the two bots, lower id first."""
    return min(a.bot_id, b.bot_id), max(a.bot_id, b.bot_id)


def narrowed(margin: float, games: int) -> float:
    """The margin after ``games`` more games at even odds (information 1/4 each, in natural-log units):
    what the next fit will roughly show, so the pairings made between two fits do not all go to the bot
    that was widest at the last one."""
    precision = (Z95 * ELO_PER_UNIT / margin) ** 2 + max(0, games) / 4.0
    return Z95 * ELO_PER_UNIT / math.sqrt(precision)


def closest_cost(a: Entrant, b: Entrant) -> float:
    return abs(a.elo - b.elo) / ELO_SCALE + b.games / GAMES_SCALE


def choose_pairings(pool: list[Entrant], wanted: int, busy: set[int], owner_load: Counter, owner_cap: int,
                    placement_matches: int, rule: str = "information",
                    met: Mapping[tuple[int, int], int] | None = None) -> list[tuple[Entrant, Entrant]]:
    """Up to ``wanted`` pairings from ``pool``; ``busy`` (version ids) and ``owner_load`` are updated.

    ``met`` holds the rated games already played between two bots (key ``met_key``), for the information rule.
    """
    met = met or {}

    def worth(a: Entrant, b: Entrant) -> float:
        return information(a, b, met.get(met_key(a, b), 0))

    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    pairs: list[tuple[Entrant, Entrant]] = []

    def free(e: Entrant) -> bool:
        return e.version_id not in busy and owner_load[e.owner_id] < owner_cap

    def take(a: Entrant, b: Entrant) -> None:
        pairs.append((a, b))
        busy.update((a.version_id, b.version_id))
        owner_load[a.owner_id] += 1
        owner_load[b.owner_id] += 1

    order = sorted(pool, key=lambda e: (e.placements >= placement_matches, e.placements, e.games, e.version_id))
    for a in order:
        if len(pairs) >= wanted or (rule == "information" and a.placements >= placement_matches):
            break
        if not free(a):
            continue
        opponents = [b for b in pool if b.owner_id != a.owner_id and free(b)]
        if not opponents:
            continue
        if rule == "closest":
            take(a, min(opponents, key=lambda b: (closest_cost(a, b), b.version_id)))
        else:
            take(a, max(opponents, key=lambda b: (worth(a, b), -b.version_id)))
    if rule == "information" and len(pairs) < wanted:
        # A pairing's worth does not change as others are taken: rank every legal pair once, take the best
        # that are still free.
        candidates = sorted(((a, b) for a in pool for b in pool
                             if a.version_id < b.version_id and a.owner_id != b.owner_id and free(a) and free(b)),
                            key=lambda ab: (-worth(*ab), ab[0].version_id, ab[1].version_id))
        for a, b in candidates:
            if len(pairs) >= wanted:
                break
            if free(a) and free(b):
                take(a, b)
    return pairs
