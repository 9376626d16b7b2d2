"""An opening suite's balance counted from its games, and the rule that retires its one-sided openings."""

from __future__ import annotations

import pytest

from tests.support import finished_match
from tests.support.openings import make_suite, play_openings
from tournaments.models import Opening
from tournaments.openings_balance import first_mover, suite_balance
from tournaments.selectors import opening_suites as suites
from tournaments.services.openings_balance import retire_unbalanced, set_opening_retired


@pytest.fixture
def rules(settings):
    """Three pairs are enough (the default is more), bounds 25% and 75%."""
    settings.ARENA = {**settings.ARENA, "OPENING_BALANCE_MIN_PAIRS": 3, "OPENING_BALANCE_LOW": 0.25,
                      "OPENING_BALANCE_HIGH": 0.75}


def sides(row):
    return row.played.white_wins, row.played.draws, row.played.black_wins


def test_each_opening_counts_its_games_by_side_and_its_pairs(pair, django_assert_num_queries):
    ann, bob = pair
    suite = make_suite(count=3)  # two plies in: white moves first from each opening
    other = make_suite(name="other", count=1, seed=8)
    play_openings(ann, bob, suite, [1, 2], ["white", "white", "none", "black"])
    # Bob is version A here: the pair's first game still has white to move, so the pair is counted the same way.
    play_openings(bob, ann, suite, [1, 1], ["black", "white", "white", "none"])
    play_openings(ann, bob, other, [1], ["black", "black"])  # another suite's
    finished_match(ann, bob, ["white", "white"])  # no suite
    set_opening_retired(Opening.objects.get(suite=suite, number=2), True)
    with django_assert_num_queries(2):
        played = suite_balance(suite)
    one, two, three = played.openings
    assert [row.first for row in played.openings] == ["white", "white", "white"]
    assert sides(one) == (4, 1, 1) and one.played.games == 6
    # Pairs from game 1's first mover: white-white 1, black-white 0, white-draw 1.5.
    assert one.played.pairs == (1, 0, 1, 1, 0)
    assert one.played.first_score == pytest.approx(4.5 / 6)
    assert sides(two) == (0, 1, 1) and two.played.pairs == (0, 0, 0, 1, 0) and two.retired
    assert three.played.games == 0 and three.played.first_score is None and three.played.pairs == (0,) * 5
    assert (played.active, played.retired) == (2, 1)
    assert played.total.games == 8 and played.total.first_score == pytest.approx(5 / 8)
    assert played.total.draw_rate == pytest.approx(2 / 8) and played.total.pair_count == 4
    listed = {row.name: (row.opening_count, row.retired_count) for row in suites("tafl9")}
    assert listed == {"balance": (3, 1), "other": (1, 0)}
    assert list(suites("shatra")) == []


def test_the_first_mover_is_the_openings_side_to_move(pair):
    ann, bob = pair
    suite = make_suite(count=1, plies=1)  # one ply in: black moves first
    assert first_mover("tafl9", suite.openings.get().position) == "black"
    assert first_mover("tafl9", "not a position") == "white"  # unreadable: the game's own first mover
    play_openings(ann, bob, suite, [1], ["black", "none"])
    row = suite_balance(suite).openings[0]
    assert row.first == "black" and row.played.first_wins == 1
    assert row.played.first_score == pytest.approx(1.5 / 2)
    assert row.played.pairs == (0, 0, 0, 1, 0)  # game 1's first mover (black) won, then drew as white


def test_openings_outside_the_bounds_are_retired_after_enough_pairs(pair, rules):
    ann, bob = pair
    suite = make_suite(count=4)
    play_openings(ann, bob, suite, [1, 1, 1], ["white", "white", "white", "white", "none", "black"])  # 75%: kept
    play_openings(ann, bob, suite, [2, 2], ["white"] * 4)  # 100%, but two pairs only
    play_openings(ann, bob, suite, [3, 3, 3], ["black", "black", "black", "black", "none", "white"])  # 25%: kept
    play_openings(ann, bob, suite, [4, 4, 4], ["black", "black", "black", "black", "black", "none"])  # 1/12
    assert [opening.number for opening in retire_unbalanced(suite)] == [4]
    four = Opening.objects.get(suite=suite, number=4)
    assert four.retired_at is not None
    assert four.retired_reason == "white (first mover) scored 8.3% in 6 games, 3 pairs; bounds 25%-75%"
    play_openings(ann, bob, suite, [2], ["white", "none"])  # a third pair: 3.5 of 6 is above 75%
    assert [opening.number for opening in retire_unbalanced(suite)] == [2]
    assert retire_unbalanced(suite) == []  # idempotent: nothing more, and the retired keep their moment
    assert Opening.objects.get(pk=four.pk).retired_at == four.retired_at
    assert set(Opening.objects.filter(suite=suite, retired_at__isnull=True).values_list("number", flat=True)) == {1, 3}


def test_a_finished_match_of_a_suite_retires_its_one_sided_openings(pair, rules, django_capture_on_commit_callbacks):
    ann, bob = pair
    suite = make_suite(count=2)
    with django_capture_on_commit_callbacks(execute=True):
        play_openings(ann, bob, suite, [1, 1], ["white"] * 4)
    assert not Opening.objects.filter(retired_at__isnull=False).exists()  # two pairs: not yet
    with django_capture_on_commit_callbacks(execute=True):
        play_openings(ann, bob, suite, [1, 2], ["white", "white", "white", "black"])
    assert list(Opening.objects.filter(retired_at__isnull=False).values_list("number", flat=True)) == [1]
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(ann, bob, ["white", "white"])  # a match without a suite changes nothing
    assert Opening.objects.filter(retired_at__isnull=False).count() == 1


def test_an_operator_retires_and_brings_back_an_opening(db):
    suite = make_suite(count=1)
    opening = set_opening_retired(suite.openings.get(), True)
    assert opening.retired_at is not None and opening.retired_reason == "retired by an operator"
    assert set_opening_retired(opening, True).retired_at == opening.retired_at  # already retired: kept as it was
    back = set_opening_retired(opening, False)
    assert back.retired_at is None and back.retired_reason == ""
