"""The sequential probability ratio test of a new bot version against the previous one, as fishtest runs it.

H0: the new version is ``elo0`` Elo better than the old one; H1: it is ``elo1`` better. The bounds are in
**logistic** Elo (the Elo of the score: 400·log10(s/(1−s))), as in fishtest's classic ``LLR_logistic``, not
in fishtest's newer *normalized* Elo: logistic Elo is what the rest of the arena speaks (live Elo, the fit,
match statistics), and it needs no draw-rate or variance estimate to convert a bound.

The statistic is the generalized log-likelihood ratio (GSPRT) on the pentanomial: the games are counted
in colour-swapped pairs, each pair scoring 0, ½, 1, 1½ or 2 for the new version. For each hypothesis the
most likely pentanomial distribution whose expected score is that hypothesis's score is found (a secular
equation, solved with SciPy's ``brentq``); the LLR is the sample's log-likelihood under the H1 fit minus
that under the H0 fit. Empty cells get fishtest's small prior (1e-3 pairs) so no fit has a zero
probability. The test stops at Wald's bounds log(β/(1−α)) and log((1−β)/α); fishtest's dynamic overshoot
correction is not applied (it only matters for tests updated in large batches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from scipy.optimize import brentq

from engines.stats import EloEstimate, elo_pentanomial, score_from_elo

PAIR_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the per-game score of each pentanomial cell (pair scores 0..2)
EMPTY_CELL = 1e-3  # fishtest's regularization of a cell nobody landed in
ELO_LIMIT = 200.0  # bounds beyond this are not a test of a patch, and the fits get numerically ill-posed
ALPHA_RANGE = (0.001, 0.2)  # error rates a test may ask for (fishtest and OpenBench use 0.05)

PASSED, FAILED = "passed", "failed"


@dataclass(frozen=True)
class Hypotheses:
    """What a test asks: H0 elo0 against H1 elo1 (logistic Elo), with error rates α and β."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted (the new version fails)."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted (the new version passes)."""
        return math.log((1.0 - self.beta) / self.alpha)


def check_hypotheses(elo0, elo1, alpha, beta) -> Hypotheses:
    """The hypotheses, or ValueError naming the bad field (the service turns it into a 400)."""
    problems = {}
    for name, value, low, high in (("elo0", elo0, -ELO_LIMIT, ELO_LIMIT), ("elo1", elo1, -ELO_LIMIT, ELO_LIMIT),
                                   ("alpha", alpha, *ALPHA_RANGE), ("beta", beta, *ALPHA_RANGE)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            problems[name] = f"must be a number from {low:g} to {high:g}, got {value!r}"
    if not problems and elo1 <= elo0:
        problems["elo1"] = f"must be above elo0 ({elo0:g}), got {elo1!r}"
    if problems:
        raise SprtInputError(problems)
    return Hypotheses(float(elo0), float(elo1), float(alpha), float(beta))


class SprtInputError(ValueError):
    """Bad test parameters; ``problems`` maps each bad field to what is wrong with it."""

    def __init__(self, problems: dict[str, str]):
        super().__init__("; ".join(f"{name}: {message}" for name, message in problems.items()))
        self.problems = problems


def llr(pentanomial, hypotheses: Hypotheses) -> float:
    """The log-likelihood ratio of H1 against H0 for counts of pair scores 0, ½, 1, 1½, 2 (new version's)."""
    counts = [float(n) for n in pentanomial]
    if len(counts) != 5 or any(n < 0 for n in counts):
        raise ValueError(f"a pentanomial is 5 counts of 0 or more, got {pentanomial!r}")
    if sum(counts) == 0:
        return 0.0
    counts = [n or EMPTY_CELL for n in counts]
    pairs = sum(counts)
    observed = [n / pairs for n in counts]
    fit0 = _most_likely(observed, score_from_elo(hypotheses.elo0))
    fit1 = _most_likely(observed, score_from_elo(hypotheses.elo1))
    return pairs * sum(p * (math.log(q1) - math.log(q0)) for p, q0, q1 in zip(observed, fit0, fit1))


def _most_likely(observed: list[float], score: float) -> list[float]:
    """The distribution on ``PAIR_POINTS`` with expected value ``score`` under which ``observed`` is most likely.

    By Lagrange it is q_i = p_i / (1 + x·(a_i − s)) with x the root of Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0
    between the poles −1/max(a − s) and −1/min(a − s) (fishtest's ``MLE_expected``).
    """
    shifted = [a - score for a in PAIR_POINTS]

    def slope(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(observed, shifted))

    edge = 1e-9  # stay off the poles, where the terms blow up
    x = brentq(slope, -1.0 / max(shifted) + edge, -1.0 / min(shifted) - edge)
    return [p / (1.0 + x * d) for p, d in zip(observed, shifted)]


def verdict(value: float, hypotheses: Hypotheses) -> str | None:
    """PASSED once the LLR reaches the upper bound, FAILED at the lower one, None while it lies between."""
    if value >= hypotheses.upper:
        return PASSED
    if value <= hypotheses.lower:
        return FAILED
    return None


def elo_estimate(pentanomial) -> EloEstimate | None:
    """The new version's Elo difference ± 95% from the pairs so far (``engines.stats``); None before any pair.
    Kept per counts: a test's page or row asks for its Elo, margin and LOS, each from the same estimate."""
    return _estimate(tuple(pentanomial)) if sum(pentanomial) else None


@lru_cache(maxsize=1024)
def _estimate(pentanomial: tuple[int, ...]) -> EloEstimate:
    return elo_pentanomial(pentanomial)
