"""Tafl 9x9 against its rule book (docs/rules/tafl9.md): the §11 cases, the §10 perft counts,
notation, settings (every §9 decision) and immutability."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engines import BadPosition, BadSettings, IllegalAction, Outcome, get_game

BOOK = json.loads((Path(__file__).resolve().parents[1] / "data" / "tafl9.json").read_text())
CASES = {case["id"]: case for case in BOOK["cases"]}
GAME = get_game("tafl9")
INITIAL = "3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 0"


def recorded(action: str, position) -> str:
    """The move as the book records it: captures appended OpenTafl style, joined by '/'."""
    return action + ("x" + "/".join(position.captured) if position.captured else "")


def generic_perft(position, depth: int) -> int:
    """The definition of perft, through the public interface only."""
    if depth == 0:
        return 1
    return sum(generic_perft(position.play(a), depth - 1) for a in position.legal_moves())


def play_all(text: str, moves, settings=None):
    position = GAME.parse(text, settings)
    for move in moves:
        position = position.play(move)
    return position


# ---------------------------------------------------------------- §11, one test per book case


@pytest.mark.parametrize("case", BOOK["cases"], ids=[case["id"] for case in BOOK["cases"]])
def test_book_case(case):
    position = GAME.parse(case["start"])
    assert position.text() == case["start"]
    for i, move in enumerate(case["moves"]):
        if move == case.get("illegal"):
            before, legal_before = position.text(), position.legal_moves()
            with pytest.raises(IllegalAction) as error:
                position.play(move)
            assert move in str(error.value)
            if case.get("illegal_reason"):
                assert case["illegal_reason"] in str(error.value)
            assert position.text() == before and position.legal_moves() == legal_before
            assert move not in legal_before
            return
        assert move in position.legal_moves()
        position = position.play(move)
        if case["recorded"] is not None:
            assert recorded(move, position) == case["recorded"][i]
    if case["outcome"] == "ongoing":
        assert position.outcome() is None
        assert position.legal_moves()
    else:
        assert position.outcome() == Outcome(case["outcome"]["reason"], case["outcome"]["winner"])
        assert position.legal_moves() == []
    if "end" in case:
        assert position.text() == case["end"]
        assert GAME.parse(case["end"]).text() == case["end"]


def test_every_book_case_is_transcribed():
    assert len(CASES) == 47


# ---------------------------------------------------------------- §10 perft and the §11 properties


@pytest.mark.parametrize("row", BOOK["perft"], ids=[f"depth{row['depth']}" for row in BOOK["perft"]])
def test_perft_from_the_initial_position(row):
    assert GAME.initial().perft(row["depth"]) == row["positions"]


def test_initial_position_has_56_moves_and_a_blocked_king():
    prop = BOOK["properties"][0]
    position = GAME.parse(prop["start"])
    assert GAME.initial().text() == INITIAL == prop["start"]
    moves = position.legal_moves()
    assert len(moves) == prop["legal_count"]
    assert [m for m in moves if m.startswith("E5-")] == []
    assert moves == sorted(moves)
    assert position.turn == "white"


def test_black_has_70_moves_after_e3_h3():
    prop = BOOK["properties"][1]
    position = play_all(prop["start"], prop["moves"])
    assert position.turn == "black"
    assert len(position.legal_moves()) == prop["legal_count"]


@pytest.mark.parametrize("seed", range(8))
def test_random_games_end_within_750_plies_and_round_trip(seed):
    rng = random.Random(seed)
    position = GAME.initial()
    plies = 0
    while position.outcome() is None:
        assert plies < BOOK["properties"][2]["max_plies"]
        action = rng.choice(position.legal_moves())
        before = position.text()
        position = position.play(action.lower() if plies % 2 else action)
        plies += 1
        assert GAME.parse(position.text()).text() == position.text()
        assert position.ply == plies
        assert GAME.parse(before).text() == before
    assert plies <= GAME.max_plies == 750
    assert position.legal_moves() == []
    assert position.outcome().reason in ("escape", "king-captured", "no-legal-move", "no-capture-limit")


@pytest.mark.parametrize("case_id", ["T07", "T09", "T11b", "T12", "T24b", "T28", "T32", "T35"])
def test_fast_perft_equals_the_definition(case_id):
    start = GAME.parse(CASES[case_id]["start"])
    for depth in (1, 2):
        assert start.perft(depth) == generic_perft(start, depth)
    assert start.divide(2) == {a: generic_perft(start.play(a), 1) for a in start.legal_moves()}


def test_fast_perft_equals_the_definition_at_depth_3_near_the_end():
    # A 29-ply counter and a near-escape: terminal positions inside the tree must add nothing.
    start = GAME.parse("9/7b1/9/2w1k4/2b6/9/2w6/9/9 w 27")
    assert start.perft(3) == generic_perft(start, 3)
    last_ply = GAME.parse("9/7b1/9/9/9/9/3k5/9/9 w 29")
    assert last_ply.perft(1) == len(last_ply.legal_moves())
    assert last_ply.perft(2) == 0


def test_perft_of_a_finished_game_is_empty():
    over = play_all(CASES["T22a"]["start"], CASES["T22a"]["moves"])
    assert over.perft(0) == 1 and over.perft(1) == 0 and over.perft(2) == 0


# ---------------------------------------------------------------- notation


@pytest.mark.parametrize(
    "text, problem",
    [
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w", "expected 3 fields"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 0 1", "expected 3 fields"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4 w 0", "expected 9 ranks"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbx3 w 0", "bad piece letter 'x'"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwKwwbb/b3w3b/4w4/4b4/3bbb3 w 0", "bad piece letter 'K'"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb2 w 0", "covers 8 squares"),
        ("3bbb4/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 0", "covers 10 squares"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbbb/b3w3b/4w4/4b4/3bbb3 w 0", "longer than 9"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb12 w 0", "two digits in a row"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 x 0", "side to move"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w -1", "no-capture plies"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 05", "leading zeros"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 31", "above the limit 30"),
        ("b8/7b1/9/9/4k4/9/9/9/9 w 0", "corner A9 is occupied"),
        ("9/7b1/9/9/4w4/9/9/9/k8 w 0", "corner"),
        ("9/7b1/9/9/4w4/9/4k4/9/9 w 0", "throne E5 may hold only the king"),
        ("9/7b1/9/k8/9/9/4k4/9/9 b 0", "2 kings"),
        ("9/7b1/9/9/9/9/9/9/9 b 0", "no king"),
        ("1bbbbbbb1/9/9/bbbbbbbbb/4k4/9/b8/9/9 w 0", "17 black soldiers"),
        ("9/9/9/wwwwwwwww/4k4/9/9/9/9 w 0", "9 white soldiers"),
        ("9/7b1/9/9/k8/9/9/9/9 w 0", "already won"),
        ("3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3  w 0", "expected 3 fields"),
        ("", "empty position"),
    ],
)
def test_bad_positions_are_rejected_with_the_reason(text, problem):
    with pytest.raises(BadPosition) as error:
        GAME.parse(text)
    assert problem in str(error.value)


def test_positions_the_book_allows_at_the_end_of_a_game():
    captured = GAME.parse("9/9/9/4b4/3b1b3/4b4/9/9/9 w 0")  # after a king capture: no k
    assert captured.outcome() == Outcome("king-captured", "black") and captured.legal_moves() == []
    escaped = GAME.parse("9/7b1/9/9/9/9/9/9/3k5 b 1")
    assert escaped.outcome() == Outcome("escape", "white")
    limit = GAME.parse("9/7b1/b8/4k4/9/9/9/2w6/9 b 30")
    assert limit.outcome() == Outcome("no-capture-limit", "none")
    for position in (captured, escaped, limit):
        assert GAME.parse(position.text()).text() == position.text()


def test_the_after_game_position_shows_the_king_gone_and_its_counter():
    end = play_all(CASES["T24a"]["start"], CASES["T24a"]["moves"])
    assert end.text() == "9/9/9/4b4/3b1b3/4b4/9/9/9 w 0"
    assert end.captured == ("E5",)
    draw = play_all(CASES["T29a"]["start"], CASES["T29a"]["moves"])
    assert draw.text().endswith(" b 30")


def test_actions_are_case_insensitive_and_play_returns_a_new_position():
    start = GAME.initial()
    after = start.play(" e3-h3 ")
    assert start.text() == INITIAL and start.turn == "white" and len(start.legal_moves()) == 56
    assert after.text() == CASES["T01"]["end"]
    assert after is not start and after != start
    assert after == GAME.parse(CASES["T01"]["end"]) and hash(after) == hash(GAME.parse(CASES["T01"]["end"]))
    assert start.captured == () and after.captured == ()


def test_a_capture_is_reported_and_leaves_the_previous_position_alone():
    before = GAME.parse(CASES["T12"]["start"])
    after = before.play("D1-D3")
    assert after.captured == ("E3", "C3", "D4")
    assert before.text() == CASES["T12"]["start"]


@pytest.mark.parametrize("action", ["E3H3", "E3-Z3", "E3-H3-I3", "", "E10-E3", "pass", "E3-E3", "J1-J2"])
def test_malformed_or_absurd_actions_raise_illegal_action(action):
    start = GAME.initial()
    with pytest.raises(IllegalAction):
        start.play(action)
    assert start.text() == INITIAL


def test_no_action_is_legal_once_the_game_is_over():
    over = play_all(CASES["T22a"]["start"], CASES["T22a"]["moves"])
    with pytest.raises(IllegalAction, match="game is over"):
        over.play("E2-E3")


# ---------------------------------------------------------------- settings (§9 decisions)


def test_settings_have_the_book_defaults():
    values = GAME.settings_dict()
    assert values["no_capture_limit_plies"] == 30
    assert values["corners_hostile"] is False
    assert values["king_throne_capture"] is True
    assert values["throne_hostile_when_occupied"] is True
    assert values["king_capture_check"] == "adjacent_black_move"
    assert values["initial_tfen"] == INITIAL
    assert json.loads(json.dumps(values)) == values


@pytest.mark.parametrize(
    "values, problem",
    [
        ({"no_such_rule": True}, "unknown setting"),
        ({"corners_hostile": "yes"}, "must be bool"),
        ({"no_capture_limit_plies": 0}, "at least 1"),
        ({"king_armed": "sometimes"}, "king_armed must be one of"),
        ({"king_capture_check": "never"}, "king_capture_check must be one of"),
        ({"repetition_draw_count": 1}, "repetition_draw_count"),
        ({"initial_tfen": "9/9/9 w 0"}, "initial_tfen"),
    ],
)
def test_bad_settings_are_rejected(values, problem):
    with pytest.raises(BadSettings) as error:
        GAME.initial(values)
    assert problem in str(error.value)


def outcome_of(case_id, settings):
    case = CASES[case_id]
    return play_all(case["start"], case["moves"], settings)


def test_d1_ranks_numbered_from_the_top_rename_squares_only():
    top = GAME.initial({"ranks_numbered_from_bottom": False})
    assert top.play("E7-H7").text() == CASES["T01"]["end"]
    assert GAME.initial().play("E7-H7").text() != CASES["T01"]["end"]
    flipped = GAME.parse(CASES["T09"]["start"], {"ranks_numbered_from_bottom": False})
    assert "G6-A6" in flipped.legal_moves() and "G4-A4" not in flipped.legal_moves()
    assert flipped.play("G6-A6").captured == ("A7",)
    assert flipped.play("G6-A6").text() == CASES["T09"]["end"]


def test_d2_initial_tfen_sets_the_layout():
    start = GAME.initial({"initial_tfen": CASES["T08"]["start"]})
    assert start.text() == CASES["T08"]["start"]


def test_d3_sixty_ply_limit():
    position = outcome_of("T29a", {"no_capture_limit_plies": 60})
    assert position.outcome() is None and position.text().endswith(" b 30")
    assert GAME.parse("9/7b1/b8/4k4/9/9/2w6/9/9 w 45", {"no_capture_limit_plies": 60}).outcome() is None


def test_d4_throne_hostility():
    not_when_occupied = outcome_of("T07", {"throne_hostile_when_occupied": False})
    assert not_when_occupied.captured == ()
    # Against a black victim the armed king is an anvil anyway (T15), unless he is a hammer only.
    assert outcome_of("T15", {"throne_hostile_when_occupied": False}).captured == ("E4",)
    assert outcome_of("T15", {"throne_hostile_when_occupied": False, "king_armed": "hammer"}).captured == ()
    assert outcome_of("T13", {"throne_hostile_when_empty": False}).captured == ()
    assert outcome_of("T14", {"throne_hostile_when_empty": False}).captured == ()


def test_d5_hostile_corners():
    assert outcome_of("T10", {"corners_hostile": True}).captured == ("B1",)
    assert outcome_of("T31", {"corners_hostile": True}).captured == ("A2",)


def test_d6_king_and_empty_throne():
    assert outcome_of("T18", {"king_throne_capture": False}).captured == ()
    assert outcome_of("T13", {"king_throne_capture": False}).captured == ("D5",)  # a soldier still can


def test_d7_king_armed():
    assert outcome_of("T16", {"king_armed": "anvil"}).captured == ()
    assert outcome_of("T17", {"king_armed": "anvil"}).captured == ("D4",)
    assert outcome_of("T16", {"king_armed": "hammer"}).captured == ("D4",)
    assert outcome_of("T17", {"king_armed": "hammer"}).captured == ()
    assert outcome_of("T17", {"king_armed": "unarmed"}).captured == ()


def test_d8_king_capture_after_any_black_move():
    position = outcome_of("T28", {"king_capture_check": "any_black_move"})
    assert position.outcome() == Outcome("king-captured", "black")
    assert position.captured == ("E4",)


def test_d9_king_capturable_on_the_edge():
    position = outcome_of("T27", {"king_capturable_on_edge": True})
    assert position.outcome() == Outcome("king-captured", "black") and position.captured == ("A3",)


def test_d10_escape_by_passing_and_escape_squares_closed_to_soldiers():
    start = "9/7b1/9/9/9/9/k8/9/9 w 0"
    assert GAME.parse(start).play("A3-A8").outcome() is None
    passing = GAME.parse(start, {"king_escapes_by_passing": True})
    assert passing.play("A3-A8").outcome() == Outcome("escape", "white")
    closed = {"escape_squares_open_to_soldiers": False}
    with pytest.raises(IllegalAction):
        GAME.parse(CASES["T09"]["start"], closed).play("G4-A4")
    assert "G4-B4" in GAME.parse(CASES["T09"]["start"], closed).legal_moves()
    assert outcome_of("T22a", closed).outcome() == Outcome("escape", "white")  # the king still may
    position = GAME.parse("9/7b1/9/4k4/9/9/9/9/1w7 w 0", closed)
    assert "B1-H1" in position.legal_moves() and "B1-E1" not in position.legal_moves()  # cross, never stop


def test_d11_d12_throne_crossing_and_return():
    jumping = GAME.parse(CASES["T34"]["start"], {"throne_crossable_when_occupied": True})
    assert "C5-G5" in jumping.legal_moves()
    back = GAME.parse(CASES["T20a"]["start"], {"king_may_return_to_throne": True}).play("E4-E5")
    assert back.text() == "9/7b1/9/9/4k4/9/9/9/9 b 1"
    closed = {"throne_crossable_when_empty": False}
    for case_id in ("T19b", "T20b", "T34b"):
        case = CASES[case_id]
        assert case["moves"][0] not in GAME.parse(case["start"], closed).legal_moves()


def test_d13_all_attackers_captured_wins():
    wins = {"all_attackers_captured_wins": True}
    assert outcome_of("T30a", wins).outcome() == Outcome("no-legal-move", "white")
    assert outcome_of("T30b", wins).outcome() == Outcome("no-legal-move", "none")  # Black still has pieces


def test_d14_repetition_draw():
    shuffle = ["E6-E7", "H8-H7", "E7-E6", "H7-H8"] * 2
    start = "9/7b1/9/4k4/9/9/9/9/9 w 0"
    assert play_all(start, shuffle).outcome() is None
    repeated = play_all(start, shuffle, {"repetition_draw_count": 3})
    assert repeated.outcome() == Outcome("repetition", "none")
    assert play_all(start, shuffle[:-1], {"repetition_draw_count": 3}).outcome() is None


def test_d15_passing():
    stuck = outcome_of("T30b", {"passing_allowed": True})
    assert stuck.outcome() is None and stuck.legal_moves() == ["pass"]
    passed = stuck.play("PASS")
    assert passed.turn == "black" and passed.text() == "9/7b1/9/9/9/9/9/1b7/1kb6 b 2"
    assert stuck.perft(2) == generic_perft(stuck, 2)


def test_d16_mandatory_captures():
    after = GAME.initial({"captures_mandatory": True}).play("E3-H3")
    assert after.legal_moves() == ["E2-E3"]
    assert after.perft(2) == generic_perft(after, 2)
    with pytest.raises(IllegalAction, match="mandatory"):
        after.play("E2-D2")


def test_d17_king_capture_and_the_counter():
    assert outcome_of("T24a", {"king_capture_resets_counter": False}).text().endswith(" w 1")
    assert outcome_of("T24a", {}).text().endswith(" w 0")


@pytest.mark.parametrize(
    "values",
    [
        {"corners_hostile": True},
        {"king_armed": "hammer", "throne_hostile_when_occupied": False},
        {"throne_crossable_when_occupied": True, "king_may_return_to_throne": True},
        {"escape_squares_open_to_soldiers": False, "king_escapes_by_passing": True},
    ],
)
def test_fast_perft_equals_the_definition_under_other_settings(values):
    position = GAME.initial(values).play("E3-H3")
    assert position.perft(2) == generic_perft(position, 2)


# ---------------------------------------------------------------- §8.1 pseudocode as an independent model


class BookModel:
    """A literal, slow transcription of the book's §8.1 pseudocode (default settings)."""

    THRONE = (4, 4)
    CORNERS = {(0, 0), (0, 8), (8, 0), (8, 8)}
    ESCAPES = {(0, 3), (0, 4), (0, 5), (3, 0), (4, 0), (5, 0), (8, 3), (8, 4), (8, 5), (3, 8), (4, 8), (5, 8)}
    STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))

    def __init__(self, tfen):
        board, side, counter = tfen.split()
        self.pieces = {}
        for i, row in enumerate(board.split("/")):
            f = 0
            for ch in row:
                if ch.isdigit():
                    f += int(ch)
                else:
                    self.pieces[(f, 8 - i)] = ch
                    f += 1
        self.side, self.nocap, self.result = side, int(counter), None

    @staticmethod
    def name(sq):
        return "ABCDEFGHI"[sq[0]] + str(sq[1] + 1)

    def colour(self, sq):
        return {"b": "b", "w": "w", "k": "w"}.get(self.pieces.get(sq))

    def legal_moves(self):
        moves = []
        for s in self.pieces:
            if self.colour(s) != self.side:
                continue
            for df, dr in self.STEPS:
                t = (s[0] + df, s[1] + dr)
                while 0 <= t[0] < 9 and 0 <= t[1] < 9:
                    if t in self.pieces or t in self.CORNERS:
                        break
                    if t != self.THRONE:
                        moves.append(self.name(s) + "-" + self.name(t))
                    t = (t[0] + df, t[1] + dr)
        return sorted(moves)

    def hostile(self, sq, victim_colour):
        if not (0 <= sq[0] < 9 and 0 <= sq[1] < 9):
            return False
        if sq == self.THRONE:
            return True
        return sq in self.pieces and self.colour(sq) != victim_colour

    def play(self, action):
        s, t = [("ABCDEFGHI".index(x[0]), int(x[1:]) - 1) for x in action.split("-")]
        me = self.side
        self.pieces[t] = self.pieces.pop(s)
        caps = []
        for df, dr in self.STEPS:
            n = (t[0] + df, t[1] + dr)
            q = self.pieces.get(n)
            if q in ("b", "w") and self.colour(n) != me and self.hostile((n[0] + df, n[1] + dr), self.colour(n)):
                caps.append(n)
        for n in caps:
            del self.pieces[n]
        king = next((sq for sq, p in self.pieces.items() if p == "k"), None)
        around = [(king[0] + df, king[1] + dr) for df, dr in self.STEPS] if king else []
        if me == "b" and king in [(t[0] + df, t[1] + dr) for df, dr in self.STEPS] and all(
            0 <= x[0] < 9 and 0 <= x[1] < 9 and (x == self.THRONE or self.pieces.get(x) == "b") for x in around
        ):
            del self.pieces[king]
            caps.append(king)
            self.result = ("black", "king-captured")
        elif self.pieces[t] == "k" and t in self.ESCAPES:
            self.result = ("white", "escape")
        self.nocap = 0 if caps else self.nocap + 1
        self.side = "b" if me == "w" else "w"
        if self.result is None and self.nocap >= 30:
            self.result = ("none", "no-capture-limit")
        if self.result is None and not self.legal_moves():
            self.result = ("none", "no-legal-move")
        return [self.name(sq) for sq in caps]


@pytest.mark.parametrize("seed", range(40))
def test_random_games_agree_with_the_book_pseudocode(seed):
    rng = random.Random(1000 + seed)
    start = rng.choice([INITIAL] + [case["start"] for case in BOOK["cases"]])
    position, model = GAME.parse(start), BookModel(start)
    while position.outcome() is None:
        assert model.result is None
        assert position.legal_moves() == model.legal_moves()
        action = rng.choice(position.legal_moves())
        position = position.play(action)
        assert sorted(position.captured) == sorted(model.play(action))
        assert position.text().split()[2] == str(model.nocap)
        assert BookModel(position.text()).pieces == model.pieces
    assert (position.outcome().winner, position.outcome().reason) == model.result
