"""One vocabulary for how a game ends: ``engines.core.Termination`` holds every reason each game's rules and
the runner give, and nothing else; ``Outcome`` carries one; a record keeps its word unchanged."""

import ast
import json
import random
from pathlib import Path

import pytest

from engines import BadRecord, Outcome, Termination, get_game
from engines.core import points
from engines.record import make_record, record_of_play, verify_record

ROOT = Path(__file__).resolve().parents[2]

# Protocol §6: the game reasons each rules module gives, and the runner's. Two the protocol's list leaves out
# come from the books' settings: Tafl's repetition draw (off by default, D14) and Fidchell-1's dead-position
# draw (rules README, off by default).
GAME_ENDS = {
    "engines/tafl.py": {"escape", "king-captured", "no-legal-move", "no-capture-limit", "repetition"},
    "engines/fidchell.py": {"path", "strength", "challenge", "no-legal-move", "repetition", "no-capture-limit",
                            "max-actions", "dead-position"},
    "engines/shatra": {"biy-captured", "no-legal-move", "repetition", "no-progress", "bare-biys", "max-plies"},
}
RUNNER_ENDS = {"illegal-move", "timeout", "crash", "init-failed", "resign", "bot-error", "output-limit",
               "max-plies", "void"}


def terminations_named_in(path: str) -> set[str]:
    """The words of every ``Termination.X`` the module (or package) names: the reasons its code can give."""
    files = sorted((ROOT / path).glob("*.py")) if (ROOT / path).is_dir() else [ROOT / path]
    found = set()
    for file in files:
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Termination":
                if node.attr.isupper():
                    found.add(Termination[node.attr].value)
    return found


@pytest.mark.parametrize("path", sorted(GAME_ENDS))
def test_each_games_rules_give_the_protocols_reasons_and_only_those(path):
    named = terminations_named_in(path)
    assert named == GAME_ENDS[path]
    assert all(Termination(word).by_rules for word in named)


def test_the_runner_gives_the_protocols_reasons_and_only_those():
    named = terminations_named_in("runner/match.py")
    assert named == RUNNER_ENDS
    assert {t.value for t in Termination if t.by_runner} == RUNNER_ENDS


def test_the_enum_is_exactly_the_reasons_the_rules_and_the_runner_give():
    assert {t.value for t in Termination} == set().union(*GAME_ENDS.values(), RUNNER_ENDS)
    assert {t.value for t in Termination if t.by_rules} == set().union(*GAME_ENDS.values())


def test_the_kinds_of_end_follow_protocol_section_6():
    faults = {"illegal-move", "timeout", "crash", "init-failed", "resign", "bot-error", "output-limit"}
    assert {t.value for t in Termination if t.is_bot_fault} == faults
    # A resignation is the bot's choice; void is both bots failing before move 1.
    assert {t.value for t in Termination if t.is_failure} == faults - {"resign"} | {"void"}
    assert Termination.MAX_PLIES.by_rules and Termination.MAX_PLIES.by_runner  # Shatra's D4 and the runner's cap
    assert not Termination.MAX_PLIES.is_failure and not Termination.ESCAPE.by_runner


def test_a_termination_is_its_word_in_text_json_and_comparisons():
    end = Termination.KING_CAPTURED
    assert end == "king-captured" and str(end) == "king-captured" and f"{end}" == "king-captured"
    assert json.dumps({"reason": end}) == '{"reason": "king-captured"}'
    assert Termination("no-legal-move") is Termination.NO_LEGAL_MOVE


def test_an_outcome_carries_a_termination_and_gives_each_side_its_points():
    won = Outcome(Termination.ESCAPE, "white")
    assert won == Outcome("escape", "white")  # a word is taken as its termination
    assert won.termination is Termination.ESCAPE and won.reason == "escape" and type(won.reason) is str
    assert str(won) == "winner=white reason=escape"
    assert (won.points("white"), won.points("black")) == (1.0, 0.0)
    assert (Outcome("repetition", "none").points("white"), Outcome("timeout", "black").points("white")) == (0.5, 0)
    assert points("none", "black") == 0.5
    with pytest.raises(ValueError):
        points("red", "white")
    with pytest.raises(ValueError):
        won.points("none")


@pytest.mark.parametrize("termination, winner", [("checkmate", "white"), ("white", "escape"), ("escape", "red")])
def test_an_outcome_refuses_an_unknown_word_or_winner(termination, winner):
    with pytest.raises(ValueError):
        Outcome(termination, winner)


MODULE = {"tafl9": "engines/tafl.py", "fidchell-1": "engines/fidchell.py", "fidchell-2": "engines/fidchell.py",
          "shatra": "engines/shatra"}
# Settings that bring the history draws and caps within a short random game.
SWEEP = {
    "tafl9": [{}, {"no_capture_limit_plies": 6, "repetition_draw_count": 2}],
    "fidchell-1": [{"max_actions": 40}, {"no_capture_limit": 8, "dead_position_draw": True}],
    "fidchell-2": [{"max_actions": 40}],
    "shatra": [{}, {"max_plies": 20}],
}


@pytest.mark.parametrize("game_id", sorted(SWEEP))
def test_random_games_end_by_a_rules_termination_kept_word_for_word_in_the_record(game_id):
    game, rng, seen = get_game(game_id), random.Random(11), set()
    for settings in SWEEP[game_id]:
        for _ in range(4):
            position, actions = game.initial(settings), []
            while position.outcome() is None:
                actions.append(rng.choice(position.legal_moves()))
                position = position.play(actions[-1])
            outcome = position.outcome()
            assert type(outcome.termination) is Termination and outcome.termination.by_rules
            record = record_of_play(game.initial(settings), actions)
            assert type(record["reason"]) is str and record["reason"] == outcome.termination.value
            assert json.loads(json.dumps(record)) == record
            verify_record(record)
            seen.add(outcome.termination.value)
    assert seen <= GAME_ENDS[MODULE[game_id]]


def test_verifying_a_record_refuses_a_word_that_is_no_termination():
    start = get_game("tafl9").initial()
    action = start.legal_moves()[0]
    record = make_record(start, [action], Outcome(Termination.TIMEOUT, "black"), final=start.play(action))
    verify_record(record)
    for word in ("timed-out", "", "TIMEOUT", None, ["timeout"]):
        with pytest.raises(BadRecord, match="not a termination"):
            verify_record(dict(record, reason=word))
