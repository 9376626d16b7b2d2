"""Which ranked pairings to queue next: the ones that narrow the widest rating interval fastest (pure: no
database)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .elo import expected_score
from .fit import ELO_PER_UNIT, Z95

PRIOR_MARGIN = 350.0  # 95% half-width, Elo, of a version that has played nobody: about a league's whole spread
GAMES_PER_MATCH = 2  # a ladder match: one colour-swapped pair of games
RULES = ("information", "cycle", "random")
# The power of the soft maximum. Of 4, 16, 32 and the hard maximum, 16 did best on spread6 (700 games against
# 750-770, 8 leagues) and as well as the others on random10 and version, measured with an earlier variant
# of this covariance (rescaled to the fit's margins); 1 would be total information, letting the widest wait.
SOFTMAX_POWER = 16


@dataclass(frozen=True)
class Entrant:
    version_id: int
    bot_id: int
    owner_id: int
    elo: float
    games: int
    placements: int  # ladder matches this version has played or has queued


def met_key(a: Entrant, b: Entrant) -> tuple[int, int]:
    """The key of ``met``: the two versions, lower id first."""
    return min(a.version_id, b.version_id), max(a.version_id, b.version_id)


def game_information(a: Entrant, b: Entrant) -> float:
    """Fisher information of one game between ``a`` and ``b`` about their difference, per Elo²."""
    p = expected_score(a.elo, b.elo)
    return p * (1.0 - p) / ELO_PER_UNIT ** 2


def covariance(pool: list[Entrant], met: Mapping[tuple[int, int], int] | None = None) -> np.ndarray:
    """Predicted covariance (Elo², relative to the pool average) of the pool's ratings, in pool order, as
    the games in ``met`` and the prior leave them: the covariance the fit would report, up to the draws
    and the colour advantage the fit also estimates (they widen every interval alike, so the choice does
    not depend on them)."""
    n = len(pool)
    index = {e.version_id: i for i, e in enumerate(pool)}
    precision = np.eye(n) / (PRIOR_MARGIN / Z95) ** 2
    for (x, y), games in (met or {}).items():
        if x in index and y in index and x != y and games:
            i, j = index[x], index[y]
            w = games * game_information(pool[i], pool[j])
            precision[i, i] += w
            precision[j, j] += w
            precision[i, j] -= w
            precision[j, i] -= w
    centre = np.eye(n) - 1.0 / n
    return centre @ np.linalg.inv(precision) @ centre


def after_match(sigma: np.ndarray, a: int, b: int, w: float) -> np.ndarray:
    """The covariance after information ``w`` (per Elo²) about the difference of entrants ``a`` and ``b``."""
    su = sigma[:, a] - sigma[:, b]
    return sigma - w * np.outer(su, su) / (1.0 + w * (su[a] - su[b]))


def worths(sigma: np.ndarray, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For a match of each entrant ``a`` in ``rows`` against each entrant ``b`` (information ``w[a, b]``):
    the soft maximum of the pool's variances after it (lower is better), shape (len(rows), n)."""
    v = np.diag(sigma)
    su = sigma[:, rows, None] - sigma[:, None, :]  # su[:, a, b] = Σ(e_a − e_b)
    q = v[rows, None] + v[None, :] - 2.0 * sigma[rows]  # (e_a − e_b)ᵀ Σ (e_a − e_b)
    left = v[:, None, None] - w[rows] * su ** 2 / (1.0 + w[rows] * q)  # left[i, a, b]: i's variance after
    return soft_maximum(left / v.max())


def soft_maximum(variances: np.ndarray) -> np.ndarray:
    """Σ v^SOFTMAX_POWER over the entrants (axis 0): nearly the largest variance, so the widest interval
    is chased first, but smooth, so that a game that narrows the second widest still counts when the
    widest bot is busy, and a game that narrows two wide bots beats one that narrows only one."""
    return (variances ** SOFTMAX_POWER).sum(axis=0)


def choose_pairings(pool: list[Entrant], wanted: int, busy: set[int], owner_load: Counter, owner_cap: int,
                    placement_matches: int, rule: str = "information",
                    met: Mapping[tuple[int, int], int] | None = None,
                    rng: np.random.Generator | None = None) -> list[tuple[Entrant, Entrant]]:
    """Up to ``wanted`` pairings from ``pool``; ``busy`` (version ids) and ``owner_load`` are updated.

    ``met`` holds the rated games already played between two versions (key ``met_key``); ``rng`` is needed
    by the random rule only.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    if rule == "random" and rng is None:
        raise ValueError("the random rule needs an rng")
    met = met or {}
    if wanted <= 0 or len(pool) < 2:
        return []
    pool = sorted(pool, key=lambda e: e.version_id)  # the answer must not depend on the order given
    n = len(pool)
    pairs: list[tuple[Entrant, Entrant]] = []

    def free(e: Entrant) -> bool:
        return e.version_id not in busy and owner_load[e.owner_id] < owner_cap

    owners = np.array([e.owner_id for e in pool])

    def legal() -> np.ndarray:
        """Who may play whom now: both free, of two owners (so never oneself)."""
        ready = np.array([free(e) for e in pool])
        return ready[:, None] & ready[None, :] & (owners[:, None] != owners[None, :])

    def legal_pairs() -> list[tuple[int, int]]:
        return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(legal())))]

    def take(i: int, j: int) -> None:
        a, b = pool[i], pool[j]
        pairs.append((a, b))
        busy.update((a.version_id, b.version_id))
        owner_load[a.owner_id] += 1
        owner_load[b.owner_id] += 1

    if rule == "cycle":
        while len(pairs) < wanted:
            candidates = [(met.get(met_key(pool[i], pool[j]), 0), pool[i].version_id, pool[j].version_id, i, j)
                          for i, j in legal_pairs()]
            if not candidates:
                break
            take(*min(candidates)[3:])
        return pairs
    if rule == "random":
        while len(pairs) < wanted:
            candidates = legal_pairs()
            if not candidates:
                break
            take(*candidates[rng.integers(len(candidates))])
        return pairs

    sigma = covariance(pool, met)
    info = np.array([[GAMES_PER_MATCH * game_information(a, b) for b in pool] for a in pool])

    chunk = max(1, 2_000_000 // (n * n))  # rows of candidates evaluated at once: bounded memory for big pools

    def worth(rows: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """The worth of every allowed match of the entrants ``rows`` (lower is better; inf where not allowed)."""
        values = np.concatenate([worths(sigma, rows[k:k + chunk], info) for k in range(0, len(rows), chunk)])
        return np.where(allowed[rows], values, np.inf)

    def play(i: int, j: int) -> None:
        nonlocal sigma
        take(i, j)
        sigma = after_match(sigma, i, j, info[i, j])

    placing = sorted((i for i in range(n) if pool[i].placements < placement_matches),
                     key=lambda i: (pool[i].placements, pool[i].games, pool[i].version_id))
    for i in placing:
        if len(pairs) >= wanted:
            break
        allowed = legal()
        if allowed[i].any():
            play(i, int(np.argmin(worth(np.array([i]), allowed)[0])))  # the lowest version id among equals
    while len(pairs) < wanted:
        allowed = legal()
        if not allowed.any():
            break
        values = worth(np.arange(n), allowed)
        i, j = np.unravel_index(int(np.argmin(values)), values.shape)  # among equals, the lowest ids
        play(int(i), int(j))
    return pairs
