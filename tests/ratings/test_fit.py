"""The fitted ratings against an independent likelihood maximisation, and the answers for bad pools."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from ratings import fit as fitting

TRUE = np.array([-225.0, -135.0, -45.0, 45.0, 135.0, 225.0])  # Elo around the pool average
ADVANTAGE, NU = 60.0, 0.5


def simulate(true, advantage, nu, pairs, seed):
    """Colour-swapped pairs between random bots, results drawn from the Davidson model."""
    rng = np.random.default_rng(seed)
    n = len(true)
    first = rng.integers(0, n, pairs)
    second = (first + rng.integers(1, n, pairs)) % n
    white, black = np.r_[first, second], np.r_[second, first]
    d = (true[white] - true[black] + advantage) / fitting.ELO_PER_UNIT / 2
    z = np.exp(d) + np.exp(-d) + nu
    u = rng.random(len(white))
    score = np.where(u < np.exp(d) / z, 1.0, np.where(u < (np.exp(d) + nu) / z, 0.5, 0.0))
    return white, black, score


def plain_negative_loglik(params, white, black, score, n):
    """Game by game, straight from the model: ratings (bot 0 at 0), advantage in Elo, log ν."""
    ratings = np.r_[0.0, params[: n - 1]]
    advantage, log_nu = params[n - 1], params[n]
    total = 0.0
    for w, b, s in zip(white, black, score):
        d = (ratings[w] - ratings[b] + advantage) * math.log(10) / 800
        z = math.exp(d) + math.exp(-d) + math.exp(log_nu)
        total -= math.log({1.0: math.exp(d), 0.5: math.exp(log_nu), 0.0: math.exp(-d)}[s] / z)
    return total


def plain_fit(white, black, score, n):
    start = np.r_[np.zeros(n - 1), 0.0, 0.0]
    result = optimize.minimize(plain_negative_loglik, start, args=(white, black, score, n), method="BFGS",
                               options={"gtol": 1e-7})
    ratings = np.r_[0.0, result.x[: n - 1]]
    return 1500 + ratings - ratings.mean(), result.x[n - 1], math.exp(result.x[n]), result.x


def assert_clean(result: fitting.Fit):
    """Every number is finite or None: nothing the API could print as NaN."""
    values = [result.advantage, result.advantage_margin, result.draw_nu]
    values += [v for p in result.players for v in (p.elo, p.margin, p.low, p.high)]
    assert all(v is None or math.isfinite(v) for v in values)


@pytest.fixture(scope="module")
def league():
    white, black, score = simulate(TRUE, ADVANTAGE, NU, pairs=300, seed=11)
    return white, black, score, fitting.fit_games(white, black, score, len(TRUE))


def test_the_fit_agrees_with_a_plain_likelihood_maximisation(league):
    white, black, score, result = league
    ratings, advantage, nu, _ = plain_fit(white, black, score, len(TRUE))
    fitted = np.array([p.elo for p in result.players])
    assert np.abs(fitted - ratings).max() < 0.5
    assert result.advantage == pytest.approx(advantage, abs=0.5)
    assert result.draw_nu == pytest.approx(nu, rel=1e-3)
    assert fitted.mean() == pytest.approx(1500.0)
    # and it found the strengths the league was built with, within its own intervals' reach
    assert np.abs(fitted - 1500 - TRUE).max() < 3 * max(p.margin for p in result.players)
    assert all(p.status == fitting.RATED and p.games > 0 for p in result.players)


def test_intervals_are_the_inverse_hessian_of_the_plain_likelihood(league):
    white, black, score, result = league
    n = len(TRUE)
    _, _, _, x = plain_fit(white, black, score, n)

    def f(p):
        return plain_negative_loglik(p, white, black, score, n)

    step = 1e-2 * np.r_[np.full(n - 1, 100.0), 100.0, 1.0]  # Elo for ratings and advantage, ν's log
    hessian = np.zeros((n + 1, n + 1))
    for i in range(n + 1):
        for j in range(n + 1):
            e_i, e_j = np.eye(n + 1)[i] * step[i], np.eye(n + 1)[j] * step[j]
            hessian[i, j] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)) / (
                4 * step[i] * step[j])
    cov = np.linalg.inv(hessian)
    # ratings relative to the pool average: c = M r, with r_0 fixed at 0
    m = np.eye(n)[:, 1:] - np.ones((n, n - 1)) / n
    cov_centred = m @ cov[: n - 1, : n - 1] @ m.T
    margins = fitting.Z95 * np.sqrt(np.diag(cov_centred))
    assert [p.margin for p in result.players] == pytest.approx(list(margins), rel=0.01)
    assert result.advantage_margin == pytest.approx(fitting.Z95 * math.sqrt(cov[n - 1, n - 1]), rel=0.01)


def test_the_order_of_the_games_does_not_matter(league):
    white, black, score, result = league
    order = np.random.default_rng(5).permutation(len(white))
    shuffled = fitting.fit_games(white[order], black[order], score[order], len(TRUE))
    assert [p.elo for p in shuffled.players] == pytest.approx([p.elo for p in result.players], abs=1e-6)
    assert shuffled.advantage == pytest.approx(result.advantage, abs=1e-6)


def test_the_average_is_a_setting(league):
    white, black, score, result = league
    shifted = fitting.fit_games(white, black, score, len(TRUE), average=2000.0)
    assert [p.elo - 500 for p in shifted.players] == pytest.approx([p.elo for p in result.players], abs=1e-6)


def test_without_draws_it_is_plain_bradley_terry():
    white, black, score = simulate(TRUE[:4], 0.0, 0.0, pairs=200, seed=3)
    result = fitting.fit_games(white, black, score, 4)
    assert result.draw_nu == 0.0

    def negative_loglik(r):  # Bradley–Terry with a home advantage, Elo scale, bot 0 at 0
        ratings, home = np.r_[0.0, r[:3]], r[3]
        k = math.log(10) / 400
        sign = {1.0: 1.0, 0.0: -1.0}  # white's win, or black's
        return sum(math.log(1 + math.exp(-sign[s] * k * (ratings[w] - ratings[b] + home)))
                   for w, b, s in zip(white, black, score))

    x = optimize.minimize(negative_loglik, np.zeros(4), method="BFGS").x
    ratings = np.r_[0.0, x[:3]]
    assert [p.elo for p in result.players] == pytest.approx(list(1500 + ratings - ratings.mean()), abs=0.5)
    assert result.advantage == pytest.approx(x[3], abs=0.5)


@pytest.mark.parametrize(("white", "black", "score", "players", "note"), [
    ([], [], [], 0, "no rated games"),
    ([], [], [], 3, "no rated games"),
    ([0, 0], [0, 0], [1, 0], 1, "no rated games"),  # one bot: games against itself are not rated
    ([0, 1, 0], [1, 0, 1], [1, 0, 1], 2, "no two bots"),  # bot 0 won every game
    ([0, 1], [1, 0], [0.5, 0.5], 2, "only draws"),
    ([0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 1, 1], 2, "first player won every game"),
    ([0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 0], 2, "second player won every game"),
    # 0 won as white and as black; 1 won only as white: 0 better and white better, without bound
    ([0, 1, 1], [1, 0, 0], [1, 0, 1], 2, "unbounded"),
])
def test_pools_without_a_finite_fit_get_no_ratings_and_a_note(white, black, score, players, note):
    result = fitting.fit_games(white, black, score, players)
    assert note in result.note
    assert all(p.elo is None and p.margin is None and p.low is None for p in result.players)
    assert result.advantage is None and result.draw_nu is None
    assert_clean(result)


def test_a_bot_that_only_won_or_only_lost_is_left_open_and_the_rest_are_rated():
    # 0 and 1 trade wins with both colours; 2 beat them both; 3 lost to them both; 4 never played
    white = [0, 1, 0, 1, 2, 0, 3, 1]
    black = [1, 0, 1, 0, 0, 2, 1, 3]
    score = [1, 1, 0, 0, 1, 0, 0, 1]
    result = fitting.fit_games(white, black, score, 5)
    assert [p.status for p in result.players] == ["rated", "rated", "above", "below", "apart"]
    assert [p.games for p in result.players] == [6, 6, 2, 2, 0]
    assert result.players[0].elo == pytest.approx(1500.0) and result.players[0].low < 1500 < result.players[0].high
    assert result.players[2].elo is None and result.players[3].elo is None
    assert result.games == 8 and result.fitted_games == 4
    assert_clean(result)


def test_with_only_one_sided_results_the_top_and_the_bottom_still_say_so():
    # 0 always beat 1, 1 always beat 2, 0 beat 2, each with both colours: no two bots scored against each other
    white = [0, 1, 1, 2, 0, 2]
    black = [1, 0, 2, 1, 2, 0]
    score = [1, 0, 1, 0, 1, 0]
    result = fitting.fit_games(white, black, score, 4)
    assert [p.status for p in result.players] == ["above", "apart", "below", "apart"]
    assert "no two bots have each scored against the other" in result.note
    assert all(p.elo is None for p in result.players)
    assert_clean(result)


def test_bad_arrays_are_refused_by_name():
    with pytest.raises(ValueError, match="score must be 1, 0.5 or 0"):
        fitting.fit_games([0], [1], [0.7], 2)
    with pytest.raises(ValueError, match="player indices"):
        fitting.fit_games([0], [2], [1], 2)
    with pytest.raises(ValueError, match="one entry per game"):
        fitting.fit_games([0, 1], [1], [1], 2)


def test_the_covariance_is_of_the_reported_ratings():
    """Its diagonal gives back each rated player's margin; the rows of players outside the pool are NaN."""
    white = [0, 1, 1, 2, 2, 0, 0, 1, 3]
    black = [1, 0, 2, 1, 0, 2, 1, 2, 0]
    score = [1, 0.5, 1, 0, 0.5, 1, 0, 0.5, 1]
    result = fitting.fit_games(white, black, score, 4)
    margins = [p.margin for p in result.players]
    assert [p.status for p in result.players][:3] == ["rated"] * 3
    for k in range(3):
        assert abs(fitting.Z95 * math.sqrt(result.covariance[k, k]) - margins[k]) < 1e-9
    assert np.isnan(result.covariance[3]).all()
