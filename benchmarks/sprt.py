"""The SPRT's operating characteristic on simulated tests: how often it passes, fails or hits the pair cap,
how long it runs, and how often the Elo interval shown after it stops covers the truth.

    python3 benchmarks/sprt.py                      # 100 tests per case, bounds [0, 10], the default cap
    python3 benchmarks/sprt.py --runs 1000 --draws 0.0 0.3 0.6 --max-pairs 5000

Each simulated test plays colour-swapped pairs of independent games, each won, drawn or lost with the true
Elo's score and the given draw rate, and checks fishtest's pentanomial LLR (``ratings.sprt.llr``, vectorized
here with the same secular equation) after every ``--every`` pairs (1: after each pair, as the service does
with its default two-game matches) until it crosses a bound or reaches the cap. True Elo: elo0, midway,
elo1 and beyond (elo1 + the bounds' width). Printed per case: pass, fail and capped rates, mean pairs,
Wald's expected pairs (``ratings.sprt.expected_pairs``, which ignores the cap), and the share of stopped
tests whose 95% interval covers the true Elo, for the fixed-sample interval (``engines.stats``) and for the
sequential one (``ratings.sprt.sequential_estimate``). Targets: pass rate ≤ α at elo0, ≥ 93% at elo1;
sequential coverage ≈ 95%. Each case takes a minute or two (``--runs 200``: 20 minutes in all on a busy
two-core machine; the long cases are those near the bounds, which run the longest tests).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.stats import elo_pentanomial, score_from_elo  # noqa: E402  (after the path)
from ratings import sprt  # noqa: E402

POINTS = np.array(sprt.PAIR_POINTS)


def default_cap() -> int:
    """ARENA_SPRT_MAX_PAIRS as the settings read it (the environment, else the default)."""
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    return int(settings.ARENA["SPRT_MAX_PAIRS"])


def fit(observed: np.ndarray, score: float) -> np.ndarray:
    """``sprt._most_likely`` for many tests at once: Newton's method on the secular equation (it falls
    steadily between its poles), kept inside a shrinking bracket, bisecting where a step would leave it."""
    shifted = POINTS - score
    low = np.full(len(observed), -1.0 / shifted.max() + 1e-9)
    high = np.full(len(observed), -1.0 / shifted.min() - 1e-9)
    x = np.zeros(len(observed))
    for _ in range(30):
        terms = 1.0 + x[:, None] * shifted
        slope = (observed * shifted / terms).sum(axis=1)
        low, high = np.where(slope > 0, x, low), np.where(slope > 0, high, x)
        step = x + slope / (observed * shifted ** 2 / terms ** 2).sum(axis=1)
        x = np.where((step >= low) & (step <= high), step, (low + high) / 2)
        if np.abs(slope).max() < 1e-13:
            break
    return observed / (1.0 + x[:, None] * shifted)


def llrs(counts: np.ndarray, score0: float, score1: float) -> np.ndarray:
    regular = np.where(counts == 0, sprt.EMPTY_CELL, counts)
    pairs = regular.sum(axis=1)
    observed = regular / pairs[:, None]
    fit0, fit1 = fit(observed, score0), fit(observed, score1)
    return pairs * (observed * (np.log(fit1) - np.log(fit0))).sum(axis=1)


def simulate(hypotheses, elo, draw_rate, runs, cap, every, rng):
    """The final pentanomials and verdicts (+1 passed, −1 failed, 0 capped) of ``runs`` tests."""
    score = score_from_elo(elo)
    game = np.array([1 - score - draw_rate / 2, draw_rate, score - draw_rate / 2])  # loss, draw, win
    pair = np.convolve(game, game)  # pair scores 0..2 in half points
    counts = np.zeros((runs, 5))
    verdicts = np.zeros(runs, dtype=int)
    running = np.ones(runs, dtype=bool)
    score0, score1 = sprt.bound_scores(hypotheses, 0.0)
    played = 0
    while running.any() and played < cap:
        step = min(every, cap - played)
        counts[running] += rng.multinomial(step, pair, size=running.sum())
        played += step
        value = llrs(counts[running], score0, score1)
        index = np.flatnonzero(running)
        verdicts[index[value >= hypotheses.upper]] = 1
        verdicts[index[value <= hypotheses.lower]] = -1
        running[index[(value >= hypotheses.upper) | (value <= hypotheses.lower)]] = False
    return counts.astype(int), verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="simulated tests per case (100)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--draws", type=float, nargs="+", default=[0.0, 0.3], help="draw rates (0 and 0.3)")
    parser.add_argument("--max-pairs", type=int, default=None, help="the cap (default: ARENA_SPRT_MAX_PAIRS)")
    parser.add_argument("--every", type=int, default=1, help="pairs between LLR checks (1)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (4 tests a case, no draws, a cap of 200 pairs): not its figures")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.draws, args.max_pairs = 4, [0.0], 200
    cap = args.max_pairs or default_cap()
    hypotheses = sprt.Hypotheses(args.elo0, args.elo1)
    width = args.elo1 - args.elo0
    rng = np.random.default_rng(args.seed)
    print(f"SPRT [{args.elo0:g}, {args.elo1:g}] logistic Elo, alpha = beta = 0.05, cap {cap} pairs, "
          f"{args.runs} tests per case, LLR checked every {args.every} pair(s)")
    print(f"{'draws':>5} {'true Elo':>8} {'pass':>6} {'fail':>6} {'capped':>6} {'pairs':>7} {'Wald':>7} "
          f"{'cover fixed':>11} {'cover seq':>9} {'seconds':>7}")
    for draw_rate in args.draws:
        for elo in (args.elo0, (args.elo0 + args.elo1) / 2, args.elo1, args.elo1 + width):
            started = time.perf_counter()
            counts, verdicts = simulate(hypotheses, elo, draw_rate, args.runs, cap, args.every, rng)
            fixed = sequential = 0
            for row in counts:
                shown = elo_pentanomial(tuple(int(n) for n in row))
                fixed += shown.low <= elo <= shown.high
                estimate = sprt.sequential_estimate(row.tolist(), hypotheses)
                sequential += estimate.low <= elo <= estimate.high
            print(f"{draw_rate:5.2f} {elo:8.1f} {np.mean(verdicts == 1):6.1%} {np.mean(verdicts == -1):6.1%} "
                  f"{np.mean(verdicts == 0):6.1%} {counts.sum(axis=1).mean():7.0f} "
                  f"{sprt.expected_pairs(hypotheses, elo, draw_rate):7.0f} {fixed / args.runs:11.1%} "
                  f"{sequential / args.runs:9.1%} {time.perf_counter() - started:7.1f}")


if __name__ == "__main__":
    main()
