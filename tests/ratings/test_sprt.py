"""The SPRT's LLR against fishtest's published formula, on fixed pentanomial counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from ratings.sprt import FAILED, PASSED, Hypotheses, SprtInputError, check_hypotheses, elo_estimate, llr, verdict

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
