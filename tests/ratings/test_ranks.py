"""Rank intervals and the chance of being first, from a fit's ratings and covariance (ratings.ranks)."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import fit as fitting
from ratings.ranks import rank_intervals


def test_bots_far_apart_are_sure_of_their_ranks():
    places = rank_intervals([1900.0, 1500.0, 1100.0], np.diag([20.0 ** 2] * 3))
    assert [(p.rank, p.low, p.high) for p in places] == [(1, 1, 1), (2, 2, 2), (3, 3, 3)]
    assert [p.p_first for p in places] == [1.0, 0.0, 0.0]


def test_two_equal_bots_share_the_top_and_their_chances():
    places = rank_intervals([1600.0, 1600.0, 1200.0], np.diag([30.0 ** 2] * 3))
    assert [(p.low, p.high) for p in places[:2]] == [(1, 2), (1, 2)]
    assert {p.rank for p in places[:2]} == {1, 2} and places[2].rank == 3
    assert places[0].p_first == pytest.approx(0.5, abs=0.03) and places[1].p_first == pytest.approx(0.5, abs=0.03)
    assert sum(p.p_first for p in places) == pytest.approx(1.0)


def test_the_same_fit_gives_the_same_intervals():
    elo, cov = [1550.0, 1520.0, 1500.0, 1430.0], np.diag([40.0 ** 2] * 4)
    assert rank_intervals(elo, cov) == rank_intervals(elo, cov)


def test_correlation_matters_a_positively_correlated_pair_is_ordered_more_surely():
    """Two ratings both uncertain but moving together (they were measured against the same opponents) are
    more surely ordered than the margins alone say: the covariance is used, not just the diagonal."""
    variance = 60.0 ** 2
    independent = rank_intervals([1530.0, 1500.0], np.diag([variance, variance]))
    together = rank_intervals([1530.0, 1500.0], np.array([[variance, 0.99 * variance], [0.99 * variance, variance]]))
    assert independent[0].p_first < 0.8 < together[0].p_first
    assert (independent[0].low, independent[0].high) == (1, 2) and (together[0].low, together[0].high) == (1, 1)


def test_the_singular_covariance_of_a_real_fit_is_sampled():
    """The fit centres its ratings on the pool's average, so their covariance is singular: no Cholesky."""
    rng = np.random.default_rng(3)
    strengths = np.array([300.0, 150.0, 0.0, -150.0, -300.0])
    white, black, score = [], [], []
    for _ in range(3000):
        i, j = rng.choice(5, size=2, replace=False)
        p = 1.0 / (1.0 + 10.0 ** ((strengths[j] - strengths[i]) / 400.0))
        white.append(i)
        black.append(j)
        score.append(float(rng.random() < p))
    result = fitting.fit_games(white, black, score, 5)
    assert np.linalg.matrix_rank(result.covariance) < 5
    places = rank_intervals([p.elo for p in result.players], result.covariance)
    assert [p.rank for p in places] == [1, 2, 3, 4, 5]
    assert all(p.low <= p.rank <= p.high for p in places) and all(0.0 <= p.p_first <= 1.0 for p in places)
    assert sum(p.p_first for p in places) == pytest.approx(1.0)


def test_without_a_usable_covariance_the_margins_are_used():
    nan = np.full((2, 2), np.nan)
    from_margins = rank_intervals([1600.0, 1400.0], None, margin=[50.0, 50.0])
    assert rank_intervals([1600.0, 1400.0], nan, margin=[50.0, 50.0]) == from_margins
    assert [(p.low, p.high, p.p_first) for p in from_margins] == [(1, 1, 1.0), (2, 2, 0.0)]
    with pytest.raises(ValueError, match="covariance or the margins"):
        rank_intervals([1600.0, 1400.0], nan)


def test_nobody_and_one_bot():
    assert rank_intervals([], np.zeros((0, 0))) == []
    [alone] = rank_intervals([1500.0], np.array([[400.0]]))
    assert (alone.rank, alone.low, alone.high, alone.p_first) == (1, 1, 1, 1.0)
