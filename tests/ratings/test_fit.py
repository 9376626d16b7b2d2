"""The fitted ratings: on the arena's one Elo scale (checked against a plain, game-by-game computation),
sane from the first games, and a clear status for every bad pool."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from ratings import fit as fitting

TRUE = np.linspace(-210.0, 210.0, 8)  # Elo around the pool average
ADVANTAGE = 60.0


def simulate(true, advantage, draw_rate, pairs, seed):
    """Colour-swapped pairs between random bots. White's expected score is exactly 1 / (1 + 10^(-D/400))
    (D = difference + advantage), draws counting half; draws take ``draw_rate`` of the games between
    equals and fewer between unequal bots (P(draw) = draw_rate · 2 min(E, 1 − E))."""
    rng = np.random.default_rng(seed)
    n = len(true)
    first = rng.integers(0, n, pairs)
    second = (first + rng.integers(1, n, pairs)) % n
    white, black = np.r_[first, second], np.r_[second, first]
    expected = 1 / (1 + 10 ** (-(true[white] - true[black] + advantage) / 400))
    drawn = draw_rate * 2 * np.minimum(expected, 1 - expected)
    u = rng.random(len(white))
    score = np.where(u < expected - drawn / 2, 1.0, np.where(u < expected + drawn / 2, 0.5, 0.0))
    return white, black, score


def plain_objective(params, white, black, score, dispersion, prior_sd, advantage_prior_sd, version_prior_sd,
                    predecessor):
    """Minus the log posterior game by game, all in Elo: the binomial quasi-likelihood of each score with
    E = 1 / (1 + 10^(-D/400)), divided by the dispersion, and the normal priors: each rating around 0, or
    around its predecessor's (with version_prior_sd) where it has one. params: ratings, advantage."""
    ratings, advantage = params[:-1], params[-1]
    expected = 1 / (1 + 10 ** (-(ratings[white] - ratings[black] + advantage) / 400))
    loglik = np.sum(score * np.log(expected) + (1 - score) * np.log(1 - expected))
    centre = np.where(predecessor >= 0, ratings[predecessor], 0.0)
    sd = np.where(predecessor >= 0, version_prior_sd, prior_sd)
    return (-loglik / dispersion + 0.5 * np.sum(((ratings - centre) / sd) ** 2)
            + 0.5 * advantage ** 2 / advantage_prior_sd ** 2)


def plain_prior_precision(prior_sd, advantage_prior_sd, version_prior_sd, predecessor):
    """The Hessian of the priors in plain_objective, by its definition: Σ (e_i − e_pred(i)) (…)ᵀ / sd_i²."""
    n = len(predecessor)
    precision = np.zeros((n + 1, n + 1))
    for i, parent in enumerate(predecessor):
        row = np.zeros(n + 1)
        row[i] = 1
        if parent >= 0:
            row[parent] = -1
        precision += np.outer(row, row) / (version_prior_sd if parent >= 0 else prior_sd) ** 2
    precision[n, n] = 1 / advantage_prior_sd ** 2
    return precision


def plain_fit(white, black, score, n, predecessor=None):
    """scipy's BFGS on the game-by-game posterior; the dispersion by repeated substitution, from its
    definition: the score's variance E(1 − E) − P(draw)/4 over E(1 − E), summed over the games, with two
    virtual decisive games between equals. Intervals: the sandwich H⁻¹ B H⁻¹ of the observed per-game
    score residuals (the robust estimate, which knows nothing of how draws shrink the variance)."""
    x, dispersion = np.zeros(n + 1), 1.0
    args = (white, black, score)
    prior_sd, advantage_prior_sd, version_prior_sd = fitting.prior_sds()  # the module's defaults
    predecessor = np.full(n, -1) if predecessor is None else np.asarray(predecessor)
    priors = (prior_sd, advantage_prior_sd, version_prior_sd, predecessor)
    for _ in range(6):
        x = optimize.minimize(plain_objective, x, method="BFGS", options={"gtol": 1e-8},
                              args=(*args, dispersion, *priors)).x
        expected = 1 / (1 + 10 ** (-(x[white] - x[black] + x[-1]) / 400))
        spread = np.sum(expected * (1 - expected))
        dispersion = (spread - np.sum(score == 0.5) / 4 + 0.5) / (spread + 0.5)
    k = math.log(10) / 400
    design = np.zeros((len(white), n + 1))
    design[np.arange(len(white)), white] += 1
    design[np.arange(len(white)), black] -= 1
    design[:, -1] = 1
    weights = expected * (1 - expected) * k * k / dispersion
    precision = plain_prior_precision(*priors)
    hessian = design.T @ (design * weights[:, None]) + precision
    per_game = design * ((score - expected) * k / dispersion)[:, None]
    inverse = np.linalg.inv(hessian)
    sandwich = inverse @ (per_game.T @ per_game) @ inverse
    centre = np.eye(n + 1)
    centre[:n, :n] -= 1 / n
    sandwich = centre @ sandwich @ centre.T
    ratings = 1500 + x[:n] - x[:n].mean()
    margins = fitting.Z95 * np.sqrt(np.diag(sandwich))
    return ratings, x[-1], margins[:n], margins[n]


def assert_sane(result: fitting.Fit, average=1500.0):
    """Every number finite or None, no rating beyond the pool average ± 1000, no margin of 1000."""
    values = [result.advantage, result.advantage_margin, result.dispersion]
    values += [v for p in result.players for v in (p.elo, p.margin, p.low, p.high)]
    assert all(v is None or math.isfinite(v) for v in values)
    for p in result.players:
        assert (p.elo is None) == (p.margin is None) == (p.status != fitting.RATED)
        assert p.elo is None or (abs(p.elo - average) < 1000 and 0 < p.margin < 1000)
    assert result.advantage is None or abs(result.advantage) < 1000 and result.advantage_margin < 1000


@pytest.mark.parametrize(("draw_rate", "draws"), [(0.0, 0.0), (0.36, 0.2), (0.9, 0.5)])
def test_ratings_and_intervals_are_on_the_expected_score_scale(draw_rate, draws):
    """Against the plain computation: ratings and advantage within 1 Elo, widths within 10% (bots with 30+
    games), whatever the share of draws."""
    white, black, score = simulate(TRUE, ADVANTAGE, draw_rate, pairs=600, seed=11)
    assert abs(np.mean(score == 0.5) - draws) < 0.04
    result = fitting.fit_games(white, black, score, len(TRUE))
    ratings, advantage, margins, advantage_margin = plain_fit(white, black, score, len(TRUE))
    assert np.abs([p.elo for p in result.players] - ratings).max() < 1.0
    assert abs(result.advantage - advantage) < 1.0
    for p, margin in zip(result.players, margins):
        assert p.games >= 30 and p.margin == pytest.approx(margin, rel=0.10)
    assert result.advantage_margin == pytest.approx(advantage_margin, rel=0.10)
    assert result.draw_share == pytest.approx(np.mean(score == 0.5))
    assert_sane(result)


def test_each_bot_scores_what_its_ratings_expect_once_the_prior_is_out_of_the_way():
    """Ordo's equations, on the same scale as the live Elo: with a vanishing prior, each bot's expected
    score over its games equals its actual score, and the first player's too."""
    white, black, score = simulate(TRUE[:5], ADVANTAGE, 0.4, pairs=150, seed=4)
    result = fitting.fit_games(white, black, score, 5, prior_sd=1e6, advantage_prior_sd=1e6)
    elo = np.array([p.elo for p in result.players])
    expected = 1 / (1 + 10 ** (-(elo[white] - elo[black] + result.advantage) / 400))
    for bot in range(5):
        actual = score[white == bot].sum() + (1 - score[black == bot]).sum()
        assert expected[white == bot].sum() + (1 - expected[black == bot]).sum() == pytest.approx(actual, abs=1e-6)
    assert expected.sum() == pytest.approx(score.sum(), abs=1e-6)


def test_the_order_of_the_games_does_not_matter():
    white, black, score = simulate(TRUE, ADVANTAGE, 0.3, pairs=200, seed=5)
    result = fitting.fit_games(white, black, score, len(TRUE))
    order = np.random.default_rng(5).permutation(len(white))
    shuffled = fitting.fit_games(white[order], black[order], score[order], len(TRUE))
    assert [p.elo for p in shuffled.players] == pytest.approx([p.elo for p in result.players], abs=1e-6)
    assert shuffled.advantage == pytest.approx(result.advantage, abs=1e-6)


def test_the_average_is_a_setting():
    white, black, score = simulate(TRUE, ADVANTAGE, 0.3, pairs=200, seed=6)
    result = fitting.fit_games(white, black, score, len(TRUE))
    shifted = fitting.fit_games(white, black, score, len(TRUE), average=2000.0)
    assert [p.elo - 500 for p in shifted.players] == pytest.approx([p.elo for p in result.players], abs=1e-6)
    assert np.mean([p.elo for p in result.players]) == pytest.approx(1500.0)


def test_a_young_pool_has_finite_ratings_drawn_towards_it_and_a_sane_advantage():
    """The issue's case: 24 Tafl games, a searching bot beats a random one 11 times out of 12 (white
    winning 9 of the 12 games of the random one's side too) — the unpenalised fit said 2806 ± 747 and
    20 ± 934 with a 554 Elo advantage."""
    white = [0, 1] * 12
    black = [1, 0] * 12
    score = [1, 0] * 11 + [1, 1]  # the searching bot (0) lost once, as black
    result = fitting.fit_games(white, black, score, 2)
    search, random = result.players
    assert search.status == random.status == fitting.RATED
    assert 1500 < search.elo < 2000 and 1000 < random.elo < 1500 and search.elo - 1500 == pytest.approx(
        1500 - random.elo)
    assert search.low > 1500  # clearly better, and the interval says so
    assert abs(result.advantage) < 150 and result.advantage_margin < 300
    assert_sane(result)


def test_the_prior_pulls_less_as_games_come():
    one = fitting.fit_games([0, 1], [1, 0], [1, 0], 2)  # bot 0 won both
    many = fitting.fit_games([0, 1] * 20, [1, 0] * 20, [1, 0] * 20, 2)
    assert 1500 < one.players[0].elo < many.players[0].elo
    assert many.players[0].margin < one.players[0].margin < 1.96 * 300


@pytest.mark.parametrize(("white", "black", "score", "players", "statuses", "note"), [
    ([], [], [], 0, [], "no rated games"),  # an empty pool
    ([], [], [], 3, ["apart"] * 3, "no rated games"),
    ([0, 0], [0, 0], [1, 0], 1, ["apart"], "no rated games"),  # one bot: games against itself are not rated
    ([0, 1, 0], [1, 0, 1], [1, 0, 1], 2, ["rated"] * 2, ""),  # bot 0 won every game
    ([0, 1], [1, 0], [0.5, 0.5], 2, ["rated"] * 2, ""),  # only draws
    ([0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 1, 1], 2, ["rated"] * 2, ""),  # the first player won every game
    ([0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 0], 2, ["rated"] * 2, ""),  # the second player won every game
    ([0, 1, 1], [1, 0, 0], [1, 0, 1], 2, ["rated"] * 2, ""),  # 0 won with both colours, 1 only as white
    ([0, 1, 1, 2, 0, 2], [1, 0, 2, 1, 2, 0], [1, 0, 1, 0, 1, 0], 4, ["rated"] * 3 + ["apart"], ""),  # one-sided
    # a version with no games (3), and a group no game links to the pool (4 and 5)
    ([0, 1, 2, 0, 4], [1, 2, 0, 2, 5], [1, 0.5, 0, 1, 1], 6, ["rated"] * 3 + ["apart"] * 3,
     "2 bots played only in groups no game links to the rated pool"),
])
def test_bad_pools_get_a_status_for_every_bot_and_no_wild_number(white, black, score, players, statuses, note):
    result = fitting.fit_games(white, black, score, players)
    assert [p.status for p in result.players] == statuses
    assert result.note == note
    assert set(statuses) <= set(fitting.STATUSES)
    assert_sane(result)
    rated = [p.elo for p in result.players if p.elo is not None]
    assert not rated or np.mean(rated) == pytest.approx(1500.0)
    assert (result.advantage is None) == (not rated)


def test_the_one_sided_pool_still_orders_the_bots():
    # 0 always beat 1, 1 always beat 2, 0 beat 2, each with both colours
    result = fitting.fit_games([0, 1, 1, 2, 0, 2], [1, 0, 2, 1, 2, 0], [1, 0, 1, 0, 1, 0], 3)
    top, middle, bottom = (p.elo for p in result.players)
    assert top > middle > bottom and middle == pytest.approx(1500.0)


def test_the_priors_narrow_or_widen_the_pull():
    white, black, score = [0, 1, 0, 1], [1, 0, 1, 0], [1, 0, 1, 1]
    default = fitting.fit_games(white, black, score, 2)
    assert fitting.prior_sds() == (fitting.PRIOR_SD, fitting.ADVANTAGE_PRIOR_SD, fitting.VERSION_PRIOR_SD)
    explicit = fitting.fit_games(white, black, score, 2, prior_sd=fitting.PRIOR_SD,
                                 advantage_prior_sd=fitting.ADVANTAGE_PRIOR_SD)
    assert [p.elo for p in explicit.players] == [p.elo for p in default.players]
    narrow = fitting.fit_games(white, black, score, 2, prior_sd=100, advantage_prior_sd=50)
    assert 1500 < narrow.players[0].elo < default.players[0].elo


def test_bad_arrays_are_refused_by_name():
    with pytest.raises(ValueError, match="score must be 1, 0.5 or 0"):
        fitting.fit_games([0], [1], [0.7], 2)
    with pytest.raises(ValueError, match="player indices"):
        fitting.fit_games([0], [2], [1], 2)
    with pytest.raises(ValueError, match="one entry per game"):
        fitting.fit_games([0, 1], [1], [1], 2)


def test_the_covariance_is_of_the_reported_ratings():
    """Its diagonal gives back each rated player's margin; the rows of players outside the pool are NaN;
    the ratings are relative to the pool's average, so each row sums to 0."""
    white = [0, 1, 1, 2, 2, 0, 0, 1]
    black = [1, 0, 2, 1, 0, 2, 1, 2]
    score = [1, 0.5, 1, 0, 0.5, 1, 0, 0.5]
    result = fitting.fit_games(white, black, score, 4)
    margins = [p.margin for p in result.players]
    assert [p.status for p in result.players] == ["rated"] * 3 + ["apart"]
    for k in range(3):
        assert abs(fitting.Z95 * math.sqrt(result.covariance[k, k]) - margins[k]) < 1e-9
    assert np.abs(result.covariance[:3, :3].sum(axis=1)).max() < 1e-6
    assert np.isnan(result.covariance[3]).all()


def test_a_new_version_starts_from_its_predecessor_not_from_the_pool():
    """Bot 8 is a later version of the strongest bot, 7, with two games: its prior is centred on 7's rating,
    so it starts there, not near the pool's average, and the fit agrees with the plain computation of that
    posterior (ratings within 1 Elo)."""
    white, black, score = simulate(TRUE, ADVANTAGE, 0.3, 600, seed=11)
    white, black, score = np.r_[white, 8, 6], np.r_[black, 6, 8], np.r_[score, 1.0, 1.0]  # 1–1 with the second
    chain = np.r_[np.full(8, -1), 7]
    versioned = fitting.fit_games(white, black, score, 9, predecessor=chain)
    pooled = fitting.fit_games(white, black, score, 9)
    assert_sane(versioned)
    strongest = versioned.players[7].elo
    assert abs(versioned.players[8].elo - strongest) < 60
    assert pooled.players[8].elo < strongest - 120
    assert versioned.players[8].margin < fitting.Z95 * fitting.VERSION_PRIOR_SD
    ratings, advantage, _, _ = plain_fit(white, black, score, 9, predecessor=chain)
    assert np.abs(np.array([p.elo for p in versioned.players]) - ratings).max() < 1.0
    assert abs(versioned.advantage - advantage) < 1.0
    # the other bots' intervals hardly notice (they are relative to the average, the new version included)
    assert all(abs(v.margin / p.margin - 1) < 0.05 for v, p in zip(versioned.players[:7], pooled.players[:7]))


def test_a_predecessor_outside_the_pool_hands_on_its_own():
    """Version 2 follows version 1, which never played; it follows version 0 then."""
    white, black, score = [0, 3, 2, 3], [3, 0, 3, 2], [1, 0, 1, 0]
    direct = fitting.fit_games(white, black, score, 4, predecessor=[-1, -1, 0, -1])
    through = fitting.fit_games(white, black, score, 4, predecessor=[-1, 0, 1, -1])
    assert through.players[1].status == fitting.APART
    assert [p.elo for p in through.players] == [p.elo for p in direct.players]


@pytest.mark.parametrize(("predecessor", "message"), [
    ([-1, 0], "one index"), ([-1, 0, 5], "one index"), ([-1, -2, 0], "one index"), ([2, 0, 1], "circle")])
def test_bad_predecessors_are_refused(predecessor, message):
    with pytest.raises(ValueError, match=message):
        fitting.fit_games([0, 1, 2], [1, 2, 0], [1, 0, 1], 3, predecessor=predecessor)
