"""The ladder's pairing (ratings.pairing): small hand-built pools where the pairing that narrows the widest
interval most is plain to see, the predicted covariance checked against a direct inversion, and the rules
of ownership, fair shares and busy versions under every rule."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from ratings import pairing
from ratings.fit import ELO_PER_UNIT, Z95
from ratings.pairing import PRIOR_MARGIN, RULES, Entrant, choose_pairings, met_key

GAMES_PER_MATCH = 2


def entrant(version_id, owner=None, elo=1500.0, games=50, placements=10, bot=None):
    return Entrant(version_id=version_id, bot_id=version_id if bot is None else bot,
                   owner_id=version_id if owner is None else owner, elo=elo, games=games, placements=placements)


def ids(pairs):
    return [tuple(sorted((a.version_id, b.version_id))) for a, b in pairs]


def choose(pool, wanted=1, **options):
    options = {"owner_cap": 10, "placement_matches": 0, **options}
    return choose_pairings(pool, wanted, options.pop("busy", set()), options.pop("load", Counter()), **options)


def margins_after(pool, met, extra=()):
    """Every 95% margin after the games in ``met`` and one more match of each pair in ``extra``, from a
    direct inversion of the Bradley–Terry information (with the prior), relative to the pool average."""
    n = len(pool)
    precision = np.eye(n) / (PRIOR_MARGIN / Z95) ** 2
    games = Counter(met)
    for a, b in extra:
        games[met_key(a, b)] += GAMES_PER_MATCH
    for (i, a), (j, b) in combinations(enumerate(pool), 2):
        p = 1.0 / (1.0 + 10.0 ** ((b.elo - a.elo) / 400.0))
        u = np.zeros(n)
        u[i], u[j] = 1.0, -1.0
        precision += games[met_key(a, b)] * p * (1.0 - p) / ELO_PER_UNIT ** 2 * np.outer(u, u)
    centre = np.eye(n) - 1.0 / n
    return Z95 * np.sqrt(np.diag(centre @ np.linalg.inv(precision) @ centre))


# A league in progress: unequal strengths, some pairs often met, some never, one owner with two bots.
LEAGUE = [entrant(v, owner=o, elo=e) for v, o, e in
          [(1, 1, 1500), (2, 1, 1510), (3, 2, 1700), (4, 3, 1450), (5, 4, 1800), (6, 5, 1300)]]
LEAGUE_MET = {(1, 3): 40, (1, 4): 60, (2, 4): 8, (3, 4): 30, (3, 5): 50, (4, 6): 10, (5, 6): 4, (2, 6): 2}


def test_the_choice_narrows_the_widest_intervals_most_of_all_legal_pairs():
    (pair,) = choose(LEAGUE, met=LEAGUE_MET)
    assert pair[0].owner_id != pair[1].owner_id
    legal = [(a, b) for a, b in combinations(LEAGUE, 2) if a.owner_id != b.owner_id]
    after = {ids([ab])[0]: margins_after(LEAGUE, LEAGUE_MET, [ab]) for ab in legal}
    chosen = after[ids([pair])[0]]
    # the soft maximum the rule lowers (Σ variance^16, i.e. Σ margin^32), and the widest margin itself
    assert np.sum((chosen / 100) ** 32) == pytest.approx(min(np.sum((m / 100) ** 32) for m in after.values()))
    assert chosen.max() <= min(m.max() for m in after.values()) + 1.0  # Elo
    assert ids([pair]) != [(5, 6)]  # the two bots that have played least: that would leave 2 wide


def test_an_even_game_beats_a_lopsided_one():
    # 1 has played nobody; 2 and 3 are known, one close to 1's rating, one far above it.
    pool = [entrant(1, elo=1500), entrant(2, elo=1520), entrant(3, elo=1900), entrant(4, elo=1700)]
    met = {(2, 3): 100, (2, 4): 100, (3, 4): 100}
    assert ids(choose(pool, met=met)) == [(1, 2)]


def test_bots_that_have_met_often_leave_the_game_to_others():
    # Two groups that have played a lot inside, little across: only a game across places them.
    pool = [entrant(v) for v in (1, 2, 3, 4)]
    met = {(1, 2): 200, (3, 4): 200, (1, 3): 2}
    (pair,) = choose(pool, met=met)
    assert {pair[0].version_id, pair[1].version_id} not in ({1, 2}, {3, 4})


def test_games_count_per_version_so_a_new_version_is_still_unknown():
    # Bot 1's old version 10 played a lot; its new version 11 nobody: 11 needs the games.
    old, new = entrant(10, owner=1, bot=1), entrant(11, owner=1, bot=1)
    others = [entrant(v) for v in (20, 30, 40)]
    met = {(10, 20): 100, (10, 30): 100, (20, 30): 100, (20, 40): 100, (30, 40): 100, (10, 40): 100}
    assert pairing.met_key(new, others[0]) == (11, 20)
    (pair,) = choose([new, *others], met=met)
    assert 11 in ids([pair])[0]
    (pair,) = choose([old, new, *others], met=met)
    assert 11 in ids([pair])[0] and 10 not in ids([pair])[0]  # and never against its own predecessor


def test_the_predicted_covariance_and_its_update_match_a_direct_inversion():
    sigma = pairing.covariance(LEAGUE, LEAGUE_MET)
    assert Z95 * np.sqrt(np.diag(sigma)) == pytest.approx(margins_after(LEAGUE, LEAGUE_MET))
    assert sigma.sum(axis=0) == pytest.approx(np.zeros(len(LEAGUE)), abs=1e-6)  # relative to the pool average
    a, b = LEAGUE[0], LEAGUE[4]
    w = GAMES_PER_MATCH * pairing.game_information(a, b)
    after = pairing.after_match(sigma, 0, 4, w)
    assert Z95 * np.sqrt(np.diag(after)) == pytest.approx(margins_after(LEAGUE, LEAGUE_MET, [(a, b)]))


@pytest.mark.parametrize("rule", RULES)
def test_never_two_bots_of_one_owner_however_informative(rule):
    # 1 and 2 have played nobody: the best pair of all, but one owner's.
    pool = [entrant(1, owner=7), entrant(2, owner=7), entrant(3, owner=8), entrant(4, owner=9)]
    met = {(3, 4): 400}
    pairs = choose(pool, 3, rule=rule, met=met, rng=np.random.default_rng(1))
    assert len(pairs) == 2 and all(a.owner_id != b.owner_id for a, b in pairs)
    assert choose(pool[:2], 3, rule=rule, rng=np.random.default_rng(1)) == []


@pytest.mark.parametrize("rule", RULES)
def test_an_owner_gets_only_its_fair_share(rule):
    # Owner 1's bots have played nobody: without the cap they would be in every pairing.
    prolific = [entrant(i, owner=1) for i in range(1, 11)]
    others = [entrant(100 + i) for i in range(6)]
    met = {(100 + i, 100 + j): 50 for i, j in combinations(range(6), 2)}
    load = Counter()
    pairs = choose(prolific + others, 8, owner_cap=2, load=load, rule=rule, met=met, rng=np.random.default_rng(3))
    assert sum(1 for a, b in pairs if 1 in (a.owner_id, b.owner_id)) == 2
    assert len(pairs) == 4 and max(load.values()) <= 2


@pytest.mark.parametrize("rule", RULES)
def test_no_version_in_two_open_matches(rule):
    pool = [entrant(v) for v in range(1, 8)]
    busy = {2}
    pairs = choose(pool, 5, busy=busy, rule=rule, rng=np.random.default_rng(5))
    versions = [e.version_id for pair in pairs for e in pair]
    assert len(pairs) == 3 and len(set(versions)) == 6 and 2 not in versions
    assert busy == set(range(1, 8))


def test_busy_versions_are_left_out_and_placement_comes_first():
    # 3 is in placement although 1 and 2 have played less: it plays first, against a free bot.
    pool = [entrant(1), entrant(2), entrant(3, placements=0), entrant(4)]
    met = {(3, 4): 300, (1, 4): 10, (2, 4): 10}
    busy = {1}
    pairs = choose(pool, 1, busy=busy, placement_matches=3, met=met)
    assert ids(pairs) == [(2, 3)]
    assert busy == {1, 2, 3}


def test_the_answer_does_not_depend_on_the_pools_order():
    pool = [entrant(v, owner=v % 4, elo=1400 + 37 * v) for v in range(1, 11)]
    met = {met_key(a, b): (a.version_id * b.version_id) % 7 for a, b in combinations(pool, 2)}
    first = ids(choose(pool, 4, met=met))
    for seed in range(5):
        shuffled = pool[:]
        random.Random(seed).shuffle(shuffled)
        assert ids(choose(shuffled, 4, met=met)) == first


def test_cycling_plays_every_pair_in_turn():
    pool = [entrant(v) for v in (1, 2, 3, 4)]
    met = Counter()
    played = []
    for _ in range(6):
        (pair,) = choose(pool, 1, rule="cycle", met=met)
        met[met_key(*pair)] += 2
        played.append(ids([pair])[0])
    assert sorted(played) == sorted(combinations((1, 2, 3, 4), 2))


def test_random_pairing_needs_a_generator_and_repeats_with_its_seed():
    pool = [entrant(v) for v in range(1, 9)]
    with pytest.raises(ValueError, match="rng"):
        choose(pool, 1, rule="random")
    assert ids(choose(pool, 3, rule="random", rng=np.random.default_rng(4))) == \
        ids(choose(pool, 3, rule="random", rng=np.random.default_rng(4)))


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="rule"):
        choose([entrant(1), entrant(2)], 1, rule="x")
