"""``python -m engines`` exactly as docs/rules/README.md writes it, run as a real subprocess."""

import subprocess
import sys

import pytest

from engines import GAME_IDS, get_game

START = "3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 0"


def engines(*args):
    return subprocess.run([sys.executable, "-m", "engines", *args], capture_output=True, text=True, timeout=120)


def test_perft_prints_the_count_on_the_last_line():
    done = engines("perft", "tafl9", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "3968"


def test_perft_divide_lists_each_action_then_the_total():
    done = engines("perft", "tafl9", "2", "--divide")
    lines = done.stdout.splitlines()
    assert len(lines) == 57 and lines[-1] == "3968"
    counts = dict(line.split() for line in lines[:-1])
    assert sum(map(int, counts.values())) == 3968
    assert counts["E3-H3"] == "70"
    assert list(counts) == sorted(counts)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_legal_lists_every_action_sorted(game_id):
    done = engines("legal", game_id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == sorted(get_game(game_id).initial().legal_moves())


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_play_prints_the_position_then_the_outcome(game_id):
    start = get_game(game_id).initial()
    action = start.legal_moves()[0]
    done = engines("play", game_id, "--position", start.text(), action)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [start.play(action).text(), "ongoing"]


def test_play_reports_the_end_of_the_game():
    done = engines("play", "tafl9", "--position", "9/7b1/9/9/9/9/3k5/9/9 w 0", "D3-D1")
    assert done.stdout.splitlines()[1] == "winner=white reason=escape"


def test_a_printed_last_position_reads_back_as_over():
    # docs/rules/fidchell.md T27: the challenge is upheld; the line play prints (CH=0) is a game over when given back
    t27 = "V=F2; W=r4s4,r6s8,r7s1,r7s5,r7s9,r7s13,r7s17,r7s21,r6s20; B=r5s4,r3s0,r3s8,r6s0; H=0/0; T=W; K=both; CH=1"
    done = engines("play", "fidchell-2", "--position", t27, "r7s1-r7s2")
    final, outcome = done.stdout.splitlines()
    assert outcome == "winner=black reason=challenge" and final.endswith("CH=0")
    legal = engines("legal", "fidchell-2", "--position", final)
    assert (legal.returncode, legal.stdout) == (0, "")
    after = engines("play", "fidchell-2", "--position", final, "r6s0-r6s1")
    assert after.returncode == 2 and "over" in after.stderr and after.stdout == ""


def test_play_from_the_initial_position_by_default():
    done = engines("play", "tafl9", "e3-h3")
    assert done.stdout.splitlines() == ["3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/7w1/4b4/3bbb3 b 1", "ongoing"]


def test_a_setting_can_be_changed():
    position = "9/7b1/9/9/9/9/3k5/9/9 w 0"
    done = engines("legal", "tafl9", "--position", position, "--set", "ranks_numbered_from_bottom=false")
    assert done.returncode == 0, done.stderr
    tafl9 = get_game("tafl9")
    expected = tafl9.parse(position, {"ranks_numbered_from_bottom": False}).legal_moves()
    assert done.stdout.splitlines() == expected
    assert expected != tafl9.parse(position).legal_moves()


def test_an_unknown_setting_is_refused():
    done = engines("legal", "tafl9", "--set", "no_such_rule=true")
    assert done.returncode == 2 and "no_such_rule" in done.stderr


@pytest.mark.parametrize(
    "args, named",
    [
        (("play", "tafl9", "E3-H3", "E3-H3"), "E3-H3"),
        (("play", "tafl9", "--position", "9/9/9 w 0", "E3-H3"), "9/9/9"),
        (("legal", "chess"), "chess"),
        (("perft", "tafl9", "-1"), "depth"),
        (("perft", "tafl9", "two"), "two"),
        (("legal", "shatra", "--position", "pqp/prp w Tt - 0 1"), "ranks"),
        (("legal", "fidchell-1", "--position", "V=F9; T=W"), ""),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, named):
    done = engines(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert named in done.stderr


@pytest.mark.parametrize("command", ["match", "check"])
def test_the_host_commands_point_to_the_runner(command):
    """They play bots, so they moved to the host package: one line says where, no traceback."""
    done = engines(command, "--game", "tafl9", "bot/")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: {command} moved out of the bot's library: use python -m runner {command}\n"


def test_a_reader_that_leaves_early_gets_no_traceback():
    """``python -m engines demo | head -c 1``: the pipe closes under the writer, which stops quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "engines", "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.read(1) == b"["
    proc.stdout.close()  # the reader leaves, as head does
    _, stderr = proc.communicate(timeout=60)
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr
    assert proc.returncode == 1
