"""The Dutch system's pairings: hand-checked rounds from the rules, and properties over random tournaments."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.swiss.dutch import (
    BLACK,
    WHITE,
    CannotPair,
    Entry,
    Played,
    mark_floats,
    pair_round,
    preference,
)


def entries(history):
    return mark_floats([Entry(number, tuple(rounds)) for number, rounds in history.items()])


def play(history, pairing, results):
    """Record a round: ``results`` gives white's points per board."""
    for (white, black), points in zip(pairing.boards, results, strict=True):
        history[white].append(Played(black, WHITE, points))
        history[black].append(Played(white, BLACK, 1 - points))
    if pairing.bye:
        history[pairing.bye].append(Played(None, None, 1.0, bye=True))


def test_round_one_pairs_top_half_against_bottom_half_with_alternating_colours():
    pairing = pair_round(entries({n: [] for n in range(1, 9)}), rounds=5)
    assert pairing.boards == [(1, 5), (6, 2), (3, 7), (8, 4)]
    assert pairing.bye is None


def test_round_one_with_black_drawn_for_the_top_player():
    pairing = pair_round(entries({n: [] for n in range(1, 5)}), rounds=3, initial_colour=BLACK)
    assert pairing.boards == [(3, 1), (2, 4)]


def test_odd_field_gives_the_bye_to_the_lowest_ranked():
    pairing = pair_round(entries({n: [] for n in range(1, 8)}), rounds=3)
    assert pairing.bye == 7
    assert pairing.boards == [(1, 4), (5, 2), (3, 6)]


def test_round_two_transposes_for_colour_preferences():
    history = {n: [] for n in range(1, 9)}
    play(history, pair_round(entries(history), rounds=5), [1, 0, 1, 0])  # 1, 2, 3 and 4 win
    pairing = pair_round(entries(history), rounds=5)
    # 1-3 and 2-4 would deny both players of each board their colour; 1-4 and 2-3 grant all four.
    assert pairing.boards == [(4, 1), (2, 3), (5, 8), (7, 6)]


def test_a_bye_goes_to_someone_who_has_not_had_one_and_counts_as_a_float():
    history = {n: [] for n in range(1, 6)}
    play(history, pair_round(entries(history), rounds=4), [0.5, 0.5])
    assert history[5][0].bye  # everyone else drew: 5 leads with the bye's point
    second = pair_round(entries(history), rounds=4)
    assert second.bye != 5
    assert entries(history)[4].rounds[0].floated == "down"


def test_the_colour_preferences_of_the_rules():
    assert preference(Entry(1)) == (None, 0)
    assert preference(Entry(1, (Played(2, WHITE, 1), Played(3, BLACK, 1)))) == (WHITE, 1)  # mild
    assert preference(Entry(1, (Played(2, WHITE, 1),))) == (BLACK, 2)  # strong
    assert preference(Entry(1, (Played(2, BLACK, 1), Played(3, None, 1), Played(4, WHITE, 0)))) == (BLACK, 1)
    assert preference(Entry(1, (Played(2, BLACK, 1), Played(3, BLACK, 1)))) == (WHITE, 3)  # absolute


def test_everyone_met_everyone_cannot_be_paired():
    history = {n: [] for n in range(1, 5)}
    for _ in range(3):
        play(history, pair_round(entries(history), rounds=4), [0.5, 0.5])
    with pytest.raises(CannotPair):
        pair_round(entries(history), rounds=4)


def simulate(players, rounds, seed, withdraw=False):
    """Play a whole random Swiss; return the history and who may break the colour limits in its final round."""
    rnd = random.Random(seed)
    history = {n: [] for n in range(1, players + 1)}
    present = set(history)
    topscorers, excepted = set(), set()
    for round_number in range(1, rounds + 1):
        if withdraw and round_number > 1 and len(present) > 3 and rnd.random() < 0.3:
            present.discard(rnd.choice(sorted(present)))
        current = [e for e in entries(history) if e.number in present]
        if round_number == rounds:
            topscorers = {e.number for e in current if e.score > (round_number - 1) / 2}
            excepted = set(topscorers)
        try:
            pairing = pair_round(current, rounds)
        except CannotPair:
            break
        if round_number == rounds:  # a topscorer's opponent shares the final round's exception
            excepted |= {n for board in pairing.boards if set(board) & topscorers for n in board}
        paired = [n for board in pairing.boards for n in board] + ([pairing.bye] if pairing.bye else [])
        assert sorted(paired) == sorted(present), "everyone present is paired, or gets the bye"
        play(history, pairing, [rnd.choice([1, 0.5, 0]) for _ in pairing.boards])
        for number in set(history) - present:
            history[number].append(Played(None, None, 0.0))
    return history, excepted


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 15), rounds=st.integers(1, 9), seed=st.integers(0, 10**6), withdraw=st.booleans())
def test_random_tournaments_keep_the_absolute_criteria(players, rounds, seed, withdraw):
    history, excepted = simulate(players, rounds, seed, withdraw)
    for number, played in history.items():
        opponents = [p.opponent for p in played if p.colour]
        assert len(opponents) == len(set(opponents)), f"{number} met someone twice"
        assert sum(p.bye for p in played) <= 1, f"{number} had two byes"
        colours = [p.colour for p in played if p.colour]
        # The rules let topscorers (and their opponents) break the colour limits in the final round only.
        checked = colours[:-1] if number in excepted else colours
        for end in range(1, len(checked) + 1):
            so_far = checked[:end]
            assert abs(so_far.count(WHITE) - so_far.count(BLACK)) <= 2, f"{number}: {colours}"
            assert so_far[-3:] not in (["w"] * 3, ["b"] * 3), f"{number}: {colours}"


def test_pairs_scoregroups_among_themselves_when_they_can():
    history, _ = simulate(16, 1, seed=3)
    second = pair_round(entries(history), rounds=5)
    scores = {e.number: e.score for e in entries(history)}
    floats = [board for board in second.boards if scores[board[0]] != scores[board[1]]]
    groups = {}
    for score in scores.values():
        groups[score] = groups.get(score, 0) + 1
    assert len(floats) <= sum(count % 2 for count in groups.values())


def test_only_a_round_scored_without_playing_is_a_downfloat():
    marked = entries({1: [Played(None, None, 0.0)], 2: [Played(None, None, 1.0, bye=True)]})
    assert [entry.rounds[0].floated for entry in marked] == [None, "down"]  # 1.4.3: more than a loss


@settings(max_examples=25, deadline=None)
@given(players=st.integers(3, 14), rounds=st.integers(2, 7), seed=st.integers(0, 10**6))
def test_the_pairing_does_not_depend_on_the_order_players_are_given(players, rounds, seed):
    history, _ = simulate(players, rounds - 1, seed)
    present = entries(history)
    shuffled = present[:]
    random.Random(seed).shuffle(shuffled)
    try:
        expected = pair_round(present, rounds)
    except CannotPair:
        return
    again = pair_round(shuffled, rounds)
    assert (again.boards, again.bye) == (expected.boards, expected.bye)
