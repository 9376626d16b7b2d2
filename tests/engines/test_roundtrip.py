"""A position read from its text is the position: ``parse(p.text())`` acts like ``p`` (issue 13, point 7)."""

from engines.fidchell import FIDCHELL_2
from tests.engines.test_fidchell_book import T26, load


def assert_same_game_on(p, q, actions):
    """``p`` and ``q`` have the same legal actions, outcome and text now and after each of ``actions``."""
    for action in [None, *actions]:
        if action is not None:
            p, q = p.play(action), q.play(action)
        assert q.text() == p.text(), f"after {action}"
        assert q.legal_moves() == p.legal_moves(), f"after {action}: {p.text()}"
        assert q.outcome() == p.outcome(), f"after {action}: {p.text()}"


def test_fidchell_owed_removal_read_from_text_gives_white_one_extra_turn():
    # rules/fidchell.md §5.5 and T26: after the removal White takes the one extra turn its capture earned
    played = load(T26 + "; CH=3").play("r6s8-r6s6")
    assert played.text().endswith("T=W; K=both; CH=R")
    read = FIDCHELL_2.parse(played.text())
    assert_same_game_on(played, read, ["x:r3s0,r3s8", "r7s1-r7s2", "r6s0-r6s1", "r7s2-r7s3"])
    after_extra_turn = read.play("x:r3s0,r3s8").play("r7s1-r7s2")
    assert after_extra_turn.turn == "black"
