"""The small shared pieces of engines.core the games' fast paths use."""

from engines.core import BoundedCache, digits_for_empty_runs


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
