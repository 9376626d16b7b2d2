"""How sure a leaderboard's order is: each bot's 95% rank interval and its chance of being first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
DRAWS = 4000  # p_first to about ±0.008 (one standard error) at worst; a rank quantile to a fraction of a place
SEED = 17


@dataclass(frozen=True)
class RankInterval:
    rank: int  # place by the fitted rating, from 1
    low: int  # best rank of the 95% interval
    high: int  # worst rank of the 95% interval
    p_first: float  # share of draws in which this bot is ranked first


def rank_intervals(elo, covariance=None, margin=None, draws: int = DRAWS, seed: int = SEED) -> list[RankInterval]:
    """One RankInterval per bot, in the order given. ``covariance`` (Elo², bots × bots) is the fit's; where it
    is missing or not finite the ratings are drawn independently with the standard deviations ``margin`` / 1.96
    (a 95% half-width), which ignores the correlations but never invents certainty.

    Ties within a draw (only possible with zero variance) go to the bot given first, as the point ranks do.
    """
    elo = np.asarray(elo, dtype=float)
    n = elo.size
    if n == 0:
        return []
    order = np.lexsort((np.arange(n), -elo))  # best first; equal ratings in the order given
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(1, n + 1)
    samples = _draw(elo, covariance, margin, draws, seed)
    # Rank within each draw: each bot's place when the draw is sorted best first.
    by_draw = np.argsort(-samples, axis=1, kind="stable")
    ranks = np.empty_like(by_draw)
    np.put_along_axis(ranks, by_draw, np.broadcast_to(np.arange(1, n + 1), by_draw.shape), axis=1)
    low = np.quantile(ranks, 0.025, axis=0, method="inverted_cdf").astype(np.int64)
    high = np.quantile(ranks, 0.975, axis=0, method="inverted_cdf").astype(np.int64)
    p_first = (ranks == 1).mean(axis=0)
    # The point rank is inside its interval by construction of what is shown, whatever sampling noise says.
    return [RankInterval(int(rank[i]), int(min(low[i], rank[i])), int(max(high[i], rank[i])), float(p_first[i]))
            for i in range(n)]


def _draw(elo: np.ndarray, covariance, margin, draws: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = elo.size
    if covariance is not None:
        covariance = np.asarray(covariance, dtype=float)
        if covariance.shape == (n, n) and np.isfinite(covariance).all():
            # eigh, not Cholesky: the covariance of ratings centred on the pool's average is singular.
            return rng.multivariate_normal(elo, (covariance + covariance.T) / 2, size=draws, method="eigh",
                                           check_valid="ignore")
    if margin is None:
        raise ValueError("rank_intervals needs a finite covariance or the margins")
    sd = np.asarray(margin, dtype=float) / Z95
    if sd.shape != (n,) or not np.isfinite(sd).all():
        raise ValueError("one finite margin per bot is needed when the covariance is missing")
    return elo + rng.standard_normal((draws, n)) * sd
