import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines import stats


def test_even_score_is_zero_elo():
    estimate = stats.elo_trinomial(10, 5, 10)
    assert estimate.score == 0.5
    assert estimate.elo == 0.0
    assert estimate.los == 0.5
    assert 0 < estimate.margin < 400


def test_known_figures_like_cutechess():
    # 60 W, 20 D, 20 L: score 0.7, Elo 147.2; interval computed by hand from the trinomial variance
    estimate = stats.elo_trinomial(60, 20, 20)
    assert estimate.score == pytest.approx(0.7)
    assert estimate.elo == pytest.approx(147.19, abs=0.01)
    variance = (60 * 0.3**2 + 20 * 0.2**2 + 20 * 0.7**2) / 100
    stdev = math.sqrt(variance / 100)
    low = stats.elo_from_score(0.7 - stats.Z95 * stdev)
    high = stats.elo_from_score(0.7 + stats.Z95 * stdev)
    assert estimate.margin == pytest.approx((high - low) / 2)
    assert estimate.text() == f"+147.2 +/- {estimate.margin:.1f}"
    assert estimate.los > 0.99


def test_clean_sweep_is_infinite():
    estimate = stats.elo_trinomial(4, 0, 0)
    assert estimate.elo == math.inf
    assert estimate.text() == "+inf"
    assert stats.elo_trinomial(0, 0, 3).text() == "-inf"


def test_more_games_narrow_the_interval():
    assert stats.elo_trinomial(60, 20, 20).margin < stats.elo_trinomial(6, 2, 2).margin


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match="no games"):
        stats.elo_trinomial(0, 0, 0)
    with pytest.raises(ValueError, match="whole numbers"):
        stats.elo_trinomial(-1, 2, 3)
    with pytest.raises(ValueError, match="pair score"):
        stats.pentanomial([0.25])
    with pytest.raises(ValueError, match="5 counts"):
        stats.elo_pentanomial((1, 2, 3))


def test_pentanomial_counts_and_estimate():
    counts = stats.pentanomial([2, 1, 1, 0.5, 1.5, 2])
    assert counts == (0, 1, 2, 1, 2)
    estimate = stats.elo_pentanomial(counts)
    assert estimate.games == 12
    assert estimate.score == pytest.approx(8 / 12)
    assert estimate.elo > 0
    assert estimate.elo == pytest.approx(400 * math.log10(2))  # score 2/3: odds 2 to 1
    # per-pair scores 0.25, 0.5, 0.5, 0.75, 1, 1 (as a share of the pair): variance over the 6 pairs
    points = [0.25, 0.5, 0.5, 0.75, 1.0, 1.0]
    variance = sum((p - 8 / 12) ** 2 for p in points) / 6
    stdev = math.sqrt(variance / 6)
    low = stats.elo_from_score(8 / 12 - stats.Z95 * stdev)
    high = stats.elo_from_score(8 / 12 + stats.Z95 * stdev)
    assert estimate.margin == pytest.approx((high - low) / 2)
    assert estimate.los == pytest.approx(fishtest_los([0, 1, 2, 1, 2]))  # from the pairs' spread


def test_pentanomial_interval_is_narrower_when_pairs_cancel_side_advantage():
    # most pairs split 1-1 (each bot wins with the strong side): trinomial sees noise, pentanomial little
    trinomial = stats.elo_trinomial(10, 0, 10)
    pentanomial = stats.elo_pentanomial((0, 1, 8, 1, 0))
    assert pentanomial.margin < trinomial.margin / 2 and pentanomial.elo == 0.0


@pytest.mark.parametrize("pairs", [(0, 0, 1, 0, 0), (0, 0, 10, 0, 0), (0, 3, 0, 0, 0)])
def test_a_sample_with_no_spread_has_no_interval_yet(pairs):
    """Every pair scored the same (one pair, or ten split 1-1): the sample says nothing of the spread, so
    the interval is unknown, never a claimed ±0 ("0.0 +/- 0.0" after one pair of an SPRT)."""
    estimate = stats.elo_pentanomial(pairs)
    assert math.isinf(estimate.margin)
    assert estimate.words().endswith("(too few games for an interval)")
    assert stats.elo_trinomial(0, 4, 0).margin == math.inf


def test_the_words_for_people_spell_out_what_is_not_a_number():
    assert stats.elo_trinomial(3, 0, 0).words() == "scored every point"
    assert stats.elo_trinomial(0, 0, 2).words() == "scored no point"
    assert stats.elo_trinomial(6, 2, 2).words() == f"+{stats.elo_trinomial(6, 2, 2).elo:.1f} ± " \
        f"{stats.elo_trinomial(6, 2, 2).margin:.1f}"


def fishtest_stats(results):
    """fishtest's stat_util.stats: games, per-game mean and the per-game variance of a pentanomial."""
    games = sum(results) * (len(results) - 1) / 2.0
    mu = sum(n * (i / 2.0) for i, n in enumerate(results)) / games
    mu_pair = (len(results) - 1) / 2.0 * mu
    var = sum(n * (i / 2.0 - mu_pair) ** 2 for i, n in enumerate(results)) / games
    return games, mu, var


def fishtest_los(results, regularize=False):
    """fishtest's get_elo LOS: Phi((mu - 0.5) / (stdev / sqrt(games))); it first replaces empty counts by 1e-3."""
    if regularize:
        results = [n or 1e-3 for n in results]
    games, mu, var = fishtest_stats(results)
    return 0.5 * (1.0 + math.erf((mu - 0.5) / (math.sqrt(var) / math.sqrt(games)) / math.sqrt(2.0)))


@pytest.mark.parametrize("pairs", [(10, 0, 0, 0, 20), (1, 3, 10, 6, 2), (5, 5, 5, 5, 5), (0, 2, 30, 3, 0),
                                   (10789, 19328, 33806, 19402, 10543), (1187, 7410, 13475, 7378, 1164)])
def test_pentanomial_los_is_fishtests(pairs):
    estimate = stats.elo_pentanomial(pairs)
    assert estimate.los == pytest.approx(fishtest_los(list(pairs)), abs=1e-12)
    assert estimate.los == pytest.approx(fishtest_los(list(pairs), regularize=True), abs=2e-3)


def test_a_won_won_pair_is_one_pair_not_two_independent_wins():
    # 10 pairs lost both games, 20 won both: score 2/3, its 95% interval reaches below an even score,
    # so the LOS must stay under 97.5% (counting 40 wins against 20 losses said 99.5%).
    estimate = stats.elo_pentanomial((10, 0, 0, 0, 20))
    assert estimate.low < 0 < estimate.high
    assert estimate.los == pytest.approx(0.9736, abs=1e-4)
    assert estimate.los < 0.975


def test_pentanomial_los_without_spread_is_certain():
    assert stats.elo_pentanomial((0, 0, 0, 4, 0)).los == 1.0
    assert stats.elo_pentanomial((0, 3, 0, 0, 0)).los == 0.0
    assert stats.elo_pentanomial((0, 0, 7, 0, 0)).los == 0.5


@given(st.lists(st.integers(0, 40), min_size=5, max_size=5).filter(lambda p: sum(p) > 0))
def test_pentanomial_los_is_fishtests_for_any_counts(pairs):
    estimate = stats.elo_pentanomial(tuple(pairs))
    assert 0.0 <= estimate.los <= 1.0
    if len([n for n in pairs if n]) > 1:  # some spread: fishtest's formula is defined
        assert estimate.los == pytest.approx(fishtest_los(pairs), abs=1e-9)


@given(st.floats(min_value=0.001, max_value=0.999))
def test_elo_and_score_round_trip(score):
    assert stats.score_from_elo(stats.elo_from_score(score)) == pytest.approx(score)


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_interval_contains_estimate(wins, draws, losses):
    if wins + draws + losses == 0:
        return
    estimate = stats.elo_trinomial(wins, draws, losses)
    if not math.isinf(estimate.elo) and not math.isinf(estimate.margin):
        assert estimate.low <= estimate.elo <= estimate.high


def test_a_tally_counts_wins_draws_and_losses_from_points_and_adds_to_a_start():
    assert stats.tally([1, 0.5, 0, 1.0, 0.0]) == (2, 1, 2)
    assert stats.tally([0.5], (3, 4, 5)) == (3, 5, 5)
    assert stats.tally([]) == (0, 0, 0)
    with pytest.raises(ValueError, match="1, 0.5 or 0"):
        stats.tally([0.25])


def test_pair_scores_feed_the_pentanomial_from_points_per_game():
    points = [1, 0, 0.5, 0.5, 1, 1, 0, 0]
    assert stats.pair_scores(points) == [1, 1, 2, 0]
    assert stats.pentanomial(stats.pair_scores(points)) == (1, 0, 2, 0, 1)
    assert stats.pentanomial([2], (1, 1, 1, 1, 1)) == (1, 1, 1, 1, 2)
    with pytest.raises(ValueError, match="even number"):
        stats.pair_scores([1, 0, 1])


# --- an opening's balance: results by side, the first mover's score, pairs from the first mover's view ---------
# Each entry is games: (winner, the winner of the game completing the pair on a pair's first game else None, count).

def test_balance_counts_sides_and_the_first_movers_pairs():
    # White moves first. Pair 1: white wins both games (each bot won as the first mover): 1 for game 1's first mover.
    # Pair 2: a draw, then black wins (game 1's first mover is black in game 2): 0.5 + 1 = 1.5. A lone game: no pair.
    played = stats.balance("white", [("white", "white", 1), ("white", None, 1),
                                     ("none", "black", 1), ("black", None, 1), ("black", None, 1)])
    assert (played.white_wins, played.draws, played.black_wins) == (2, 1, 2)
    assert played.first_wins == 2 and played.games == 5
    assert played.pairs == (0, 0, 1, 1, 0) and played.pair_count == 2
    assert played.first_score == pytest.approx(2.5 / 5)
    assert played.draw_rate == pytest.approx(1 / 5)


def test_balance_when_black_moves_first():
    # Black to move from the opening: a black win is the first mover's. Black winning both games of a pair is 1 (each
    # bot won as the first mover); black then white is 2 (game 1's first mover plays white in game 2); white then
    # a draw is 0.5.
    played = stats.balance("black", [("black", "black", 2), ("black", None, 2), ("black", "white", 1),
                                     ("white", None, 1), ("white", "none", 1), ("none", None, 1)])
    assert (played.white_wins, played.draws, played.black_wins) == (2, 1, 5)
    assert played.first_wins == 5
    assert played.pairs == (0, 1, 2, 0, 1)
    assert played.first_score == pytest.approx(5.5 / 8)


def test_balance_without_games_has_no_score_and_sums():
    assert stats.Balance().first_score is None and stats.Balance().draw_rate is None
    total = (stats.balance("white", [("white", "black", 1), ("black", None, 1)])
             + stats.balance("black", [("black", "none", 1), ("none", None, 1)]))
    assert (total.games, total.first_wins, total.draws, total.pairs) == (4, 2, 1, (0, 0, 0, 1, 1))
    assert total.first_score == pytest.approx(2.5 / 4)
    with pytest.raises(ValueError, match="winner"):
        stats.balance("white", [("blue", None, 1)])
