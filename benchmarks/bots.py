"""Strength of the reference search bots: search vs random and search vs greedy, per game.

    python benchmarks/bots.py [--games 100] [--tc move:100] [--concurrency 2] [--game ID ...]

Runs the bots from seeds/bots in trusted mode (bare subprocesses: they are
our own bots), in colour-swapped pairs, and prints per pairing the search
bot's score, wins/draws/losses, its wins by colour and the reasons games
ended (starred when the search bot lost). The targets of the issue are 90 % against random and 70 % against
greedy in every game.
"""

import argparse
import collections
import pathlib
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines import GAME_IDS  # noqa: E402
from engines.core import BLACK, NONE, WHITE  # noqa: E402
from runner.bots import load_bot  # noqa: E402
from runner.match import play_game  # noqa: E402
from runner.sandbox import open_sandbox  # noqa: E402

TARGETS = {"random": 0.90, "greedy": 0.70}
FAILURES = {"crash", "timeout", "illegal-move", "bot-error", "init-failed"}


def report_failure(game_id: str, side: str, record: dict) -> None:
    """The search bot lost by a fault, not on the board: say what happened, on stderr."""
    stderr = record.get("stderr", {}).get(side, "").strip().splitlines()[-3:]
    print(f"  {game_id}: search ({side}) lost by {record['reason']} at ply {record['plies']}: "
          f"{record.get('detail', '')} {' | '.join(stderr)}", file=sys.stderr, flush=True)


def play_pairing(game_id: str, opponent: str, games: int, tc: str, concurrency: int, sandbox) -> dict:
    """Play ``games`` games (colour-swapped pairs) of the search bot against ``opponent``."""
    search = load_bot(ROOT / "seeds" / "bots" / f"{game_id}-search")
    other = load_bot(ROOT / "seeds" / "bots" / f"{game_id}-{opponent}")

    def one(number: int) -> tuple[str, str, str]:
        side = WHITE if number % 2 == 0 else BLACK
        white, black = (search, other) if side == WHITE else (other, search)
        record = play_game(game_id, white, black, tc=tc, sandbox=sandbox, seed=number // 2)
        result = "draw" if record["winner"] == NONE else "win" if record["winner"] == side else "loss"
        if result == "loss" and record["reason"] in FAILURES:
            report_failure(game_id, side, record)
        return side, result, record["reason"]

    started = time.monotonic()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, range(games)))
    return {"results": results, "seconds": time.monotonic() - started}


def table_row(game_id: str, opponent: str, outcome: dict) -> str:
    results = outcome["results"]
    counts = collections.Counter(result for _, result, _ in results)
    points = counts["win"] + 0.5 * counts["draw"]
    share = points / len(results)
    by_colour = " ".join(
        f"{side[0]}:{sum(r == 'win' for s, r, _ in results if s == side)}/{sum(s == side for s, _, _ in results)}"
        for side in (WHITE, BLACK))
    # a loss's reason is starred: "timeout*" means the search bot ran out of time
    reasons = ", ".join(f"{reason} {n}" for reason, n in collections.Counter(
        reason + ("*" if result == "loss" else "") for _, result, reason in results).most_common())
    verdict = "ok" if share >= TARGETS[opponent] else "BELOW TARGET"
    return (f"{game_id:<11} {'vs ' + opponent:<10} {100 * share:6.1f}%  {counts['win']:>3}/{counts['draw']:>3}/"
            f"{counts['loss']:>3}  {by_colour:<15} {outcome['seconds']:6.0f}s  {verdict:<12} {reasons}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing (even: colour-swapped pairs)")
    parser.add_argument("--tc", default="move:100", help="time control, e.g. move:100")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--game", action="append", choices=GAME_IDS, help="only these games (repeatable)")
    parser.add_argument("--opponent", action="append", choices=sorted(TARGETS), help="only these opponents")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (2 games a pairing, no verdict on the targets)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games = 2
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be an even number of at least 2, got {args.games}")
    if args.concurrency < 1:
        parser.error(f"--concurrency must be 1 or more, got {args.concurrency}")
    warnings.simplefilter("ignore")  # the trusted-mode warning, once per game
    sandbox = open_sandbox(trusted=True)
    print(f"search bot vs each opponent, {args.games} games per pairing, {args.tc}, concurrency {args.concurrency}")
    print(f"{'game':<11} {'pairing':<10} {'score':>7}  {'W/D/L':>11}  {'wins by colour':<15} {'time':>7}  "
          f"{'target':<12} reasons")
    below = 0
    for game_id in args.game or GAME_IDS:
        for opponent in args.opponent or sorted(TARGETS, reverse=True):
            outcome = play_pairing(game_id, opponent, args.games, args.tc, args.concurrency, sandbox)
            row = table_row(game_id, opponent, outcome)
            below += "BELOW" in row
            print(row, flush=True)
    return 1 if below and not args.quick else 0  # two games say nothing of a target


if __name__ == "__main__":
    sys.exit(main())
