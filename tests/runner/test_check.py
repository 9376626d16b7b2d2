"""``python -m runner match`` and ``check`` end to end, as subprocesses with real bots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.record import verify_record

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "runner", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def flex(tmp_path):
    def make(*modes: str) -> str:
        directory = tmp_path / ("flex-" + "-".join(m.replace(":", "") for m in modes))
        directory.mkdir(exist_ok=True)
        (directory / "main.py").write_bytes((BOTS / "flexbot.py").read_bytes())
        (directory / "bot.toml").write_text(f'run = "python3 main.py {" ".join(modes)}"\n')
        return str(directory)

    return make


# --- match ---------------------------------------------------------------------------------------


def test_match_plays_colour_swapped_pairs_and_writes_records(tmp_path):
    records = tmp_path / "games.jsonl"
    result = run_cli("match", "--game", "tafl9", "--games", "4", "--tc", "move:500", "--trusted", "--seed", "11",
                     "--concurrency", "2", "--records", str(records),
                     str(BOTS / "random_bot.py"), str(BOTS / "first_bot.py"))
    assert result.returncode == 0, result.stderr
    assert "Score of random_bot vs first_bot:" in result.stdout
    assert "Elo difference:" in result.stdout and "Terminations:" in result.stdout
    assert "4/4" in result.stderr and "TRUSTED MODE" in result.stderr
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert [(g["white"], g["black"]) for g in games] == [("random_bot", "first_bot"), ("first_bot", "random_bot")] * 2
    for game in games:
        verify_record(game)
    # a pair shares its seed: the log's newgame lines say so
    seeds = [next(line for line in g["log"] if " newgame " in line).split("seed=")[1] for g in games]
    assert seeds[0] == seeds[1] == "11" and seeds[2] == seeds[3] == "12"


def test_match_score_line_counts_wins_draws_losses(flex):
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--trusted", flex("first"), flex("resign"))
    assert result.returncode == 0, result.stderr
    assert "Score of flex-first vs flex-resign: 2 - 0 - 0 [1.000] 2" in result.stdout
    assert "Elo difference: +inf" in result.stdout
    assert "resign (flex-resign) 2" in result.stdout


def test_round_robin_of_three_bots(flex):
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--trusted", "--tc", "move:500",
                     flex("first"), flex("resign"), str(BOTS / "random_bot.py"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Score of ") == 3
    assert "Rank Name" in result.stdout
    table = result.stdout.split("Rank Name", 1)[1].splitlines()[1:]
    assert len(table) == 3 and "flex-resign" in table[-1]


def test_match_says_why_each_game_was_lost_with_the_end_of_the_bots_stderr(tmp_path, flex):
    """A bot that dies in its own code: the author reads the exception, not just "crash"."""
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import sys\n"
        "from engines.botkit import AlphaBeta, run\n"
        "def evaluate(position):\n"
        "    print('thinking about', position.turn, file=sys.stderr, flush=True)\n"
        "    return 1 / 0\n"
        "run(AlphaBeta(evaluate), name='broken')\n")
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--trusted", "--tc", "move:1000",
                     str(broken), flex("first"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Games lost by a failure (the reason, then the last lines of the bot's stderr):" in lines
    assert "  game 1: broken (white) crash: exit code 1 (stderr: ZeroDivisionError: division by zero)" in lines
    assert "  game 2: broken (black) crash: exit code 1 (stderr: ZeroDivisionError: division by zero)" in lines
    assert lines.count("    | ZeroDivisionError: division by zero") == 2
    assert any(line.startswith("    |     return 1 / 0") for line in lines)  # the lines before the last one
    assert "flex-first" not in result.stdout.split("Game tafl9")[0]  # the winner never failed
    assert result.stdout.index("Games lost by a failure") < result.stdout.index("Score of broken vs flex-first")


def test_match_names_the_illegal_action_and_says_when_stderr_is_empty(flex):
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--trusted", flex("first"), flex("illegal"))
    assert result.returncode == 0, result.stderr
    failures = result.stdout.split("Game tafl9")[0]
    assert failures.count("flex-illegal") == 2 and "illegal-move: " in failures
    assert failures.count("    (nothing on stderr)") == 2


def test_match_without_failures_prints_no_failure_section(flex):
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--trusted", flex("first"), flex("resign"))
    assert result.returncode == 0, result.stderr
    assert "lost by a failure" not in result.stdout


@pytest.mark.parametrize("manifest, message", [
    ('run = "python3 main.py"\nbogus = 1\n', "unknown key"),
    ('run = \n', "cannot parse"),
    ('run = "python3 missing.py"\n', "missing.py"),
    ('run = "python3 main.py"\ngames = ["shatra"]\n', "plays shatra (its manifest's 'games'), not tafl9"),
])
def test_bad_bot_is_one_line_error_exit_2(tmp_path, manifest, message):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.toml").write_text(manifest)
    (bad / "main.py").write_text("")
    result = run_cli("match", "--game", "tafl9", "--trusted", str(bad), str(BOTS / "first_bot.py"))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (("--game", "chess"), "unknown game"),
    (("--game", "tafl9", "--tc", "blitz"), "time control"),
    (("--game", "tafl9", "--games", "0"), "--games"),
])
def test_bad_options_exit_2(args, message):
    result = run_cli("match", *args, "--trusted", str(BOTS / "first_bot.py"), str(BOTS / "first_bot.py"))
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_untrusted_match_uses_the_sandbox_or_refuses_cleanly(tmp_path):
    records = tmp_path / "r.jsonl"
    result = run_cli("match", "--game", "tafl9", "--games", "2", "--records", str(records),
                     str(BOTS / "random_bot.py"), str(BOTS / "first_bot.py"))
    if result.returncode == 2:
        assert "sandbox" in result.stderr and "Traceback" not in result.stderr
        if os.environ.get("CI"):
            pytest.fail(f"bubblewrap sandbox unavailable in CI: {result.stderr}")
        pytest.skip("bubblewrap unavailable")
    assert result.returncode == 0, result.stderr
    assert "TRUSTED" not in result.stderr
    assert len(records.read_text().splitlines()) == 2


# --- check ---------------------------------------------------------------------------------------


def test_check_passes_a_correct_bot():
    result = run_cli("check", str(BOTS / "random_bot.py"), "--game", "tafl9", "--trusted")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout
    assert "FAIL" not in result.stdout


def test_check_exercises_fidchell_extra_turns():
    result = run_cli("check", str(BOTS / "random_bot.py"), "--game", "fidchell-1", "--trusted", "--seed", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS extra-turns" in result.stdout


@pytest.mark.parametrize("mode, failed, why", [
    ("early", "waits-for-go", "before go"),
    ("noflush", "flushes", "flush after every line"),
    ("stubborn", "quits", "still running 2 s after quit"),
    ("illegal", "plays", "illegal answer"),
    ("crash-at:2", "plays", "exit code 3"),
    ("version:2", "handshake", "expected 'bgtp 1 name=...'"),
    ("no-ready", "ready", "no 'ready'"),
])
@pytest.mark.slow
def test_check_names_the_failed_check(flex, mode, failed, why):
    result = run_cli("check", flex(mode), "--game", "tafl9", "--trusted", "--startup-ms", "800")
    assert result.returncode == 1, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if line.split()[1] == failed)
    assert line.startswith("FAIL") and why in line


def test_check_of_a_missing_bot_exits_2(tmp_path):
    result = run_cli("check", str(tmp_path / "nothing"), "--game", "tafl9", "--trusted")
    assert result.returncode == 2 and "no such file" in result.stderr and "Traceback" not in result.stderr
