"""Perft speed of every game against python-chess, in leaf positions per second.

    python benchmarks/perft.py [--seconds S]

Each game counts from its initial position with full make/unmake of every
leaf (no bulk counting), at the deepest depth that fits the time budget;
python-chess runs perft(4) from the chess start position with push/pop.
"""

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from engines import GAME_IDS, get_game  # noqa: E402

TARGETS = {"tafl9": 1.0, "fidchell-1": 1.0, "fidchell-2": 1.0, "shatra": 0.5}


def rate(count) -> tuple[int, float]:
    start = time.perf_counter()
    leaves = count()
    return leaves, leaves / (time.perf_counter() - start)


def chess_perft(board, depth: int) -> int:
    if depth == 0:
        return 1
    leaves = 0
    for move in board.legal_moves:
        board.push(move)
        leaves += chess_perft(board, depth - 1)
        board.pop()
    return leaves


def deepest(position, seconds: float) -> int:
    """The depth whose perft takes about ``seconds`` (estimated from the shallower ones)."""
    depth, elapsed, branching = 1, 0.0, 1.0
    while True:
        start = time.perf_counter()
        position.perft(depth)
        took = time.perf_counter() - start
        if elapsed:
            branching = max(took / elapsed, 1.0)
        if took * branching > seconds or depth >= 8:
            return depth
        depth, elapsed = depth + 1, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="rough time budget per game")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (python-chess perft(2), 0.05 s a game): that it runs, not its figures")
    args = parser.parse_args()
    chess_depth = 4
    if args.quick:
        args.seconds, chess_depth = 0.05, 2
    import chess

    leaves, chess_rate = rate(lambda: chess_perft(chess.Board(), chess_depth))
    print(f"{'python-chess':<12} depth {chess_depth} {leaves:>10} leaves {chess_rate:>11,.0f} leaves/s   ratio 1.00")
    for game_id in GAME_IDS:
        position = get_game(game_id).initial()
        depth = deepest(position, args.seconds)
        leaves, game_rate = rate(lambda position=position, depth=depth: position.perft(depth))
        ratio = game_rate / chess_rate
        verdict = "ok" if ratio >= TARGETS[game_id] else f"below target {TARGETS[game_id]}"
        print(f"{game_id:<12} depth {depth} {leaves:>10} leaves {game_rate:>11,.0f} leaves/s   "
              f"ratio {ratio:.2f} ({verdict})")


if __name__ == "__main__":
    main()
