"""The protocol's shared texts: the time control (§5) and the referee's lines (§4)."""

import pytest

from engines import BadSettings, get_game
from engines.protocol import TimeControl, go_prefix, played_line


def test_time_control_parsing():
    assert TimeControl.parse("clock:60000+500") == TimeControl("clock", 60000, 500)
    assert TimeControl.parse("move:1000").text() == "move:1000"
    for bad in ("clock:100", "move:0", "clock:0+5", "movetime:10", "move:-5", "", None):
        with pytest.raises(BadSettings):
            TimeControl.parse(bad)


def test_referee_lines():
    position = get_game("tafl9").initial()
    after = position.play("E3-H3")
    assert played_line("white", "E3-H3", after, 1) == "played white E3-H3 ply=1"
    assert go_prefix("black", 2, False, None) == "go side=black ply=2"
    assert go_prefix("white", 7, True, "placement") == "go side=white ply=7 extra=1 phase=placement"


def test_a_time_control_says_how_long_a_game_may_think():
    """What the workers' time limits (the longest game) and the owners' budgets (a typical one) both count."""
    assert TimeControl.parse("move:200").thinking_seconds(120) == 24.0  # every action's whole budget
    assert TimeControl.parse("clock:60000+500").thinking_seconds(100) == 170.0  # both clocks, an increment each
