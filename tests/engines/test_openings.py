import pytest

from engines import BadPosition, get_game
from engines.openings import make_openings, opening_lines, parse_opening
from engines.record import record_of_play
from tests.engines.test_properties import playout

GAMES = ["tafl9", "fidchell-1", "fidchell-2", "shatra"]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_seed_makes_the_same_suite_and_another_seed_another(game_id):
    suite = make_openings(game_id, 12, 6, seed=7)
    assert suite == make_openings(game_id, 12, 6, seed=7)
    assert suite != make_openings(game_id, 12, 6, seed=8)
    assert len(set(suite)) == 12


@pytest.mark.parametrize("game_id", GAMES)
def test_every_opening_is_reached_by_its_legal_line_and_can_start_a_game(game_id):
    game = get_game(game_id)
    for text, line in opening_lines(game_id, 10, 5, seed=3):
        assert len(line) == 5
        record = record_of_play(game.initial(), line)  # raises on an illegal action
        assert record["final"] == text
        position = parse_opening(game_id, text)
        assert position.outcome() is None and position.legal_moves()
        assert position.phase == game.initial().phase  # Fidchell: still placing
        assert position.text() == text


def test_fidchell_openings_stay_in_the_placement_phase_and_leave_no_extra_turn_half_done():
    for _text, line in opening_lines("fidchell-2", 40, 8, seed=11):
        position = get_game("fidchell-2").initial()
        movers = []
        for action in line:
            movers.append(position.turn)
            position = position.play(action)
        assert position.phase == "place"
        assert position.turn != movers[-1]


@pytest.mark.parametrize("count, plies, seed, word", [
    (0, 4, 1, "count"), (5, 0, 1, "plies"), (5, 41, 1, "plies"), ("5", 4, 1, "count"), (5, 4, 1.5, "seed"),
])
def test_numbers_out_of_range_are_refused_naming_them(count, plies, seed, word):
    with pytest.raises(ValueError, match=word):
        make_openings("tafl9", count, plies, seed)


def test_more_openings_than_the_game_has_that_deep_are_refused():
    first_placements = len(get_game("fidchell-1").initial().legal_moves())
    with pytest.raises(ValueError, match="distinct"):
        make_openings("fidchell-1", first_placements + 1, 1, seed=1)


def test_a_position_that_cannot_start_a_game_is_refused():
    with pytest.raises(BadPosition):
        parse_opening("tafl9", "not a position")
    with pytest.raises(BadPosition):
        parse_opening("shatra", get_game("tafl9").initial().text())


@pytest.mark.parametrize("game_id", GAMES)
def test_a_finished_position_cannot_start_a_game(game_id):
    positions, _ = playout(game_id, 5)
    with pytest.raises(BadPosition, match="cannot start a game"):  # over, or (Fidchell) past placing
        parse_opening(game_id, positions[-1].text())
