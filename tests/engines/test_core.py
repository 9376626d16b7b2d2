"""The small shared pieces of engines.core the games' fast paths use."""

import json

import pytest

from engines.core import NONE, WHITE, BoundedCache, Outcome, Termination, Winner, digits_for_empty_runs


def test_a_bounded_cache_starts_afresh_when_full():
    cache = BoundedCache(3)
    for key in "abc":
        assert cache.keep(key, key.upper()) == key.upper()
    assert cache == {"a": "A", "b": "B", "c": "C"}
    cache.keep("d", "D")
    assert cache == {"d": "D"}


def test_runs_of_empty_squares_become_their_length():
    assert digits_for_empty_runs("11b111", 9) == "2b3"
    assert digits_for_empty_runs("111111111", 9) == "9"
    assert digits_for_empty_runs("1111111", 7) == "7"
    assert digits_for_empty_runs("1k1", 9) == "1k1"


def test_a_winner_is_the_word_the_records_and_the_database_store():
    assert [w.value for w in Winner] == ["white", "black", "none"]
    assert WHITE == "white" and {"none": 1}[NONE] == 1 and json.dumps([WHITE]) == '["white"]'
    assert Outcome("escape", "white").winner is Winner.WHITE  # a plain word becomes the type
    with pytest.raises(ValueError, match="winner must be white, black or none"):
        Outcome(Termination.ESCAPE, "White")


def test_an_outcome_gives_its_result_in_the_stored_words():
    words = Outcome(Termination.KING_CAPTURED, Winner.BLACK).words()
    assert words == {"winner": "black", "reason": "king-captured"}
    assert all(type(word) is str for word in words.values())  # plain strings: any JSON or database layer takes them
