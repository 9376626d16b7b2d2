"""Pairing by information (ratings.pairing): small hand-built pools where the most informative legal
pairing is plain to see."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from ratings.pairing import PRIOR_MARGIN, Entrant, choose_pairings, information, met_key, narrowed


def entrant(version_id, owner=None, elo=1500.0, margin=100.0, games=50, placements=10):
    return Entrant(version_id=version_id, bot_id=version_id, owner_id=version_id if owner is None else owner,
                   elo=elo, games=games, placements=placements, margin=margin)


def ids(pairs):
    return [tuple(sorted((a.version_id, b.version_id))) for a, b in pairs]


def test_the_two_widest_bots_at_even_odds_play():
    pool = [entrant(1, margin=40), entrant(2, margin=200), entrant(3, margin=180), entrant(4, margin=60)]
    assert ids(choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=0)) == [(2, 3)]


def test_an_even_game_beats_a_lopsided_one_between_equally_wide_bots():
    pool = [entrant(1, elo=1500), entrant(2, elo=1520), entrant(3, elo=1900)]
    assert ids(choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=0)) == [(1, 2)]


def test_bots_that_have_met_often_leave_the_game_to_others():
    # 1 and 2 are the widest but 400 games together pin their difference: 1 against 3 teaches more.
    pool = [entrant(1, margin=120), entrant(2, margin=120), entrant(3, margin=80)]
    assert ids(choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=0)) == [(1, 2)]
    met = {met_key(pool[0], pool[1]): 400}
    assert ids(choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=0, met=met)) == [(1, 3)]


def test_the_choice_is_the_best_legal_pair_of_all():
    pool = [entrant(v, owner=o, elo=e, margin=m) for v, o, e, m in
            [(1, 1, 1500, 150), (2, 1, 1510, 160), (3, 2, 1700, 90), (4, 3, 1450, 60), (5, 4, 1800, 140)]]
    (pair,) = choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=0)
    legal = [(a, b) for a, b in combinations(pool, 2) if a.owner_id != b.owner_id]
    assert information(*pair) == max(information(a, b) for a, b in legal)
    assert pair[0].owner_id != pair[1].owner_id  # 1 and 2 are the best pair of all, but one owner's


def test_never_two_bots_of_one_owner_however_informative():
    pool = [entrant(1, owner=7, margin=300), entrant(2, owner=7, margin=300), entrant(3, owner=8, margin=20)]
    pairs = choose_pairings(pool, 3, set(), Counter(), owner_cap=10, placement_matches=0)
    assert len(pairs) == 1 and all(a.owner_id != b.owner_id for a, b in pairs)
    assert choose_pairings(pool[:2], 3, set(), Counter(), owner_cap=10, placement_matches=0) == []


def test_an_owner_gets_only_its_fair_share():
    # Owner 1's bots are the widest: without the cap they would be in every pairing.
    prolific = [entrant(i, owner=1, margin=300) for i in range(1, 11)]
    others = [entrant(100 + i, margin=50) for i in range(6)]
    load = Counter()
    pairs = choose_pairings(prolific + others, 8, set(), load, owner_cap=2, placement_matches=0)
    assert sum(1 for a, b in pairs if 1 in (a.owner_id, b.owner_id)) == 2
    assert len(pairs) == 4 and max(load.values()) <= 2


def test_busy_versions_are_left_out_and_placement_comes_first():
    pool = [entrant(1, margin=300), entrant(2, margin=300), entrant(3, margin=50, placements=0),
            entrant(4, margin=40)]
    busy = {1}
    pairs = choose_pairings(pool, 1, busy, Counter(), owner_cap=10, placement_matches=3)
    assert ids(pairs) == [(2, 3)]  # the new version first, against the widest free opponent
    assert busy == {1, 2, 3}


def test_margins_narrow_with_the_games_since_the_fit():
    assert narrowed(100.0, 0) == pytest.approx(100.0)
    assert narrowed(PRIOR_MARGIN, 200) < narrowed(PRIOR_MARGIN, 100) < PRIOR_MARGIN
    assert narrowed(100.0, -5) == pytest.approx(100.0)  # fewer live games than fitted ones: unchanged


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="rule"):
        choose_pairings([entrant(1), entrant(2)], 1, set(), Counter(), owner_cap=10, placement_matches=0, rule="x")
