"""A position read from its text is the position: ``parse(p.text())`` acts like ``p`` (issue 13, point 7).

The other property tests compare texts only; here the read position must also have the same legal actions and
outcome, now and along further actions, in every phase and pending state the text names, and at the end of the game.
"""

import json
import random
from pathlib import Path

import pytest

from engines import GAME_IDS, get_game
from engines.fidchell import FIDCHELL_2
from tests.engines.test_fidchell_book import BOOK, T26, load

FURTHER_ACTIONS = 6
GAMES = {"tafl9": 60, "fidchell-1": 12, "fidchell-2": 80, "shatra": 250}  # seeds 0.. : the same games every run
# Games start from the initial position, and from these book positions in turn: random Shatra games end with a
# captured biy long before a shatra can promote or be taken en passant (docs/rules/shatra.md T23, T24, T28), or the two
# biys are left alone.
LATER_STARTS = {
    "shatra": [
        "3/3/3/1/3p2k/p6/2P4/7/7/K6/1/3/3/3 b - - 0 1",
        "1p1/1p1/P2/1/k6/7/7/7/RBB4/6K/1/3/3/3 w - - 0 1",
        "1P1/3/3/1/k6/7/2p4/2R4/QR2BB1/6K/1/3/3/3 b - - 0 1",
        "3/3/3/1/7/k6/7/7/7/7/K/3/3/3 w T - 0 1",  # bare biys, White's on its gate and dropped (T30, D3)
    ],
}
# A position in none of the PENDING states is checked one time in SAMPLE (pending ones always): seconds a game id.
SAMPLE = {"tafl9": 2, "fidchell-1": 6, "fidchell-2": 1, "shatra": 1}

# The states each game id's random games must visit (each at least MIN_VISITS checked positions), so that the test
# cannot silently stop covering them. PENDING ones are checked wherever they occur; every last position is.
STATES = {
    "tafl9": {"capture", "king off the throne", "capture-free count", "game over", "end escape"},
    "fidchell-1": {"phase place", "phase move", "one places, one moves", "extra turn", "king dead", "king live",
                   "game over"},
    "fidchell-2": {"phase place", "phase move", "one places, one moves", "extra turn", "king white", "king both",
                   "challenge pending", "last challenge action", "phase remove", "game over", "end challenge"},
    "shatra": {"capture", "capture series", "promotion", "waiting shatra", "urgent mark", "en passant",
               "temdeks Tt", "temdeks T", "temdeks t", "temdeks -", "game over", "end biy-captured",
               "end bare-biys"},
}
PENDING = {"extra turn", "one places, one moves", "challenge pending", "phase remove", "capture series",
           "promotion", "waiting shatra", "urgent mark", "en passant", "game over"}
MIN_VISITS = 3

# Outcomes resting on history that a text cannot hold (rules README: repetition counts, Fidchell's capture-free
# counter and action cap start afresh from a text): there the played position may end while the read one goes on.
HISTORY_DRAWS = {
    "tafl9": set(),  # no repetition rule by default, and the capture-free counter is in the text
    "fidchell-1": {"repetition", "no-capture-limit", "max-actions"},
    "fidchell-2": {"repetition", "no-capture-limit", "max-actions"},
    # The no-progress count and the ply cap are in the FEN. The bare-biys count is read from the no-progress field
    # (rules README), which a drop from the fortress resets and the bare-biys count does not: the played position
    # may be drawn a few plies before the read one.
    "shatra": {"repetition", "bare-biys"},
}


def states(game_id, position, action, mover):
    """The states of ``position``, which ``mover`` reached by ``action``, out of those in STATES."""
    if position.outcome() is not None:
        return {"game over", "end " + position.outcome().reason}
    found = {"capture"} if position.captured else set()
    if game_id == "tafl9":
        board, _, count = position.text().split()
        rank5 = "".join("." * int(c) if c.isdigit() else c for c in board.split("/")[4])
        if rank5[4] != "k":  # E5, the throne
            found.add("king off the throne")
        if count != "0":
            found.add("capture-free count")
    elif game_id == "shatra":
        board, _, temdeks, ep, _, _ = position.text().split()
        found.add("temdeks " + temdeks)
        if "!" in board:
            found.add("urgent mark")
        if ep != "-":
            found.add("en passant")
        if len(position.captured) > 1:
            found.add("capture series")
        if "=" in action:
            found.add("promotion")
        ranks = board.split("/")
        if "P" in ranks[0] or "p" in ranks[-1]:  # a shatra on its last rank that could not promote
            found.add("waiting shatra")
    else:
        found |= {"phase " + position.phase, "king " + position.king_state}
        if position.captured and position.turn == mover and position.phase != "remove":
            found.add("extra turn")
        if 0 in position.hands and position.hands != (0, 0):
            found.add("one places, one moves")
        if position.challenge in "12345":
            found.add("challenge pending")
        if position.challenge == "1":
            found.add("last challenge action")
    return found


def assert_read_position_plays_alike(game_id, p, rng):
    """``parse(p.text())`` has p's text, legal actions and outcome, now and after each further random action."""
    game = get_game(game_id)
    q = game.parse(p.text())
    for step in range(FURTHER_ACTIONS + 1):
        where = f"{game_id}, {step} actions after {p.text()!r}" if step else f"{game_id} at {p.text()!r}"
        assert q.text() == p.text(), where
        if q.outcome() != p.outcome():
            excused = p.outcome() is not None and p.outcome().reason in HISTORY_DRAWS[game_id]
            assert q.outcome() is None and excused, f"{where}: {p.outcome()} vs {q.outcome()}"
            return
        legal = p.legal_moves()
        assert q.legal_moves() == legal, where
        if not legal:
            return
        action = rng.choice(legal)
        p, q = p.play(action), q.play(action)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.slow
def test_a_position_read_from_its_text_plays_like_the_position(game_id):
    game = get_game(game_id)
    visits = dict.fromkeys(STATES[game_id], 0)
    starts = [game.initial()] + [game.parse(text) for text in LATER_STARTS.get(game_id, [])]
    for seed in range(GAMES[game_id]):
        rng = random.Random(seed)
        position, action, mover = starts[seed % len(starts)], "", None
        while True:
            found = states(game_id, position, action, mover)
            if found & PENDING or rng.randrange(SAMPLE[game_id]) == 0:
                assert_read_position_plays_alike(game_id, position, random.Random(rng.random()))
                for state in found & visits.keys():
                    visits[state] += 1
            if position.outcome() is not None:
                break
            action, mover = rng.choice(position.legal_moves()), position.turn
            position = position.play(action)
    rare = {state: n for state, n in visits.items() if n < MIN_VISITS}
    assert not rare, f"{game_id}: the random games checked too few positions in these states: {rare}"


def assert_same_game_on(p, q, actions):
    """``p`` and ``q`` have the same legal actions, outcome and text now and after each of ``actions``."""
    for action in [None, *actions]:
        if action is not None:
            p, q = p.play(action), q.play(action)
        assert q.text() == p.text(), f"after {action}"
        assert q.legal_moves() == p.legal_moves(), f"after {action}: {p.text()}"
        assert q.outcome() == p.outcome(), f"after {action}: {p.text()}"


def test_fidchell_owed_removal_read_from_text_gives_white_one_extra_turn():
    # docs/rules/fidchell.md §5.5 and T26: after the removal White takes the one extra turn its capture earned
    played = load(T26 + "; CH=3").play("r6s8-r6s6")
    assert played.text().endswith("T=W; K=both; CH=R")
    read = FIDCHELL_2.parse(played.text())
    assert_same_game_on(played, read, ["x:r3s0,r3s8", "r7s1-r7s2", "r6s0-r6s1", "r7s2-r7s3"])
    after_extra_turn = read.play("x:r3s0,r3s8").play("r7s1-r7s2")
    assert after_extra_turn.turn == "black"


def test_fidchell_upheld_challenge_read_from_text_is_over():
    # docs/rules/fidchell.md T27: White's last window action takes nothing, so Black wins; the line says so with CH=0
    played = load(T26 + "; CH=1").play("r7s1-r7s2")
    assert played.text().endswith("T=B; K=both; CH=0")
    read = FIDCHELL_2.parse(played.text())
    assert (read.outcome(), read.legal_moves(), read.text()) == (played.outcome(), [], played.text())


DATA = Path(__file__).resolve().parents[1] / "data"


def book_lines(game_id):
    """(start text, actions) of every line the book's worked cases play (tests/data)."""
    if game_id == "tafl9":
        cases = json.loads((DATA / "tafl9.json").read_text())["cases"]
        return [(case["start"], [m for m in case.get("moves", []) if m != case.get("illegal")]) for case in cases]
    if game_id == "shatra":
        cases = json.loads((DATA / "shatra.json").read_text())["cases"]
        return [(step.get("start", case["start"]), step.get("play", [])) for case in cases for step in case["steps"]]
    lines = []
    for case in BOOK["cases"]:
        for check in case["checks"]:
            text = check.get("position", "").replace("<Wx>", BOOK["Wx"])
            if text.replace(" ", "").startswith("V=F" + game_id[-1]):
                expects = check.get("expect", [])
                actions = [a for i, a in enumerate(check.get("actions", [])) if not (expects[i] or {}).get("illegal")]
                lines.append((text, actions))
    return lines


# The ends the books' worked cases reach, each of which a read position must show (or a history draw excuse).
BOOK_ENDS = {
    "tafl9": {"escape", "king-captured", "no-capture-limit", "no-legal-move"},
    "fidchell-1": {"path", "no-legal-move", "repetition"},
    "fidchell-2": {"strength", "challenge"},
    "shatra": {"biy-captured", "no-legal-move", "bare-biys", "repetition", "no-progress"},
}


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.slow
def test_every_position_of_the_book_cases_reads_back_alike(game_id):
    """Each position along the books' worked lines, and each one legal action after their last ones: the ends the
    random games seldom reach (a path, a lost strength, no legal move, the draws) are all there."""
    game = get_game(game_id)
    rng = random.Random(7)
    ends = set()
    for text, actions in book_lines(game_id):
        position = game.parse(text)
        line = [position]
        for action in actions:
            position = position.play(action)
            line.append(position)
        line += [position.play(action) for action in position.legal_moves()]
        for p in line:
            assert_read_position_plays_alike(game_id, p, rng)
            if p.outcome() is not None:
                ends.add(p.outcome().reason)
    assert ends >= BOOK_ENDS[game_id], f"{game_id}: the book cases no longer reach {BOOK_ENDS[game_id] - ends}"
