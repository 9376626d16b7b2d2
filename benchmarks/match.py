"""Match runner figures: ``python benchmarks/match.py [--games N] [--starts N] [--rounds N] [--game ID]``.

1. Per-action cost of referee + protocol (``play_game``) against a raw pipe round
   trip that sends the same position/legal/go lines to the same trivial bot and
   reads its move (target: at most 2x). The referee's share is also split into
   the rules' own work (legal_moves + play, measured by replaying the game). A second
   raw figure sends exactly what the referee sends (``played`` lines included) to two
   processes of the bot taking turns, as a game does; the one-process figure skips both.
2. Idle-bot suspension: the runner's time per action with and without it, for a
   bot thinking 20 ms per action (suspension only starts after 10 ms).
3. Sandboxed bot start (spawn to handshake reply) against a bare ``bwrap ... true``
   (target: at most 2x), for a shell bot and for a Python bot.
4. Games per minute with two instant bots on one core, per game id.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines import GAME_IDS, get_game  # noqa: E402
from engines.protocol import played_line  # noqa: E402
from runner.bots import load_bot  # noqa: E402
from runner.match import play_game  # noqa: E402
from runner.sandbox import Limits, SandboxError, open_sandbox  # noqa: E402

FIRST_BOT = ROOT / "tests" / "bots" / "first_bot.py"
FLEX_BOT = ROOT / "tests" / "bots" / "flexbot.py"
SH_BOT = """#!/bin/sh
while read -r line; do
  case "$line" in
    bgtp*) echo "bgtp 1 name=sh" ;;
    newgame*) echo ready ;;
    quit*) exit 0 ;;
  esac
done
"""


def trusted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_sandbox(trusted=True)


def game_lines(game_id: str, actions: list[str]) -> list[bytes]:
    """The position + legal + go block the referee sends before each action of a game."""
    game = get_game(game_id)
    position = game.initial()
    blocks = []
    for ply, action in enumerate(actions, start=1):
        legal = position.legal_moves()
        blocks.append(f"position {position.text()}\nlegal {' '.join(legal)}\n"
                      f"go side={position.turn} ply={ply} movetime=1000\n".encode())
        position = position.play(action)
    return blocks


def game_lines_two_bots(game_id: str, actions: list[str]) -> list[tuple[str, bytes]]:
    """(side to act, bytes) the referee really writes per action: the ``played`` lines each bot has not heard
    yet, then position, legal and go; a game alternates between two bot processes."""
    game = get_game(game_id)
    position = game.initial()
    unheard: dict[str, list[str]] = {"white": [], "black": []}
    blocks = []
    for ply, action in enumerate(actions, start=1):
        side = position.turn
        lines = unheard[side] + [f"position {position.text()}", f"legal {' '.join(position.legal_moves())}",
                                 f"go side={side} ply={ply} movetime=5000"]
        unheard[side] = []
        blocks.append((side, ("\n".join(lines) + "\n").encode()))
        position = position.play(action)
        played = played_line(side, action, position, ply)
        for heard in unheard.values():
            heard.append(played)
    return blocks


def raw_two_bots_us(blocks: list[tuple[str, bytes]], rounds: int = 5) -> float:
    """The same bytes as the referee sends, to two processes of the same bot taking turns, over bare pipes."""
    best = float("inf")
    for _ in range(rounds):
        procs = {}
        for side in ("white", "black"):
            proc = subprocess.Popen([sys.executable, str(FIRST_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    bufsize=0)
            proc.stdin.write(f"bgtp 1\nnewgame id=x game=x side={side} tc=move:5000\n".encode())
            proc.stdout.readline(), proc.stdout.readline()
            procs[side] = proc
        start = time.perf_counter()
        for side, block in blocks:
            os.write(procs[side].stdin.fileno(), block)
            procs[side].stdout.readline()
        best = min(best, time.perf_counter() - start)
        for proc in procs.values():
            proc.stdin.write(b"quit\n")
            proc.wait()
    return best / len(blocks) * 1e6


def rules_cost_us(game_id: str, actions: list[str], rounds: int = 5) -> float:
    """The rules' own work per action (legal_moves, text, outcome, play), best of ``rounds``."""
    game = get_game(game_id)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        position = game.initial()
        for action in actions:
            position.outcome()
            position.legal_moves()
            position.text()
            position = position.play(action)
        best = min(best, time.perf_counter() - start)
    return best / len(actions) * 1e6


def raw_round_trip_us(blocks: list[bytes], rounds: int = 5) -> float:
    """Same bytes, same bot program, a bare pipe: write a block, read the move line."""
    best = float("inf")
    for _ in range(rounds):
        proc = subprocess.Popen([sys.executable, str(FIRST_BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                bufsize=0)
        proc.stdin.write(b"bgtp 1\nnewgame id=x game=x side=white tc=move:1000\n")
        proc.stdout.readline(), proc.stdout.readline()
        reader = proc.stdout
        start = time.perf_counter()
        for block in blocks:
            os.write(proc.stdin.fileno(), block)
            reader.readline()
        best = min(best, time.perf_counter() - start)
        proc.stdin.write(b"quit\n")
        proc.wait()
    return best / len(blocks) * 1e6


def referee_per_action_us(record: dict) -> float:
    """From the game log: first legal line sent to the gameover line, per action."""
    stamps = [float(line.split(" ", 1)[0]) for line in record["log"]]
    texts = [line.split(" ", 2)[2] if line.count(" ") >= 2 else "" for line in record["log"]]
    first = next(i for i, t in enumerate(texts) if t.startswith("legal "))
    last = next(i for i, t in enumerate(texts) if t.startswith("gameover "))
    return (stamps[last] - stamps[first]) * 1000 / record["plies"]


def overhead(game_ids: list[str], rounds: int) -> None:
    print(f"1. Per-action cost, referee + protocol vs a raw pipe round trip (same bot, same bytes; best of {rounds}, "
          "the three measured in turn so that each round sees the machine in the same state)")
    sandbox = trusted()
    bot = load_bot(FIRST_BOT)
    for game_id in game_ids:
        record = play_game(game_id, bot, bot, sandbox=sandbox, tc="move:5000", seed=1)
        blocks = game_lines(game_id, record["actions"])
        blocks_two = game_lines_two_bots(game_id, record["actions"])
        referee = raw = raw_two = float("inf")
        for _ in range(rounds):
            game = play_game(game_id, bot, bot, sandbox=sandbox, tc="move:5000", seed=1)
            referee = min(referee, referee_per_action_us(game))
            raw = min(raw, raw_round_trip_us(blocks, rounds=1))
            raw_two = min(raw_two, raw_two_bots_us(blocks_two, rounds=1))
        rules = rules_cost_us(game_id, record["actions"])
        print(f"   {game_id:<11} {record['plies']:>4} plies: referee {referee:7.0f} us/action, raw pipe {raw:6.0f} us, "
              f"ratio {referee / raw:4.2f}x; rules alone {rules:6.0f} us, "
              f"runner without rules {(referee - rules) / raw:4.2f}x; "
              f"raw pipe to two bots in turn with the played lines {raw_two:6.0f} us ({referee / raw_two:4.2f}x)")


def suspension() -> None:
    print("2. Idle-bot suspension, a bot thinking 20 ms per action (tafl9, 2 games each; runner time per action)")
    sandbox = trusted()
    with tempfile.TemporaryDirectory() as tmp:
        slow = Path(tmp) / "slow"
        slow.mkdir()
        (slow / "main.py").write_bytes(FLEX_BOT.read_bytes())
        (slow / "bot.toml").write_text('run = "python3 main.py first slow:20"\n')
        bot = load_bot(slow)
        for suspend in (False, True):
            per_action = []
            for _ in range(2):
                record = play_game("tafl9", bot, bot, sandbox=sandbox, tc="move:5000", seed=1, suspend=suspend)
                spent = referee_per_action_us(record) - sum(record["times"]) * 1000 / record["plies"]
                per_action.append(spent)
            print(f"   suspend={str(suspend):<5}: {statistics.mean(per_action):6.0f} us per action"
                  " beyond the bots' own time")


def startup(runs: int) -> None:
    print(f"3. Sandboxed bot start (spawn to handshake reply) vs bare bwrap (median of {runs}; each bot and its bare "
          "baseline measured in turn, so that both see the machine in the same state)")
    try:
        sandbox = open_sandbox()
    except SandboxError as error:
        print(f"   skipped: {error}")
        return
    bwrap = getattr(sandbox, "bwrap", "bwrap")
    bare = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
            "--tmpfs", "/tmp"]
    limits = Limits()

    def run_bare(command: list[str]) -> dict[str, float]:
        start = time.perf_counter()
        subprocess.run(bare + command, check=True)
        return {"run": (time.perf_counter() - start) * 1000}

    def start_bot(bot) -> dict[str, float]:
        t0 = time.perf_counter()
        workdir = sandbox.prepare(bot, limits)
        t1 = time.perf_counter()
        process = sandbox.spawn(workdir, bot, limits, {})
        try:
            os.write(process.stdin.fileno(), b"bgtp 1\n")
            process.stdout.readline()
            t2 = time.perf_counter()
        finally:
            process.kill()
        return {"prepare": (t1 - t0) * 1000, "spawn to reply": (t2 - t1) * 1000,
                "kill": (time.perf_counter() - t2) * 1000}

    with tempfile.TemporaryDirectory() as tmp:
        sh_dir = Path(tmp) / "shbot"
        sh_dir.mkdir()
        (sh_dir / "bot.sh").write_text(SH_BOT)
        (sh_dir / "bot.toml").write_text('run = "sh bot.sh"\n')
        shell_bot, python_bot = load_bot(sh_dir), load_bot(FIRST_BOT)
        pairs = [{"bare true": lambda: run_bare(["/usr/bin/true"]), "shell bot": lambda: start_bot(shell_bot)},
                 {"bare python": lambda: run_bare(["/usr/bin/python3", "-c", "pass"]),
                  "python bot": lambda: start_bot(python_bot)}]
        samples: dict[str, dict[str, list[float]]] = {kind: {} for pair in pairs for kind in pair}
        for pair in pairs:  # apart: a Python start's teardown would slow the next shell start
            for round_number in range(runs + 1):
                for kind, action in pair.items():
                    phases = action()
                    if round_number:  # the first round only warms up
                        for phase, ms in phases.items():
                            samples[kind].setdefault(phase, []).append(ms)
    median = {kind: {phase: statistics.median(v) for phase, v in phases.items()} for kind, phases in samples.items()}
    true_ms, python_ms = median["bare true"]["run"], median["bare python"]["run"]
    for label, base_label, base in (("shell bot", "bare bwrap true", true_ms),
                                    ("python bot", "bare bwrap python3 -c pass", python_ms)):
        phases = median[label]
        print(f"   {label:<10}: " + ", ".join(f"{phase} {ms:.1f} ms" for phase, ms in phases.items()))
        ms = phases["spawn to reply"]
        print(f"   {label:<10}: spawn to reply {ms:6.1f} ms; bare bwrap true {true_ms:5.1f} ms ({ms / true_ms:4.2f}x)"
              + (f", {base_label} {base:5.1f} ms ({ms / base:4.2f}x)" if base is not true_ms else ""))


def games_per_minute(game_ids: list[str], games: int) -> None:
    print(f"4. Games per minute, two instant bots, pinned to one core ({games} games each)")
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        print("   (could not pin to one core)")
    sandboxes = [("trusted", trusted())]
    try:
        sandboxes.append(("bubblewrap", open_sandbox()))
    except SandboxError:
        pass
    bot = load_bot(FIRST_BOT)
    for game_id in game_ids:
        figures = []
        for label, sandbox in sandboxes:
            start = time.perf_counter()
            plies = 0
            for number in range(games):
                plies += play_game(game_id, bot, bot, sandbox=sandbox, tc="move:5000", seed=number)["plies"]
            elapsed = time.perf_counter() - start
            figures.append(f"{label} {games / elapsed * 60:6.0f}/min ({plies / games:.0f} plies/game)")
        print(f"   {game_id:<11} " + ", ".join(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per game id for games/minute")
    parser.add_argument("--starts", type=int, default=20, help="runs for the start-up medians")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the per-action comparison")
    parser.add_argument("--game", action="append", choices=GAME_IDS, help="only these game ids")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (1 game, 2 starts, 1 round): that it runs, not its figures")
    args = parser.parse_args()
    if args.quick:
        args.games, args.starts, args.rounds = 1, 2, 1
    game_ids = args.game or list(GAME_IDS)
    overhead(game_ids, args.rounds)
    suspension()
    startup(args.starts)
    games_per_minute(game_ids, args.games)


if __name__ == "__main__":
    main()
