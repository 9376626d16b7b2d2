"""The sequential probability ratio test of a new bot version against the previous one, as fishtest runs it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr  # the normal law's (log) CDF, as fast ufuncs

from engines.stats import EloEstimate, elo_pentanomial, score_from_elo

PAIR_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the per-game score of each pentanomial cell (pair scores 0..2)
EMPTY_CELL = 1e-3  # fishtest's regularization of a cell nobody landed in
ELO_LIMIT = 200.0  # bounds beyond this are not a test of a patch, and the fits get numerically ill-posed
ALPHA_RANGE = (0.001, 0.2)  # error rates a test may ask for (fishtest and OpenBench use 0.05)
MAX_PAIRS_RANGE = (100, 100_000)  # a test's pair cap: below 100 no bound is reachable, above it runs for weeks
LOGISTIC, NORMALIZED = "logistic", "normalized"
ELO_MODELS = (LOGISTIC, NORMALIZED)
NELO_PER_T = 800.0 / math.log(10.0)  # normalized Elo per unit of per-game t-value (fishtest's nelo_divided_by_nt)

PASSED, FAILED = "passed", "failed"


@dataclass(frozen=True)
class Hypotheses:
    """What a test asks: H0 elo0 against H1 elo1 (in ``elo_model`` Elo), with error rates α and β."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    elo_model: str = LOGISTIC

    @property
    def lower(self) -> float:
        """LLR at or below which H0 is accepted (the new version fails)."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """LLR at or above which H1 is accepted (the new version passes)."""
        return math.log((1.0 - self.beta) / self.alpha)


def check_hypotheses(elo0, elo1, alpha, beta, elo_model=LOGISTIC, max_pairs=None) -> Hypotheses:
    """The hypotheses, or ValueError naming the bad field (the service turns it into a 400). ``max_pairs``,
    the test's cap, is checked too when given."""
    problems = {}
    if elo_model not in ELO_MODELS:
        problems["elo_model"] = f"must be one of {', '.join(ELO_MODELS)}, got {elo_model!r}"
    if max_pairs is not None and (isinstance(max_pairs, bool) or not isinstance(max_pairs, int)
                                  or not MAX_PAIRS_RANGE[0] <= max_pairs <= MAX_PAIRS_RANGE[1]):
        problems["max_pairs"] = (f"must be a whole number from {MAX_PAIRS_RANGE[0]} to {MAX_PAIRS_RANGE[1]}, "
                                 f"got {max_pairs!r}")
    for name, value, low, high in (("elo0", elo0, -ELO_LIMIT, ELO_LIMIT), ("elo1", elo1, -ELO_LIMIT, ELO_LIMIT),
                                   ("alpha", alpha, *ALPHA_RANGE), ("beta", beta, *ALPHA_RANGE)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            problems[name] = f"must be a number from {low:g} to {high:g}, got {value!r}"
    if not problems and elo1 <= elo0:
        problems["elo1"] = f"must be above elo0 ({elo0:g}), got {elo1!r}"
    if problems:
        raise SprtInputError(problems)
    return Hypotheses(float(elo0), float(elo1), float(alpha), float(beta), elo_model)


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
    if hypotheses.elo_model == NORMALIZED:
        # The pair score's t-value is √2 times the per-game one: a pair is two games' worth of evidence.
        fit0, fit1 = (_most_likely_t(observed, elo / NELO_PER_T * math.sqrt(2.0))
                      for elo in (hypotheses.elo0, hypotheses.elo1))
    else:
        fit0 = _most_likely(observed, score_from_elo(hypotheses.elo0))
        fit1 = _most_likely(observed, score_from_elo(hypotheses.elo1))
    return pairs * sum(p * (math.log(q1) - math.log(q0)) for p, q0, q1 in zip(observed, fit0, fit1))


def _most_likely(observed: list[float], score: float) -> list[float]:
    """The distribution on ``PAIR_POINTS`` with expected value ``score`` under which ``observed`` is most likely.

    By Lagrange it is q_i = p_i / (1 + x·(a_i − s)) with x the root of Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0
    between the poles −1/max(a − s) and −1/min(a − s) (fishtest's ``MLE_expected``).
    """
    return _secular_fit(observed, [a - score for a in PAIR_POINTS])


def _most_likely_t(observed: list[float], t_value: float) -> list[float]:
    """The distribution on ``PAIR_POINTS`` with t-value (mean − ½)/σ = ``t_value`` under which ``observed`` is
    most likely (fishtest's ``MLE_t_value``).

    The constraint is not linear in q, but its Lagrange condition has the same secular form with the shifts
    a_i − ½ − t·σ·(1 + ((μ − a_i)/σ)²)/2, where μ and σ are the fit's own; so fit, recompute μ and σ, and fit
    again from the uniform law until the fit stops moving (a few rounds).
    """
    fit = [1.0 / len(PAIR_POINTS)] * len(PAIR_POINTS)
    for _ in range(50):
        mean = sum(q * a for q, a in zip(fit, PAIR_POINTS))
        sigma = math.sqrt(sum(q * (a - mean) ** 2 for q, a in zip(fit, PAIR_POINTS)))
        shifted = [a - 0.5 - t_value * sigma * (1.0 + ((mean - a) / sigma) ** 2) / 2.0 for a in PAIR_POINTS]
        previous, fit = fit, _secular_fit(observed, shifted)
        if max(abs(q - r) for q, r in zip(fit, previous)) < 1e-12:
            break
    return fit


def _secular_fit(observed: list[float], shifted: list[float]) -> list[float]:
    """q_i = p_i / (1 + x·d_i) with x the root of the secular equation Σ p_i d_i / (1 + x d_i) = 0."""

    def slope(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(observed, shifted))

    edge = 1e-9  # stay off the poles, where the terms blow up
    x = brentq(slope, -1.0 / max(shifted) + edge, -1.0 / min(shifted) - edge)
    return [p / (1.0 + x * d) for p, d in zip(observed, shifted)]


def bound_scores(hypotheses: Hypotheses, pair_variance: float) -> tuple[float, float]:
    """The per-game scores of H0 and H1; normalized bounds need the pair score's variance to become scores."""
    if hypotheses.elo_model == NORMALIZED:
        per_game_sigma = math.sqrt(2.0 * pair_variance)
        return tuple(0.5 + elo / NELO_PER_T * per_game_sigma for elo in (hypotheses.elo0, hypotheses.elo1))
    return score_from_elo(hypotheses.elo0), score_from_elo(hypotheses.elo1)


def _llr_drift(score: float, score0: float, score1: float, variance: float) -> tuple[float, float]:
    """Drift and variance per pair of the LLR's Brownian approximation when the true per-game score is
    ``score`` and the pair score's variance ``variance`` (fishtest's ``LLR_drift_variance_alt2``)."""
    return (score - (score0 + score1) / 2.0) * (score1 - score0) / variance, (score1 - score0) ** 2 / variance


def verdict(value: float, hypotheses: Hypotheses) -> str | None:
    """PASSED once the LLR reaches the upper bound, FAILED at the lower one, None while it lies between."""
    if value >= hypotheses.upper:
        return PASSED
    if value <= hypotheses.lower:
        return FAILED
    return None


def elo_estimate(pentanomial) -> EloEstimate | None:
    """The new version's fixed-sample Elo difference ± 95% from the pairs so far (``engines.stats``); None before
    any pair. Right while a test runs; after it stops, ``sequential_estimate`` is the one to show.
    Kept per counts: a test's page or row asks for its Elo, margin and LOS, each from the same estimate."""
    return _estimate(tuple(pentanomial)) if sum(pentanomial) else None


@lru_cache(maxsize=1024)
def _estimate(pentanomial: tuple[int, ...]) -> EloEstimate:
    return elo_pentanomial(pentanomial)


@dataclass(frozen=True)
class SequentialEstimate:
    """The new version's logistic Elo after a sequential stop: median-unbiased, with its 95% interval (not
    symmetric: the stop makes one side better known than the other) and the LOS."""

    elo: float
    low: float
    high: float
    los: float

    @property
    def margin(self) -> float:
        """Half the interval's width, for pages that show Elo ± margin."""
        return (self.high - self.low) / 2.0


ELO_SEARCH = 1000.0  # the estimate is searched between ±1000 logistic Elo (fishtest's limits)


def sequential_estimate(pentanomial, hypotheses: Hypotheses) -> SequentialEstimate | None:
    """fishtest's ``SPRT_elo`` for a test that stopped with these pairs; None before any pair."""
    return _sequential(tuple(pentanomial), hypotheses) if sum(pentanomial) else None


@lru_cache(maxsize=1024)
def _sequential(pentanomial: tuple[int, ...], hypotheses: Hypotheses) -> SequentialEstimate:
    counts = np.array([n or EMPTY_CELL for n in pentanomial], dtype=float)
    pairs = counts.sum()
    observed = counts / pairs
    points = np.array(PAIR_POINTS)
    mean = float(observed @ points)
    variance = float(observed @ (points - mean) ** 2)
    score0, score1 = bound_scores(hypotheses, variance)
    lower, upper = hypotheses.lower, hypotheses.upper
    # Where the (approximate) LLR path ended, and when: a path past a bound is moved back onto it, at the
    # time its average slope would have reached it, as a Brownian motion stops exactly on the bound.
    slope = _llr_drift(mean, score0, score1, variance)[0]
    end, time = pairs * slope, pairs
    if end < lower:
        end, time = lower, lower / slope
    elif end > upper:
        end, time = upper, upper / slope

    def worse(elo: float) -> float:
        """The chance that a test of a version ``elo`` better ends worse than this one did."""
        score = score_from_elo(elo)
        # The most likely variance with that mean: the observed one plus the squared shift of the mean.
        drift, spread = _llr_drift(score, score0, score1, variance + (score - mean) ** 2)
        return _outcome_cdf(lower, upper, drift, spread, time, end)

    def solve(level: float) -> float:
        # ``worse`` falls as the Elo rises; a level it never reaches within the search gives the search's end.
        if worse(-ELO_SEARCH) <= level:
            return -ELO_SEARCH
        if worse(ELO_SEARCH) >= level:
            return ELO_SEARCH
        return brentq(lambda elo: worse(elo) - level, -ELO_SEARCH, ELO_SEARCH, xtol=1e-6)

    return SequentialEstimate(elo=solve(0.5), low=solve(0.975), high=solve(0.025), los=worse(0.0))


def _outcome_cdf(lower: float, upper: float, drift: float, variance: float, time: float, end: float) -> float:
    """The chance that a Brownian motion from 0 with this drift and variance per pair, stopped at ``lower`` or
    ``upper``, ends worse than at LLR ``end`` at pair ``time``: outcomes are ordered failed early < failed late
    < still between the bounds (lower LLR worse) < passed late < passed early.

    Worse = failed by ``time`` + between the bounds at ``time`` below ``end``. Both come from the eigenfunction
    expansion of the motion killed at the bounds; when that series converges slowly (early, or a strong drift)
    Siegmund's one-reflection-per-bound approximation is used instead, as fishtest does."""
    width = upper - lower
    start, stop = -lower, end - lower  # measured from the lower bound
    gamma = drift / variance
    if variance * time / width ** 2 < 1e-2 or abs(gamma * width) > 15:
        spread = math.sqrt(variance * time)
        shift = drift * time
        value = (float(ndtr((end - shift) / spread))
                 + math.exp(2 * gamma * lower + float(log_ndtr((2 * lower - end + shift) / spread)))
                 - math.exp(2 * gamma * upper + float(log_ndtr((end - shift - 2 * upper) / spread))))
        return min(max(value, 0.0), 1.0)
    # The chance of ever failing, from ``start`` …
    if abs(gamma * width) < 1e-8:
        fail = (width - start) / width
    else:
        fail = (1 - math.exp(2 * gamma * (width - start))) / (1 - math.exp(2 * gamma * width))
    # … corrected by the killed motion's density at ``time``: minus the failures still to come, plus the
    # paths between the bounds below ``end``. With k = nπ/width the density's n-th mode, integrated against
    # e^{γz}, gives the closed form below (each mode decays as e^{−variance·(k² + γ²)·time/2}).
    k = np.arange(1, 200) * math.pi / width
    modes = (2 / width * np.exp(gamma * (stop - start) - variance * (k ** 2 + gamma ** 2) * time / 2)
             * np.sin(k * start) * (gamma * np.sin(k * stop) - k * np.cos(k * stop)) / (gamma ** 2 + k ** 2))
    return min(max(fail + float(modes.sum()), 0.0), 1.0)


def trinomial_pair_variance(score: float, draw_rate: float) -> float:
    """The variance of a pair's average score when each game is a win, draw or loss on its own with this
    expected score and draw rate (colour-swapped games are in fact a little correlated, which only lowers it)."""
    return max(score * (1 - score) - draw_rate / 4, 1e-6) / 2


def expected_pairs(hypotheses: Hypotheses, elo: float, draw_rate: float) -> float:
    """Wald's approximation of a test's mean length in pairs when the new version is truly ``elo`` better (in
    the test's Elo model): E[N] = (P·upper + (1 − P)·lower) / E[LLR per pair], P the chance it passes, from
    the LLR's Brownian approximation with games drawn at ``draw_rate``. It ignores the pair cap."""
    variance_even = trinomial_pair_variance(0.5, draw_rate)
    if hypotheses.elo_model == NORMALIZED:
        score = bound_scores(Hypotheses(elo, elo + 1, elo_model=NORMALIZED), variance_even)[0]
        score0, score1 = bound_scores(hypotheses, variance_even)
    else:
        score = score_from_elo(elo)
        score0, score1 = bound_scores(hypotheses, variance_even)
    drift, spread = _llr_drift(score, score0, score1, trinomial_pair_variance(score, draw_rate))
    lower, upper = hypotheses.lower, hypotheses.upper
    if abs(drift) < 1e-12:
        return -lower * upper / spread  # no drift: the mean exit time of a driftless motion
    gamma = drift / spread
    # The chance of reaching ``upper`` first, from the motion's scale function e^{−2γx}.
    passes = ((1 - math.exp(-2 * gamma * lower)) / (math.exp(-2 * gamma * upper) - math.exp(-2 * gamma * lower))
              if abs(gamma * (upper - lower)) < 300 else float(drift > 0))
    return (passes * upper + (1 - passes) * lower) / drift
