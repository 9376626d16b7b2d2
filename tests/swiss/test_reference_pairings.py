"""The Dutch engine against bbpPairings' own test files (tests/data/trf/, sources in their README.md)."""

from pathlib import Path

import pytest

from tournaments.swiss.trf import next_pairing, pairing_lines, read

DATA = Path(__file__).resolve().parent.parent / "data" / "trf"


@pytest.mark.parametrize("name", [
    "bbp_dutch_2025_C5",  # the bye goes to the lowest score it can (both 2-pointers float for it)
    "bbp_dutch_2025_C9",  # the bye goes to a player who has missed no round, by the transposition order
    "bbp_issue_7",  # 60 players, round 15: MDPs take the best resident first, then 4.3's exchange order
])
def test_pairs_as_bbppairings_does(name):
    expected = (DATA / f"{name}.expected").read_text().split("\n")
    pairing = next_pairing(read((DATA / f"{name}.trf").read_text()))
    assert pairing_lines(pairing) == [line for line in expected if line]
