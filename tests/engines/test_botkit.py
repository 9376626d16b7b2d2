"""The bot kit: the protocol loop, clocks, the search, and the reference bots playing."""

import io
import pathlib
import runpy
import subprocess
import sys
import time
import warnings

import pytest

from engines import get_game
from engines.botkit import WIN, AlphaBeta, Clock, Greedy, random_player, run
from engines.core import BLACK, WHITE, RefereeError
from runner.bots import load_bot
from runner.match import play_game
from runner.sandbox import open_sandbox

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOTS = ROOT / "seeds" / "bots"
GAMES = ("tafl9", "fidchell-1", "fidchell-2", "shatra")


def material(position) -> float:
    """A plain Tafl count (White soldiers and king against Black), for search tests."""
    board = position.text().split()[0]
    return sum(c in "wk" for c in board) - sum(c == "b" for c in board)


def bot_module(name: str) -> dict:
    return runpy.run_path(str(BOTS / name / "main.py"), run_name="not-main")


# --- the protocol loop ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(path.name for path in BOTS.iterdir() if (path / "main.py").exists()))
def test_every_reference_bot_speaks_bgtp(name):
    game_id = name.rsplit("-", 1)[0]
    position = get_game(game_id).initial()
    legal = position.legal_moves()
    script = "\n".join([
        "bgtp 1",
        f"newgame id=t1 game={game_id} side=white tc=move:200 opponent=x seed=7",
        f"position {position.text()}",
        "legal " + " ".join(legal),
        "go side=white ply=1 movetime=200",
        "quit",
    ]) + "\n"
    done = subprocess.run([sys.executable, "main.py"], cwd=BOTS / name, input=script, capture_output=True,
                          text=True, timeout=30, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"bgtp 1 name={name}"
    assert lines[1] == "ready"
    keyword, action = lines[2].split()
    assert keyword == "move" and action in legal
    assert len(lines) == 3


def test_run_answers_each_go_from_the_latest_position():
    game = get_game("tafl9")
    first = game.initial()
    second = first.play("E3-A3") if "E3-A3" in first.legal_moves() else first.play(first.legal_moves()[0])
    seen = []

    def player(position, legal, clock):
        seen.append((position.text(), clock.budget_ms))
        return legal[-1]

    stdin = io.StringIO("\n".join([
        "bgtp 1", "newgame id=a game=tafl9 side=black tc=move:100 seed=1",
        f"position {first.text()}", "legal A1-A2 B1-B2", "go side=white ply=1 movetime=100",
        f"position {second.text()}", "legal C1-C2", "go side=black ply=2 wtime=5000 btime=4000 winc=0 binc=100",
        "quit", "go side=white ply=3 movetime=100",  # nothing is read after quit
    ]) + "\n")
    stdout = io.StringIO()
    run(player, name="probe", stdin=stdin, stdout=stdout)
    assert stdout.getvalue().splitlines() == ["bgtp 1 name=probe", "ready", "move B1-B2", "move C1-C2"]
    assert [text for text, _ in seen] == [first.text(), second.text()]
    assert seen[0][1] == pytest.approx(60.0)
    assert seen[1][1] == pytest.approx(min(4000 * 0.4, 4000 / 40 + 100 * 0.6))


# --- clocks ----------------------------------------------------------------------------------


def test_clock_takes_a_share_of_a_fixed_move_time():
    assert Clock.from_go({"movetime": "100"}).budget_ms == pytest.approx(60.0)
    assert Clock.from_go({"movetime": "0"}).budget_ms == 1.0


def test_clock_budgets_the_side_to_act_from_its_own_time_and_increment():
    fields = {"side": BLACK, "wtime": "60000", "btime": "2000", "winc": "0", "binc": "1000"}
    assert Clock.from_go(fields).budget_ms == pytest.approx(2000 / 40 + 600)
    fields["side"] = WHITE
    assert Clock.from_go(fields).budget_ms == pytest.approx(60000 / 40)
    assert Clock.from_go({"side": WHITE, "wtime": "100"}).budget_ms == pytest.approx(100 / 40)


def test_clock_deadline_counts_from_when_the_go_line_arrived():
    clock = Clock(50.0, started=100.0)
    assert clock.deadline() == pytest.approx(100.05)
    assert Clock.from_go({"movetime": "10"}).started <= time.monotonic()


def test_clock_rejects_a_time_that_is_not_a_number():
    with pytest.raises(RefereeError, match="whole number"):
        Clock.from_go({"movetime": "soon"})
    with pytest.raises(RefereeError, match="whole number"):
        Clock.from_go({"side": WHITE, "wtime": "1.5s"})


# --- the search ------------------------------------------------------------------------------


def test_alphabeta_takes_a_win_in_one():
    position = get_game("tafl9").parse("9/3b3b1/9/9/9/9/3k5/1w7/9 w 0")  # D3-D1 lands on an escape square
    bot = AlphaBeta(material)
    assert bot(position, position.legal_moves(), Clock(2000)) == "D3-D1"


def test_alphabeta_blocks_a_loss_in_one():
    # the king threatens to land on the escape square D1; only H2-D2 stops it
    position = get_game("tafl9").parse("9/3b5/9/9/9/9/3k5/7b1/9 b 0")
    bot = AlphaBeta(material)
    assert bot(position, position.legal_moves(), Clock(5000)) == "H2-D2"
    assert bot.depth >= 2


def test_alphabeta_sees_fidchell_extra_turns_as_the_same_side_acting():
    # Black's r4s0 breaks White's chain; White takes it along ring 4 and, on the extra turn
    # the capture earns, fills the gap: a win two White actions deep
    game = get_game("fidchell-1")
    position = game.parse("V=F1; W=r1s0,r2s0,r3s0,r4s1,r5s0,r6s0,r7s0; B=r4s0,r7s12; H=20/25; T=W; K=dead")
    bot = AlphaBeta(lambda p: 0.0)
    action = bot(position, position.legal_moves(), Clock(5000))
    assert action == "@r4s15"
    after = position.play(action)
    assert after.turn == WHITE and after.captured == ("r4s0",)
    assert after.play("@r4s0").outcome().winner == WHITE


def test_alphabeta_plays_the_best_found_so_far_when_time_is_up():
    position = get_game("tafl9").initial()
    legal = position.legal_moves()
    bot = AlphaBeta(material)
    assert bot(position, legal, Clock(0.001)) in legal


def test_alphabeta_stops_deepening_when_the_clock_runs_out():
    position = get_game("shatra").initial()  # perft(2) is 23 716: depth 2 cannot fit in 5 ms
    bot = AlphaBeta(bot_module("shatra-search")["evaluate"])
    assert bot(position, position.legal_moves(), Clock(5)) in position.legal_moves()
    assert bot.depth <= 1


def test_greedy_takes_material_and_random_stays_legal():
    position = get_game("tafl9").parse("9/7b1/4w4/9/3wkw3/9/4w4/1wb6/9 w 0")  # only D5-D2 takes C2
    legal = position.legal_moves()
    assert random_player(position, legal, Clock(10)) in legal
    chosen = Greedy(material)(position, legal, Clock(1000))
    assert position.play(chosen).captured == ("C2",)


# --- the evaluations -------------------------------------------------------------------------


def test_fidchell_chain_distance_counts_missing_stones_and_blocks():
    from engines.fidchellkit import FAR, board_of, chain_distance

    game = get_game("fidchell-1")
    geo, board = board_of(game.parse("V=F1; W=r1s0,r2s0,r3s0,r4s0,r5s0,r6s0; B=-; H=21/27; T=W; K=dead"))
    assert chain_distance(geo, board, "W") == 1
    assert chain_distance(geo, board, "B") == 7
    geo, board = board_of(game.parse("V=F1; W=-; B=r1s0,r1s1,r1s2,r1s3; H=27/23; T=W; K=dead"))
    assert chain_distance(geo, board, "W") == FAR


def test_fidchell_strength_counts_stones_on_the_board_and_in_hand():
    from engines.fidchellkit import strength

    game = get_game("fidchell-1")
    assert strength(game.parse("V=F1; W=r1s0,r2s0; B=r4s0; H=20/26; T=W; K=dead")) == (2 + 20) - (1 + 26)
    assert strength(game.parse("V=F1; W=-; B=-; H=27/27; T=W; K=dead")) == 0


def test_fidchell_search_values_a_stone_it_can_take():
    module = bot_module("fidchell-1-search")
    game = get_game("fidchell-1")
    open_capture = game.parse("V=F1; W=r3s0; B=r4s0; H=26/26; T=W; K=dead")  # @r5s0 takes r4s0
    quiet = game.parse("V=F1; W=r3s0; B=r4s5; H=26/26; T=W; K=dead")
    assert module["evaluate"](open_capture) > module["evaluate"](quiet)
    # first the two points where a capture lands: White's @r5s0, and @r2s0 where Black would take r3s0
    assert set(module["order"](open_capture, open_capture.legal_moves())[:2]) == {"@r5s0", "@r2s0"}


def test_tafl_takeable_counts_what_one_move_would_capture():
    module = bot_module("tafl9-search")
    position = get_game("tafl9").parse("9/7b1/4w4/9/3wkw3/9/4w4/1wb6/9 w 0")
    board = module["squares"](position.text())
    assert module["takeable"](board, {"w", "k"}, "b") == 1  # D5-D2 takes C2 against B2
    assert module["takeable"](board, {"b"}, "w") == 1  # C2-C5 would take D5 against the throne
    assert module["evaluate"](position) > module["evaluate"](position.play("B2-A2"))


def test_shatra_series_value_reads_the_jumped_pieces():
    module = bot_module("shatra-search")
    position = get_game("shatra").parse("pqp/p1p/1rb/k/ppppppp/b5r/7/1R4P/5P1/PPPPP1P/K/BRB/P2/PQP b Tt - 0 3")
    board = module["squares"](position)
    assert module["series_value"](board, "g9xg6xb6xb8", False) == 7.0  # shatras g7, f6 and the tura b7
    assert module["series_value"](board, "g9xg6xb6xb8=Q", False) == 7.0  # a promotion suffix is no square


# --- smoke matches ---------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.slow
def test_search_beats_random_in_a_colour_swapped_pair(game_id):
    warnings.simplefilter("ignore")
    sandbox = open_sandbox(trusted=True)
    search = load_bot(BOTS / f"{game_id}-search")
    other = load_bot(BOTS / f"{game_id}-random")
    # a roomy clock: a loaded CI machine must not turn a smoke match into a timeout
    first = play_game(game_id, search, other, tc="move:250", sandbox=sandbox, seed=1)
    second = play_game(game_id, other, search, tc="move:250", sandbox=sandbox, seed=1)
    assert (first["winner"], second["winner"]) == (WHITE, BLACK), (first["reason"], second["reason"])


def test_win_constant_dominates_any_evaluation():
    assert WIN > 1000 * 27


def readme_bot_kit_examples() -> list[tuple[str, str]]:
    """(game, source) of every example in the README's "The bot kit" section, the game named by its run name."""
    text = (ROOT / "README.md").read_text()
    section = text.split("### The bot kit (`engines/botkit.py`)", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]
    games = {"opportunist": "fidchell-1", "greedy-material": "tafl9", "shatra-search": "shatra"}
    return [(next(game for name, game in games.items() if f'name="{name}"' in block), block) for block in blocks]


def test_the_readme_documents_every_player_of_the_kit_with_an_example():
    sources = "\n".join(source for _, source in readme_bot_kit_examples())
    for player in ("run(", "Greedy(evaluate)", "AlphaBeta(evaluate", "clock.deadline()"):
        assert player in sources
    assert len(readme_bot_kit_examples()) == 3


@pytest.mark.parametrize("game, source", readme_bot_kit_examples(), ids=lambda value: value[:12])
@pytest.mark.slow
def test_each_readme_example_passes_the_protocol_check(game, source, tmp_path):
    """What the README shows a bot author works as written: `python -m runner check` passes it."""
    bot = tmp_path / "example.py"
    bot.write_text(source)
    result = subprocess.run([sys.executable, "-m", "runner", "check", str(bot), "--game", game, "--trusted",
                             "--tc", "move:1000"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout
