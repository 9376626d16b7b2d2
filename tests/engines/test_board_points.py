"""Issue 22 item 2: what a drawing of a board needs, from each game's public API: its squares or points with
their coordinates and kinds (``Game.points``), and the pieces on them (``Position.pieces``)."""

from __future__ import annotations

import pytest

from engines import GAME_IDS, get_game


def test_tafl_marks_its_throne_corners_and_twelve_escape_squares():
    kinds = {point.name: point.kind for point in get_game("tafl9").points()}
    assert kinds["E5"] == "throne"
    assert sorted(name for name, kind in kinds.items() if kind == "corner") == ["A1", "A9", "I1", "I9"]
    assert len([kind for kind in kinds.values() if kind == "escape"]) == 12 and kinds["E9"] == "escape"
    assert {point.name: point.coords for point in get_game("tafl9").points()}["C2"] == (2, 1)


def test_fidchell_names_its_points_by_ring_and_index():
    points = {point.name: point for point in get_game("fidchell-2").points()}
    assert points["r4s15"].coords == (4, 15) and points["c"].coords == (0, 0) and points["c"].kind == "centre"
    assert len(points) == 109


def test_shatra_marks_its_fortresses_and_gates():
    points = get_game("shatra").points()
    assert len(points) == 62
    assert [p.name for p in points if p.kind == "gate"] == ["d4", "d11"]
    assert len([p for p in points if p.kind == "fortress"]) == 18
    numeric = get_game("shatra").points({"coordinates": "numeric"})
    assert [p.coords for p in numeric] == [p.coords for p in points] and numeric[0].name != points[0].name


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_pieces_stand_on_the_boards_points(game_id):
    game = get_game(game_id)
    position = game.initial()
    for _ in range(6):
        position = position.play(position.legal_moves()[-1])
    names = {point.name for point in game.points()}
    assert position.pieces() and set(position.pieces()) <= names
    # The pieces are read from the position itself: its text parsed again gives the same.
    assert game.parse(position.text()).pieces() == position.pieces()
