"""Altai Shatra: the book cases of docs/rules/shatra.md §7 (tests/data/shatra.json), perft, notation, settings."""

import dataclasses
import inspect
import json
from pathlib import Path

import pytest

from engines import BadPosition, BadSettings, IllegalAction, Position, RefereeError, get_game
from engines.shatra import SHATRA, START_FEN, Settings

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "shatra.json").read_text())
CASES = {case["id"]: case for case in DATA["cases"]}
GAME = get_game("shatra")


def fields5(text):
    return text.split()[:5]


def reach(case, step, game=GAME, settings=None):
    position = game.parse(step.get("start", case.get("start")), settings)
    for action in step.get("play", []):
        position = position.play(action)
    return position


def generic_perft(position, depth):
    if depth == 0:
        return 1
    return sum(generic_perft(position.play(a), depth - 1) for a in position.legal_moves())


def depth2_captures(position):
    """How many depth-2 positions give the side to move a capture, force one, or leave it to the biy alone."""
    board = position._core()
    counts = {"with_capture": 0, "forced": 0, "biy_only": 0}
    for first in board.legal():
        undo1 = board.make(first)
        for second in board.legal():
            undo2 = board.make(second)
            series, compulsory, _ = board.captures()
            if series:
                counts["with_capture"] += 1
                counts["forced" if compulsory else "biy_only"] += 1
            board.unmake(second, undo2)
        board.unmake(first, undo1)
    return counts


def check_step(case, step):
    position = reach(case, step)
    legal = position.legal_moves()
    assert legal == sorted(legal) and len(set(legal)) == len(legal)
    if "position" in step:
        assert fields5(position.text()) == fields5(step["position"])
    if "legal" in step:
        assert legal == step["legal"]
    if "count" in step:
        assert len(legal) == step["count"]
    for action in step.get("legal_includes", []):
        assert action in legal
    for action in step.get("illegal", []):
        assert action not in legal
        before = position.text()
        with pytest.raises(IllegalAction):
            position.play(action)
        assert position.text() == before
    if "only_from" in step:
        assert legal and all(any(a.startswith(sq) and not a[len(sq)].isdigit() for sq in step["only_from"])
                             for a in legal)
    if "count_from" in step:
        per_square = {}
        for action in legal:
            origin = action[:3] if action[2].isdigit() else action[:2]
            per_square[origin] = per_square.get(origin, 0) + 1
        assert per_square == step["count_from"]
    if "none_contain" in step:
        assert legal and not [a for a in legal if step["none_contain"] in a]
    if "captured" in step:
        assert list(position.captured) == step["captured"]
    if "outcome" in step:
        outcome = position.outcome()
        assert (None if outcome is None else str(outcome)) == step["outcome"]
    if "every_legal_outcome" in step:
        assert legal
        for action in legal:
            after = position.play(action)
            assert str(after.outcome()) == step["every_legal_outcome"]
            assert after.legal_moves() == []
    for depth, count in step.get("perft", {}).items():
        assert position.perft(int(depth)) == count
    if "divide" in step:
        depth = step["divide"]["depth"]
        for action, count in step["divide"]["counts"].items():
            assert position.play(action).perft(depth - 1) == count, action
    if "depth2_captures" in step:
        assert depth2_captures(position) == step["depth2_captures"]


def every_book_fen():
    for case in DATA["cases"]:
        for text in [case.get("start")] + [s.get(k) for s in case["steps"] for k in ("start", "position")]:
            if text:
                yield case["id"], text


def check_round_trip():
    for case_id, text in every_book_fen():
        assert GAME.parse(text).text() == text, case_id
    for case in DATA["cases"]:
        for step in case["steps"]:
            if step.get("legal"):
                position = reach(case, step)
                for action in step["legal"]:
                    assert position.canonical_action(action) == action
                    assert position.canonical_action(action.upper()) == action


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_book_case(case_id):
    case = CASES[case_id]
    if case.get("round_trip"):
        check_round_trip()
        return
    assert case["steps"], case_id
    for step in case["steps"]:
        check_step(case, step)


# ---------------------------------------------------------------- perft


@pytest.mark.parametrize("fen, depth", [
    (START_FEN, 2),
    ("3/3/3/1/k6/7/4pp1/2p4/7/Q5K/1/3/3/3 w - - 0 1", 3),  # T13
    ("3/3/3/1/k6/7/7/7/7/K6/1/3/1p1/PRP w T - 0 1", 3),  # T17
    ("1p1/1p1/P2/1/k6/7/7/7/RBB4/6K/1/3/3/3 w - - 0 1", 3),  # T24
    ("3/3/3/1/3p2k/p6/2P4/7/7/K6/1/3/3/3 b - - 0 1", 3),  # T23
    ("1P1/3/3/1/k6/7/2p4/2R4/QR2BB1/6K/1/3/3/3 b - - 0 1", 2),  # T28
])
def test_fast_perft_equals_the_generic_definition(fen, depth):
    position = GAME.parse(fen)
    assert position.perft(depth) == generic_perft(position, depth)
    assert sum(position.divide(depth).values()) == position.perft(depth)


@pytest.mark.parametrize("values", [
    {"may_leave_biy_capturable": False},
    {"drop_separator": "*", "drops_on_great_road": False},
    {"long_jump_landing": "first-continuing", "promote_mid_series": False},
    {"reserve_ordinary_moves": True, "biy_may_step_onto_gate": True, "tower_squares": True},
])
def test_fast_perft_equals_the_generic_definition_under_other_settings(values):
    for fen in ["3/3/3/1/k6/7/4pp1/2p4/7/Q5K/1/3/3/3 w - - 0 1", "1p1/1p1/P2/1/k6/7/7/7/RBB4/6K/1/3/3/3 w - - 0 1",
                "3/3/3/1/k6/7/7/7/3p3/2p1p1K/1/2Q/3/3 w T - 0 1"]:
        position = GAME.parse(fen, values)
        assert position.perft(3) == generic_perft(position, 3)


def test_fast_perft_sees_draws_inside_the_tree():
    # Two plies after this the position repeats for the third time: the generic rule ends it there.
    position = GAME.parse("1q1/3/3/1/6k/7/7/7/7/K6/1/3/3/1Q1 w - - 0 1")
    for action in ["a5-a6", "g10-g9", "a6-a5", "g9-g10", "a5-a6", "g10-g9"]:
        position = position.play(action)
    assert position.perft(3) == generic_perft(position, 3)
    near_cap = GAME.parse("1q1/3/3/1/6k/7/7/7/7/K6/1/3/3/1Q1 w - - 98 1")
    assert near_cap.perft(3) == generic_perft(near_cap, 3)
    unlimited = GAME.parse(near_cap.text(), {"no_progress_plies": 0})
    assert near_cap.perft(2) == unlimited.perft(2)  # positions at depth 2 count even when drawn
    assert near_cap.perft(3) < unlimited.perft(3)  # ... but nothing is played below them


@pytest.mark.slow
def test_start_perft_3_divides_sum_to_the_total():
    position = GAME.initial()
    divide = position.divide(3)
    assert len(divide) == 154
    assert sum(divide.values()) == position.perft(3)


# ---------------------------------------------------------------- positions and notation


def test_initial_position_and_game_object():
    position = GAME.initial()
    assert GAME is SHATRA and GAME.id == "shatra" and GAME.ruleset.startswith("shatra/")
    assert GAME.max_plies == 1000
    assert position.text() == START_FEN
    assert position.turn == "white" and position.ply == 0 and position.outcome() is None
    assert position.captured == () and position.phase is None
    assert isinstance(position, Position)


@pytest.mark.parametrize("text, words", [
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0", "6 fields"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP w Tt - 0 1", "14 ranks"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPX/K/BRB/PRP/PQP w Tt - 0 1", "bad piece letter"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/6/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1", "rank 6"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/8/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1", "rank 6"),
    ("pqpp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1", "rank 14"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/34/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1", "empty-square count"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP x Tt - 0 1", "side to move"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w tT - 0 1", "temdek field"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - -1 1", "noprogress"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 0", "move number"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt z9 0 1", "en-passant square"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt d6 0 1", "en-passant square"),
    ("pqp/prp/brb/1/ppppppp/7/7/7/7/PPPPPPP/1/BRB/PRP/PQP w Tt - 0 1", "both biys"),
    ("pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQK w Tt - 0 1", "2 biys"),
    ("pqp/prp/brb/1/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1", "no biy"),
    ("3/3/3/1/k6/7/7/7/7/K6/1/3/3/3 w T - 0 1", "temdek is on"),
    ("1P1/3/3/1/k6/7/7/7/QR5/6K/1/3/3/3 w - - 0 1", "would have promoted"),
    ("3/3/3/1/k6/7/7/7/QQ5/6K/1/3/3/3 w - - 0 1", "the army allows"),
    ("3/3/3/1/k6/7/7/7/!Q6/6K/1/3/3/3 w - - 0 1", "urgent mark"),
    ("3/3/3/1/k6/7/7/7/7/6K/1/!3/3/3 w - - 0 1", "'!' must precede"),
    ("3/3/3/1/k6/7/7/7/7/K6/1/1!R1/3/P1P w - - 0 1", "urgent mark"),
    ("3/3/3/1/6k/p6/2Pp3/7/7/K6/1/3/3/3 b - d9 0 1", "en-passant square"),
    ("3/3/3/1/4p1k/p6/2Pp3/7/7/K6/1/3/3/3 w - d9 0 1", "no en-passant jump"),
])
def test_bad_position_strings_are_rejected_with_a_reason(text, words):
    with pytest.raises(BadPosition, match=words):
        GAME.parse(text)


def test_bad_position_errors_are_referee_errors():
    for bad in ["", "   ", None, 42]:
        with pytest.raises(RefereeError):
            GAME.parse(bad)


def test_position_after_a_biy_capture_round_trips_and_is_over():
    position = GAME.parse("3/3/3/1/7/7/4p2/2k4/7/Q5K/1/3/3/3 w - - 0 1").play("a5xe9")
    assert position.captured == ("c7",)
    again = GAME.parse(position.text())
    assert again.text() == position.text()
    assert str(again.outcome()) == "winner=white reason=biy-captured"
    assert again.legal_moves() == [] and again.perft(2) == 0


def test_play_is_case_insensitive_and_immutable():
    position = GAME.parse("1p1/1p1/P2/1/k6/7/7/7/RBB4/6K/1/3/3/3 w - - 0 1")
    before = position.text()
    after = position.play("C12XE14=qXC14")
    assert position.text() == before and position.legal_moves() == ["c12xe14=Qxc14", "c12xe14=Rxc14"]
    assert fields5(after.text()) == fields5("Q2/3/3/1/k6/7/7/7/RBB4/6K/1/3/3/3 b - - 0 1")
    assert after.captured == ("d13", "d14")
    assert after.turn == "black" and after.ply == 1


@pytest.mark.parametrize("action", ["", "a5", "a5-a9", "zz-zz", "a5xa7", "d1-d6=Q", "resign"])
def test_illegal_actions_raise_and_change_nothing(action):
    position = GAME.initial()
    with pytest.raises(IllegalAction, match="illegal action"):
        position.play(action)
    assert position.text() == START_FEN


@pytest.mark.parametrize("fen, action, words", [
    (START_FEN, "a5-a9", "not a legal move of the piece on a5"),
    (START_FEN, "a9-a8", "no white piece on a9"),
    (START_FEN, "q1-d4", "malformed"),
    ("3/3/3/1/k6/7/7/2p4/2K4/P6/1/3/3/3 w - - 0 1", "a5-a6", "the piece on a5 has no legal move here"),
    ("3/3/3/1/6k/2p4/7/1p5/1P5/K6/1/3/3/3 w - - 0 1", "b6xb8", "the series must go on"),
    ("3/3/3/1/k6/7/3P3/3p3/7/1P4K/1/3/3/3 w - - 0 1", "b5-b6", "a capture is compulsory"),
])
def test_illegal_action_messages_say_why(fen, action, words):
    with pytest.raises(IllegalAction, match=words):
        GAME.parse(fen).play(action)


def test_playing_on_after_the_end_is_illegal():
    position = GAME.parse("3/3/3/1/kPP4/PP5/P1P4/7/7/6K/1/3/3/3 b - - 0 1")
    with pytest.raises(IllegalAction, match="game is over"):
        position.play("a10-a9")


def test_repetition_history_starts_afresh_from_a_parsed_position():
    position = GAME.parse("1q1/3/3/1/6k/7/7/7/7/K6/1/3/3/1Q1 w - - 0 1")
    for action in ["a5-a6", "g10-g9", "a6-a5", "g9-g10"] * 2:
        position = position.play(action)
    assert position.outcome().reason == "repetition"
    assert GAME.parse(position.text()).outcome() is None


def test_max_plies_cap():
    position = GAME.parse("1q1/3/3/1/6k/7/7/7/7/K6/1/3/3/1Q1 b - - 0 500")
    assert position.ply == 999 and position.outcome() is None
    assert str(position.play("g10-g9").outcome()) == "winner=none reason=max-plies"


# ---------------------------------------------------------------- settings


def test_every_setting_has_a_decision_comment_and_json_type():
    source = inspect.getsource(Settings)
    for field in dataclasses.fields(Settings):
        assert type(field.default) in (bool, int, str, float)
        line = next(li for li in source.splitlines() if li.strip().startswith(f"{field.name}:"))
        assert "# A" in line, field.name


@pytest.mark.parametrize("values, words", [
    ({"coordinates": "roman"}, "coordinates"),
    ({"first_side": "red"}, "first_side"),
    ({"long_jump_landing": "nearest"}, "long_jump_landing"),
    ({"promotion_pool": "QK"}, "promotion_pool"),
    ({"repetition_draw_count": 1}, "repetition_draw_count"),
    ({"max_plies": -1}, "max_plies"),
    ({"start_position": "nonsense"}, "start_position"),
    ({"great_road": "yes"}, "great_road"),
    ({"no_such_rule": True}, "unknown"),
])
def test_bad_settings_are_rejected(values, words):
    with pytest.raises(BadSettings, match=words):
        GAME.initial(values)


def legal(fen, **values):
    return GAME.parse(fen, values).legal_moves()


def test_a2_first_side():
    assert GAME.initial({"first_side": "black"}).turn == "black"


def test_a3_double_step_from_rank_6():
    fen = "3/3/3/1/6k/7/7/7/2P4/K6/1/3/3/3 w - - 0 1"
    assert "c6-c8" not in legal(fen)
    assert "c6-c8" in legal(fen, double_step_from_rank5_only=False)


def test_a5_en_passant_off():
    position = GAME.parse("3/3/3/1/3p2k/p6/2P4/7/7/K6/1/3/3/3 b - - 0 1", {"en_passant": False})
    after = position.play("d10-d8")
    assert after.text().split()[3] == "-" and after.legal_moves() == ["c8xe8"]


def test_a6_first_continuing_landing():
    fen = "3/3/3/1/k6/7/4pp1/2p4/7/Q5K/1/3/3/3 w - - 0 1"  # T13: e9 and f10 continue, e9 is nearer
    assert legal(fen, long_jump_landing="first-continuing") == ["a5xe9xe7xg9", "a5xe9xg7"]


def test_a7_decliner_need_not_move_itself():
    fen = "3/3/3/1/k6/7/7/2p4/2K4/P6/1/3/3/3 w - - 0 1"  # T08
    assert "a5-a6" not in legal(fen)
    assert "a5-a6" in legal(fen, decliner_must_move_itself=False)


def test_a8_gate_shatra_compulsory():
    fen = "3/3/1p1/P/k6/7/7/7/7/K5P/1/3/3/3 w - - 0 1"  # T16
    assert legal(fen, gate_shatra_optional_capture=False) == ["d11xd13"]


def test_a9_promotion_only_at_series_end():
    fen = "1p1/1p1/P2/1/k6/7/7/7/RBB4/6K/1/3/3/3 w - - 0 1"  # T24
    assert legal(fen, promote_mid_series=False) == ["c12xe14xc14=Q", "c12xe14xc14=R"]


def test_a10_no_delayed_promotion():
    position = GAME.parse("1P1/3/3/1/k6/7/2p4/2R4/QR2BB1/6K/1/3/3/3 b - - 0 1", {"delayed_promotion": False})
    assert position.play("c8xc6").text().startswith("1P1/")


def test_a11_promotion_pool():
    fen = "3/1P1/3/1/k6/7/7/7/QR5/6K/1/3/3/3 w - - 0 1"  # T06
    assert "d13-d14=Q" in legal(fen, promotion_pool="QQRRBB")


def test_a12_a13_intruder_drops():
    fen = "3/3/1p1/P/k6/7/7/7/7/K5P/1/3/3/3 w - - 0 1"  # T16
    assert len(legal(fen, intruder_shatra_drops=False)) == 3
    assert len(legal(fen, gate_intruders_drop=False)) == 3
    assert len(legal("pqp/pRp/p1p/1/k6/7/7/7/7/K6/1/3/3/3 w t - 0 1", gate_intruders_drop=False)) == 32


def test_a14_secondary_reserve_without_drops():
    fen = "3/3/3/1/k6/7/7/7/7/K6/1/3/3/Q2 w - - 0 1"
    assert "c1-a7" in legal(fen)
    assert "c1-a7" not in legal(fen, secondary_reserve_drops=False) and "c1-e3" in legal(fen)


def test_a15_biy_steps_onto_gate():
    fen = "3/3/3/1/k6/7/7/7/7/3K2P/1/3/3/P2 w T - 0 1"  # T27
    assert "d5-d4" in legal(fen, biy_may_step_onto_gate=True)


def test_a16_urgent_drop_versus_biy():
    fen = "3/3/3/1/k6/7/7/2p4/2K4/7/1/1!R1/3/P2 w T - 0 1"
    default = legal(fen)
    assert "c6xc8" in default and "c6-b5" not in default and "d3-a7" in default
    other = legal(fen, urgent_drop_overrides_decline=False)
    assert "c6-b5" in other and "d3-a7" not in other


def test_a17_a18_great_road_and_drop_squares():
    fen = "1q1/3/b1b/1/k6/7/7/7/7/K6/1/3/3/PQ1 w Tt - 0 1"  # T21
    assert len(legal(fen, great_road=False)) == 43
    assert len(legal(fen, drops_on_great_road=False)) == 49 - 2 * 3


def test_a19_temdek_off_mid_series():
    # The batyr, White's only reserve piece, leaves through the gate and captures its way back in.
    fen = "3/3/3/1/k6/7/7/7/3p3/2p1p1K/1/2Q/3/3 w T - 0 1"
    assert legal(fen) == ["e3xb6xf6xc3", "e3xb6xf6xd4"]
    at_end = GAME.parse(fen).play("e3xb6xf6xc3").text().split()
    assert at_end[0].endswith("/!Q2/3/3") and at_end[2] == "T"  # urgent, temdek still on
    mid_series = GAME.parse(fen, {"temdek_off_mid_series": True}).play("e3xb6xf6xc3").text().split()
    assert mid_series[0].endswith("/Q2/3/3") and mid_series[2] == "-"


def test_a4_fortress_shatra_steps():
    fen = "3/3/3/1/k6/7/7/7/7/K6/1/3/P2/3 w - - 0 1"
    assert "c2-c3" in legal(fen) and "c2-a6" in legal(fen)
    assert "c2-c3" not in legal(fen, fortress_shatra_steps_north=False) and "c2-a6" in legal(fen)


def test_a20_no_backward_shatra_captures():
    fen = "3/3/3/1/k6/7/3P3/3p3/7/1P4K/1/3/3/3 w - - 0 1"  # T07
    assert "d8xd6" not in legal(fen, shatra_captures_backward=False)


def test_a21_series_goes_on_after_the_biy():
    fen = "3/3/3/1/7/7/4p2/2k4/7/Q5K/1/3/3/3 w - - 0 1"  # T25
    series = legal(fen, biy_capture_ends_series=False)
    assert series == ["a5xd8xf8", "a5xd8xg8", "a5xe9xe5", "a5xe9xe6", "a5xe9xe7"]  # e8 must be taken too
    assert str(GAME.parse(fen, {"biy_capture_ends_series": False}).play("a5xe9xe7").outcome()) == \
        "winner=white reason=biy-captured"


def test_a22_biy_safety_filter():
    fen = "3/3/3/1/k6/7/7/2p4/7/1K5/1/3/3/3 w - - 0 1"
    assert "b5-b6" in legal(fen)
    assert "b5-b6" not in legal(fen, may_leave_biy_capturable=False)


def test_a23_no_legal_move_draws():
    position = GAME.parse("3/3/3/1/kPP4/PP5/P1P4/7/7/6K/1/3/3/3 b - - 0 1", {"no_legal_move_loses": False})
    assert str(position.outcome()) == "winner=none reason=no-legal-move"


def test_a24_draw_limits():
    position = GAME.parse("3/3/3/1/6k/7/7/7/7/K6/1/3/3/3 w - - 0 1", {"bare_biys_plies": 0})
    for action in ["a5-a6", "g10-g9", "a6-a5", "g9-g10"] * 2:
        position = position.play(action)
    assert position.outcome().reason == "repetition"
    off = GAME.parse("1q1/3/3/1/6k/7/7/7/7/K6/1/3/3/1Q1 w - - 99 1", {"no_progress_plies": 0})
    assert off.play("d1-d5").outcome() is None


def test_a25_tower_squares():
    fen = "3/3/3/1/P5k/7/7/7/7/K6/1/3/3/3 w - - 0 1"
    assert "a10-c13" not in legal(fen)
    towers = legal(fen, tower_squares=True)
    assert "a10-c13" in towers and "a10-d12" in towers and "a10-c14=Q" in towers and "a10-d11" not in towers


def test_a26_reserve_ordinary_moves():
    # Seen only where an ordinary slide reaches a square a drop cannot: here the d-file, with A18 off.
    fen = "3/3/3/1/k6/7/7/7/7/K6/1/1R1/3/3 w T - 0 1"
    assert "d3-d5" not in legal(fen, drops_on_great_road=False)
    both = legal(fen, drops_on_great_road=False, reserve_ordinary_moves=True)
    assert "d3-d5" in both and "d3-d7" in both and "d3-d4" not in both


def test_a27_start_position():
    position = GAME.initial({"start_position": "3/3/3/1/6k/7/7/7/7/K6/1/3/3/3 w - - 0 1"})
    assert position.text() == "3/3/3/1/6k/7/7/7/7/K6/1/3/3/3 w - - 0 1"


def test_a28_drop_separator():
    fen = "3/3/3/1/k6/7/7/7/7/K6/1/3/3/Q2 w - - 0 1"
    same = legal(fen)
    split = legal(fen, drop_separator="*")
    assert "c1*a7" in split and "c1-e3" in split and len(split) == len(same)
    fen_sr = "3/3/3/1/k6/7/7/7/7/K6/1/3/3/1Q1 w - - 0 1"
    assert len(legal(fen_sr, drop_separator="*")) == len(legal(fen_sr)) + 3  # d1-d5..d7: drop and slide


def test_a1_numeric_coordinates():
    position = GAME.initial({"coordinates": "numeric"})
    moves = position.legal_moves()
    assert len(moves) == 154 and "46-39" in moves  # a5-a6
    assert position.play("61-39").text() == GAME.initial().play("d1-a6").text()
