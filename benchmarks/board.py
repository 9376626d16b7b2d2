"""The leaderboard's two claims, on simulated leagues: a bot's new version is rated for itself, and a ranked
bot's 95% rank interval holds its true rank 95% of the time.

    python3 benchmarks/board.py                 # 200 leagues each
    python3 benchmarks/board.py --leagues 50

1. Versions. A league of 8 bots spread evenly over 700 Elo plays a round robin; then one bot's new version,
   300 Elo stronger, plays the same number of games. Fitted as the board now fits (each version a player)
   and as it did (a bot's versions pooled into one player): the new version's error and how often its 95%
   interval covers its true strength. Target: per-version coverage ≥ 90% (the fit's own intervals).
2. Ranks. A league of 12 bots, strengths drawn from N(0, 150²), plays ``--games`` games per pair; every bot
   the fit rates with a margin within 100 Elo (LEADERBOARD_RANKED_MARGIN's default) is ranked, and
   ``ratings.ranks`` gives its rank interval and p_first. Reported: how often the interval holds the bot's
   true rank among the ranked (target ≥ 95%: an interval from the joint law, not from each margin alone),
   the mean width, and p_first's calibration (Brier score against who truly is first, beside always
   guessing the fitted leader). Then the time of ``rank_intervals`` for 100 and 500 ranked bots.

Games: colours at random, a first-player advantage of 40 Elo, 20% draws taken from decisive results'
expected score (Davidson-like); seeded, so a run repeats.

Measured (100 leagues, with the fit's prior): the new version per version +15.8 Elo mean error, its interval
covering the truth in 94%; pooled -86.9 Elo and 21%. Rank intervals hold the true rank for 99.2% of 1200
ranked bots (conservative; 3.1 places wide on average); p_first's Brier score 0.0177 against 0.0233 for
taking the fitted leader as certain. rank_intervals: 0.12 s CPU for 100 ranked bots, 1.2 s for 500.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import fit as fitting  # noqa: E402  (after the path)
from ratings.ranks import rank_intervals  # noqa: E402

ADVANTAGE = 40.0
DRAWS = 0.2
RANKED_MARGIN = 100.0


def play(rng, strengths, pairs):
    """(white, black, white's score) of one game per (a, b) in ``pairs``, colours at random."""
    white, black, score = [], [], []
    for a, b in pairs:
        if rng.random() < 0.5:
            a, b = b, a
        expected = 1.0 / (1.0 + 10.0 ** ((strengths[b] - strengths[a] - ADVANTAGE) / 400.0))
        roll = rng.random()
        result = 0.5 if roll < DRAWS else (1.0 if roll < DRAWS + (1 - DRAWS) * expected else 0.0)
        white.append(a)
        black.append(b)
        score.append(result)
    return white, black, score


def versions(leagues: int, games_per_pair: int) -> None:
    rng = np.random.default_rng(1)
    bots = 8
    errors = {"per version": [], "pooled": []}
    covered = {"per version": 0, "pooled": 0}
    for _ in range(leagues):
        strengths = np.linspace(-350.0, 350.0, bots)
        new = bots  # the index of bot 0's new version, 300 Elo stronger than its old one
        strengths = np.append(strengths, strengths[0] + 300.0)
        pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)] * games_per_pair
        pairs += [(new, b) for b in range(1, bots)] * games_per_pair
        white, black, score = play(rng, strengths, pairs)
        truth = strengths - strengths.mean()
        # per version: nine players; pooled: the new version's games are bot 0's
        for name, players, merge in (("per version", bots + 1, lambda i: i), ("pooled", bots, lambda i: i % bots)):
            fitted = fitting.fit_games([merge(w) for w in white], [merge(b) for b in black], score, players,
                                       average=0.0)
            player = fitted.players[merge(new)]
            if player.elo is None:
                continue
            # Compare with the truth on the same anchor: the fit's average is that of its players.
            anchor = np.mean([truth[i] for i in range(players)]) if name == "per version" else np.mean(truth[:bots])
            error = player.elo - (truth[new] - anchor)
            errors[name].append(error)
            covered[name] += abs(error) <= player.margin
    for name in ("per version", "pooled"):
        e = np.array(errors[name])
        print(f"new version +300 Elo, {name:11}: mean error {e.mean():+7.1f} Elo, 95% interval covers the truth in "
              f"{100 * covered[name] / len(e):5.1f}% of {len(e)} leagues")


def ranks(leagues: int, games_per_pair: int) -> None:
    rng = np.random.default_rng(2)
    bots = 12
    held, shown, widths, brier, brier_leader = 0, 0, [], [], []
    for _ in range(leagues):
        strengths = rng.normal(0.0, 150.0, bots)
        pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)] * games_per_pair
        white, black, score = play(rng, strengths, pairs)
        fitted = fitting.fit_games(white, black, score, bots)
        chosen = [i for i, p in enumerate(fitted.players)
                  if p.status == fitting.RATED and p.margin <= RANKED_MARGIN]
        if len(chosen) < 2:
            continue
        places = rank_intervals([fitted.players[i].elo for i in chosen],
                                fitted.covariance[np.ix_(chosen, chosen)])
        true_order = np.argsort(-strengths[chosen], kind="stable")
        true_rank = np.empty(len(chosen), dtype=int)
        true_rank[true_order] = np.arange(1, len(chosen) + 1)
        for place, truth in zip(places, true_rank):
            shown += 1
            held += place.low <= truth <= place.high
            widths.append(place.high - place.low + 1)
            brier.append((place.p_first - float(truth == 1)) ** 2)
            brier_leader.append((float(place.rank == 1) - float(truth == 1)) ** 2)
    print(f"rank intervals ({games_per_pair} games a pair, 12 bots): true rank inside in {100 * held / shown:5.1f}% "
          f"of {shown} ranked bots; mean width {np.mean(widths):.2f} places; p_first Brier {np.mean(brier):.4f} "
          f"(the fitted leader as certain: {np.mean(brier_leader):.4f})")


def timing() -> None:
    rng = np.random.default_rng(3)
    for n in (100, 500):
        elo = rng.normal(1500.0, 200.0, n)
        noise = rng.normal(0.0, 1.0, (n, n))
        cov = 400.0 * np.eye(n) + 20.0 * (noise @ noise.T) / n  # correlated, positive definite
        start, cpu = time.perf_counter(), time.process_time()
        rank_intervals(elo, cov)
        # CPU time beside the wall clock: on a shared machine the wall clock mostly measures the others.
        print(f"rank_intervals for {n} ranked bots: {time.perf_counter() - start:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leagues", type=int, default=200)
    parser.add_argument("--games", type=int, default=40, help="games per pair in the rank leagues")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (2 leagues of 4 games a pair): that it runs, not its figures")
    args = parser.parse_args()
    if args.quick:
        args.leagues, args.games = 2, 4
    versions(args.leagues, games_per_pair=6)
    ranks(args.leagues, args.games)
    timing()


if __name__ == "__main__":
    main()
