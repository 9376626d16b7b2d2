"""The SPRT's LLR against fishtest's published formula, on fixed pentanomial counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from ratings.sprt import (
    FAILED,
    NORMALIZED,
    PASSED,
    Hypotheses,
    SprtInputError,
    check_hypotheses,
    elo_estimate,
    expected_pairs,
    llr,
    sequential_estimate,
    verdict,
)

# fastchess's published test cases of fishtest's logistic pentanomial LLR (app/tests/sprt_test.cpp, "logistic
# pentanomial 1" and "2"), its LL, LD, WL, DD, WD, WW counts folded into pair scores 0, ½, 1 (WL + DD), 1½, 2.
PUBLISHED = [
    ((223, 9863, 20279 + 1000, 10037, 246), Hypotheses(0.5, 2.5), -3.07),
    ((871, 26175, 55003 + 980, 26678, 821), Hypotheses(0.0, 2.0), -4.98),
]


@pytest.mark.parametrize(("pentanomial", "hypotheses", "expected"), PUBLISHED)
def test_llr_matches_the_published_values(pentanomial, hypotheses, expected):
    assert llr(pentanomial, hypotheses) == pytest.approx(expected, abs=0.005)


def llr_by_definition(pentanomial, hypotheses: Hypotheses) -> float:
    """fishtest's formula written from its definition, by a general optimiser: N times the mean log-likelihood of
    the observed pairs under the most likely pentanomial law with the H1 score, minus the same under H0; empty
    cells count 1e-3 pairs (fishtest's ``regularize``)."""
    counts = np.array([n or 1e-3 for n in pentanomial], dtype=float)
    observed = counts / counts.sum()
    points = np.array([0.0, 0.25, 0.5, 0.75, 1.0])

    def best_log_likelihood(elo: float) -> float:
        score = 1.0 / (1.0 + 10.0 ** (-elo / 400.0))
        constraints = [{"type": "eq", "fun": lambda q: q.sum() - 1.0},
                       {"type": "eq", "fun": lambda q: q @ points - score}]
        found = minimize(lambda q: -(observed @ np.log(q)), np.full(5, 0.2), method="SLSQP",
                         bounds=[(1e-12, 1.0)] * 5, constraints=constraints, options={"ftol": 1e-15, "maxiter": 500})
        assert found.success, found.message
        return -found.fun

    return counts.sum() * (best_log_likelihood(hypotheses.elo1) - best_log_likelihood(hypotheses.elo0))


@pytest.mark.parametrize("pentanomial", [
    (10789, 19328, 33806, 19402, 10543),  # fishtest's own example (stat_util.py)
    (3, 10, 40, 12, 5),
    (0, 2, 9, 7, 4),  # an empty cell: regularized
    (0, 0, 0, 0, 3),
    (6, 0, 1, 0, 0),
])
@pytest.mark.parametrize("hypotheses", [Hypotheses(), Hypotheses(-3.0, 1.0), Hypotheses(0.0, 50.0, 0.01, 0.1)])
def test_llr_is_fishtests_generalized_likelihood_ratio(pentanomial, hypotheses):
    assert llr(pentanomial, hypotheses) == pytest.approx(llr_by_definition(pentanomial, hypotheses), rel=1e-5,
                                                         abs=1e-6)


def test_bounds_are_walds():
    assert Hypotheses().lower == pytest.approx(math.log(0.05 / 0.95))
    assert Hypotheses().upper == pytest.approx(2.944438979)
    unequal = Hypotheses(0, 5, alpha=0.01, beta=0.1)
    assert (unequal.lower, unequal.upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_the_test_stops_at_the_bounds():
    hypotheses = Hypotheses()
    assert verdict(0.0, hypotheses) is None
    assert verdict(hypotheses.upper, hypotheses) == PASSED
    assert verdict(hypotheses.lower - 0.1, hypotheses) == FAILED


def test_no_pairs_no_evidence_and_each_pair_moves_the_llr_its_way():
    hypotheses = Hypotheses()
    assert llr((0, 0, 0, 0, 0), hypotheses) == 0.0
    base = (5, 20, 50, 20, 5)
    assert llr((5, 20, 50, 20, 6), hypotheses) > llr(base, hypotheses) > llr((6, 20, 50, 20, 5), hypotheses)
    # Even a clean sweep needs evidence: each won pair adds about 0.028 to the LLR at the default bounds.
    assert verdict(llr((0, 0, 0, 0, 100), hypotheses), hypotheses) is None
    assert verdict(llr((0, 0, 0, 0, 110), hypotheses), hypotheses) == PASSED
    assert verdict(llr((110, 0, 0, 0, 0), hypotheses), hypotheses) == FAILED


def test_elo_estimate_from_the_pairs():
    assert elo_estimate([0, 0, 0, 0, 0]) is None
    estimate = elo_estimate([1, 4, 10, 6, 2])
    assert estimate.games == 46 and estimate.elo > 0 and estimate.margin > 0


@pytest.mark.parametrize(("values", "field"), [
    ((10, 0, 0.05, 0.05), "elo1"),  # H1 below H0
    ((5, 5, 0.05, 0.05), "elo1"),
    ((0, 10, 0.5, 0.05), "alpha"),
    ((0, 10, 0.05, 0.0), "beta"),
    ((0, 1000, 0.05, 0.05), "elo1"),
    ((float("nan"), 10, 0.05, 0.05), "elo0"),
    ((0, float("inf"), 0.05, 0.05), "elo1"),
    ((True, 10, 0.05, 0.05), "elo0"),
    (("0", 10, 0.05, 0.05), "elo0"),
    ((0, 10, 0.05, 0.05, "bayes"), "elo_model"),
    ((0, 10, 0.05, 0.05, "logistic", 99), "max_pairs"),
    ((0, 10, 0.05, 0.05, "logistic", 100_001), "max_pairs"),
    ((0, 10, 0.05, 0.05, "logistic", 500.0), "max_pairs"),
])
def test_bad_hypotheses_name_the_field(values, field):
    with pytest.raises(SprtInputError) as error:
        check_hypotheses(*values)
    assert field in error.value.problems


def test_bad_pentanomial():
    with pytest.raises(ValueError, match="5 counts"):
        llr((1, 2, 3), Hypotheses())
    with pytest.raises(ValueError, match="5 counts"):
        llr((1, 2, 3, -1, 0), Hypotheses())


# fastchess's published test cases of fishtest's normalized pentanomial LLR (app/tests/sprt_test.cpp,
# "normalized pentanomial 1" and "2"), folded into pair scores as above.
@pytest.mark.parametrize(("pentanomial", "hypotheses", "expected"), [
    ((365, 16618, 36029 + 200, 16974, 390), Hypotheses(0.0, 2.0, elo_model=NORMALIZED), 2.25),
    ((127, 4883, 10311 + 401, 5150, 104), Hypotheses(-1.75, 0.25, elo_model=NORMALIZED), 3.01),
])
def test_normalized_llr_matches_the_published_values(pentanomial, hypotheses, expected):
    assert llr(pentanomial, hypotheses) == pytest.approx(expected, abs=0.005)


def normalized_llr_by_definition(pentanomial, hypotheses: Hypotheses) -> float:
    """fishtest's ``LLR_normalized`` from its definition, by a general optimiser: the most likely pentanomial law
    whose pair-score t-value (mean − ½)/σ is √2·nElo/(800/ln 10), for H1 against H0."""
    counts = np.array([n or 1e-3 for n in pentanomial], dtype=float)
    observed = counts / counts.sum()
    points = np.array([0.0, 0.25, 0.5, 0.75, 1.0])

    def best_log_likelihood(nelo: float) -> float:
        t_value = nelo / (800 / math.log(10)) * math.sqrt(2)

        def t_gap(q):
            mean = q @ points
            return mean - 0.5 - t_value * math.sqrt(max(q @ (points - mean) ** 2, 1e-12))

        constraints = [{"type": "eq", "fun": lambda q: q.sum() - 1.0}, {"type": "eq", "fun": t_gap}]
        found = minimize(lambda q: -(observed @ np.log(q)), observed, method="SLSQP",
                         bounds=[(1e-12, 1.0)] * 5, constraints=constraints, options={"ftol": 1e-15, "maxiter": 500})
        assert found.success, found.message
        return -found.fun

    return counts.sum() * (best_log_likelihood(hypotheses.elo1) - best_log_likelihood(hypotheses.elo0))


@pytest.mark.parametrize("pentanomial", [(3, 10, 40, 12, 5), (0, 2, 9, 7, 4), (100, 400, 900, 420, 110)])
@pytest.mark.parametrize("bounds", [(0.0, 5.0), (-3.0, 1.0)])
def test_normalized_llr_is_the_t_value_likelihood_ratio(pentanomial, bounds):
    hypotheses = Hypotheses(*bounds, elo_model=NORMALIZED)
    assert llr(pentanomial, hypotheses) == pytest.approx(normalized_llr_by_definition(pentanomial, hypotheses),
                                                         rel=1e-4, abs=1e-5)


# fishtest's SPRT_elo (server/fishtest/stats/stat_util.py) on these pairs, run for reference: Elo, 95% interval
# and LOS after a sequential stop; its own examples first.
SPRT_ELO = [
    ((10789, 19328, 33806, 19402, 10543), Hypotheses(-3.0, 1.0), (-0.9925, -3.4885, 1.4886, 0.1880)),
    ((39, 2226, 31451, 2412, 40), Hypotheses(0.2, 0.9), (0.8652, 0.1683, 1.5407, 0.9920)),
    ((39, 2226, 31451, 2412, 40), Hypotheses(0.764, 3.439, elo_model=NORMALIZED), (0.8652, 0.1683, 1.5407, 0.9920)),
    ((3, 40, 120, 60, 8), Hypotheses(0.0, 10.0), (22.5375, 5.1829, 40.6105, 0.9945)),
    ((100, 400, 900, 420, 110), Hypotheses(0.0, 10.0), (3.8703, -3.5753, 11.5794, 0.8465)),
    ((20, 80, 200, 110, 30), Hypotheses(0.0, 5.0, elo_model=NORMALIZED), (19.7619, 4.6617, 35.2621, 0.9949)),
]


@pytest.mark.parametrize(("pentanomial", "hypotheses", "expected"), SPRT_ELO)
def test_sequential_estimate_is_fishtests_sprt_elo(pentanomial, hypotheses, expected):
    estimate = sequential_estimate(pentanomial, hypotheses)
    assert (estimate.elo, estimate.low, estimate.high, estimate.los) == pytest.approx(expected, abs=2e-4)
    assert estimate.margin == pytest.approx((expected[2] - expected[1]) / 2, abs=2e-4)


def test_the_sequential_estimate_pulls_back_what_the_stop_exaggerates():
    """A test that passed quickly on a lucky run: the fixed-sample Elo is inflated by stopping at the high
    bound; the sequential estimate is lower, and no pairs give no estimate."""
    assert sequential_estimate([0, 0, 0, 0, 0], Hypotheses()) is None
    passed = (3, 40, 120, 70, 10)
    assert verdict(llr(passed, Hypotheses()), Hypotheses()) == PASSED
    assert sequential_estimate(passed, Hypotheses()).elo < elo_estimate(passed).elo


def test_expected_length_is_walds():
    """At elo1 with no draws, the Brownian drift per pair is (s1 − s0)²/(2v) with v = s(1 − s)/2 the pair
    score's variance; Wald: E[N] = (0.95·upper + 0.05·lower) / drift, about 3,200 pairs for [0, 10]."""
    hypotheses = Hypotheses()
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    drift = (s1 - s0) ** 2 / 2 / (s1 * (1 - s1) / 2)
    assert expected_pairs(hypotheses, 10.0, 0.0) == pytest.approx(
        (0.95 * hypotheses.upper + 0.05 * hypotheses.lower) / drift, rel=1e-3)
    # Draws shorten a test; the middle of the bounds is the slowest place to be; far beyond, it is quick.
    assert expected_pairs(hypotheses, 10.0, 0.3) < expected_pairs(hypotheses, 10.0, 0.0)
    assert expected_pairs(hypotheses, 5.0, 0.3) > expected_pairs(hypotheses, 0.0, 0.3)
    assert expected_pairs(hypotheses, 40.0, 0.3) < 400
    # Normalized bounds mean the same length whatever the draw rate.
    normalized = Hypotheses(0.0, 5.0, elo_model=NORMALIZED)
    assert expected_pairs(normalized, 5.0, 0.0) == pytest.approx(expected_pairs(normalized, 5.0, 0.6), rel=1e-6)
