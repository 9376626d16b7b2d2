"""Fitted ratings (``ratings.fit``) on simulated leagues: their scale, their intervals' coverage, a young
pool, and the time of a large fit.

    python3 benchmarks/ratings.py                   # 200 leagues, then a fit of 1,000,000 synthetic games
    python3 benchmarks/ratings.py --leagues 400 --no-timing
    python3 benchmarks/ratings.py --quick           # the smallest run of every part
    python3 benchmarks/ratings.py --database arena_bench_fit   # time the stored fit on PostgreSQL as well

Results are simulated on the arena's one Elo scale: white's expected score is exactly
1 / (1 + 10^(-D/400)) (D the true difference plus the first-player advantage), draws counting half;
draws take a share ``c`` of the games between equals and fewer between unequal bots
(P(draw) = c · 2 min(E, 1 − E)). Printed:

1. Scale: leagues of 8 bots over 420 Elo, 4,000 games, with 0, about 20% and about 50% draws: the fit
   against Ordo's equations (each bot's expected score equals its actual), solved here by plain
   fixed-point iteration: the largest rating difference and the ratio of the spreads (target: 1.00, where
   the Davidson fit gave 1.27 with 20% draws and 1.99 with 50%).
2. Coverage (``--leagues``, at least 200 for the new version's figure): each league has 8 bots whose true
   strengths are normal around the average with a standard deviation of 200 Elo (``--spread``; the prior,
   ARENA_RATING_PRIOR_SD, is 250: see ratings/fit.py for why a little wider), an advantage of
   60 Elo, a draw share c drawn from 0-0.8, 800 games in colour-swapped pairs between random bots; after
   120 games one bot is replaced by a new version 300 Elo stronger (a new player from then on; the old
   one keeps its rating). Fitted after 8, 24, 60, 140, 250, 400 and 800 games; the share of true strengths
   (centred like the ratings on the fitted bots' average) inside the 95% intervals, by the games each
   bot had played (<10, 10-29, 30+), and the new version's. Target 93-97%.
3. A young pool: 24 games between 4 bots (strengths from the prior, advantage 60): the fitted
   first-player advantage, and the issue's case (a searching bot 23-1 against a random one).
4. Timing: a fit of 1,000,000 games shaped like ``benchmarks/api_latency.py``'s data set (1,000 bots over the four
   games, two colour-swapped games per match between random opponents), from arrays: aggregation and
   fit, no database (target: 10 s). ``--database NAME`` builds that data set with ``benchmarks/api_latency.py``'s
   loader in a database of its own (once, a few minutes; reused after) and times ``fit_ratings()``, the
   stored fit with its grouped read from PostgreSQL.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

# One BLAS thread: the fit's matrices are small (bots × bots), and on a loaded machine (the arena's worker
# shares its cores) BLAS threads waiting for each other made the 1,000,000-game fit 8 times slower.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402  (after the thread settings)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import fit as fitting  # noqa: E402  (after the path)

ADVANTAGE = 60.0
# benchmarks/pairing.py's league: 6 bots over 450 Elo, and ``play``'s draw share between equals (named NU
# for it: Davidson's ν = 0.5, which it used to pass, drew the same fifth of the games between equals).
TRUE = np.linspace(-225.0, 225.0, 6)
NU = 0.2
SPREAD = 200.0  # Elo, the standard deviation of the simulated strengths: a little narrower than the prior's
SNAPSHOTS = (8, 24, 60, 140, 250, 400, 800)  # games played when the league is fitted
NEW_VERSION_AT, NEW_VERSION_GAIN = 120, 300.0
BUCKETS = ("<10", "10-29", "30+")


def play(rng, true, advantage, draw_rate, white, black):
    """White's scores (1, 0.5, 0): expected score exactly logistic in the Elo difference, draws half."""
    expected = 1 / (1 + 10 ** (-(true[white] - true[black] + advantage) / 400))
    drawn = draw_rate * 2 * np.minimum(expected, 1 - expected)
    u = rng.random(len(white))
    return np.where(u < expected - drawn / 2, 1.0, np.where(u < expected + drawn / 2, 0.5, 0.0))


def pairs_between(rng, bots, pairs):
    """White and black of ``pairs`` colour-swapped pairs between random bots of ``bots``, back to back."""
    bots = np.asarray(bots)
    first = rng.integers(0, len(bots), pairs)
    second = (first + rng.integers(1, len(bots), pairs)) % len(bots)
    white = np.column_stack([bots[first], bots[second]]).ravel()
    black = np.column_stack([bots[second], bots[first]]).ravel()
    return white, black


def ordo(white, black, score, n, iterations=20000):
    """Ordo's equations by plain fixed-point iteration (advantage included): each bot's expected score
    equals its actual score; the pool averages 0. Elo."""
    ratings, advantage = np.zeros(n), 0.0
    actual = np.bincount(white, score, n) + np.bincount(black, 1 - score, n)
    games = np.bincount(white, None, n) + np.bincount(black, None, n)
    for _ in range(iterations):
        expected = 1 / (1 + 10 ** (-(ratings[white] - ratings[black] + advantage) / 400))
        mine = np.bincount(white, expected, n) + np.bincount(black, 1 - expected, n)
        step = 400 / math.log(10) * (actual - mine) / (games * 0.25)  # a Newton-like step per bot
        ratings += 0.5 * step
        ratings -= ratings.mean()
        advantage += 0.5 * 400 / math.log(10) * (score.sum() - expected.sum()) / (len(score) * 0.25)
        if np.abs(step).max() < 1e-7:
            break
    return ratings, advantage


def scale(seed: int) -> None:
    rng = np.random.default_rng(seed)
    true = np.linspace(-210.0, 210.0, 8)
    print("1. scale: 8 bots over 420 Elo, 4,000 games, the fit against Ordo's equations")
    for draw_rate in (0.0, 0.36, 0.9):
        white, black = pairs_between(rng, np.arange(8), 2000)
        score = play(rng, true, ADVANTAGE, draw_rate, white, black)
        result = fitting.fit_games(white, black, score, 8, average=0.0)
        elo = np.array([p.elo for p in result.players])
        plain, advantage = ordo(white, black, score, 8)
        unpulled = fitting.fit_games(white, black, score, 8, average=0.0, prior_sd=1e6, advantage_prior_sd=1e6)
        off = np.abs(np.array([p.elo for p in unpulled.players]) - plain).max()
        print(f"   {100 * np.mean(score == 0.5):4.1f}% draws: largest difference {off:.3f} Elo without the prior, "
              f"{np.abs(elo - plain).max():.2f} with it (its pull), "
              f"advantage {result.advantage:.1f} vs {advantage:.1f}, spread ratio fit/Ordo "
              f"{np.ptp(elo) / np.ptp(plain):.3f} (target 1.00), dispersion {result.dispersion:.2f}, "
              f"median margin {np.median([p.margin for p in result.players]):.1f} Elo")


def coverage(count: int, seed: int, spread: float = SPREAD) -> None:
    rng = np.random.default_rng(seed)
    inside = {bucket: [] for bucket in BUCKETS}
    new_inside = {bucket: [] for bucket in BUCKETS}
    pooled_inside = {bucket: [] for bucket in BUCKETS}  # the new version under the pool's prior, side by side
    new_end, new_games, advantage_inside, draws = [], [], [], []
    t0 = time.perf_counter()
    for _ in range(count):
        true = np.r_[rng.normal(0.0, spread, 8), 0.0]
        predecessor = int(rng.integers(0, 8))
        true[8] = true[predecessor] + NEW_VERSION_GAIN
        draw_rate = rng.uniform(0.0, 0.8)
        before = pairs_between(rng, np.arange(8), NEW_VERSION_AT // 2)
        active = [b for b in range(9) if b != predecessor]
        after = pairs_between(rng, active, (SNAPSHOTS[-1] - NEW_VERSION_AT) // 2)
        white, black = np.r_[before[0], after[0]], np.r_[before[1], after[1]]
        score = play(rng, true, ADVANTAGE, draw_rate, white, black)
        draws.append(np.mean(score == 0.5))
        chain = np.r_[np.full(8, -1), predecessor]  # bot 8 is a later version of the predecessor
        for played in SNAPSHOTS:
            result = fitting.fit_games(white[:played], black[:played], score[:played], 9, average=0.0,
                                       predecessor=chain)
            pooled = fitting.fit_games(white[:played], black[:played], score[:played], 9, average=0.0).players[8]
            rated = np.array([p.status == fitting.RATED for p in result.players])
            centred = true - true[rated].mean()
            for bot, p in enumerate(result.players):
                if p.status != fitting.RATED:
                    continue
                hit = abs(p.elo - centred[bot]) <= p.margin
                bucket = BUCKETS[0 if p.games < 10 else 1 if p.games < 30 else 2]
                inside[bucket].append(hit)
                if bot == 8:
                    new_inside[bucket].append(hit)
                    pooled_inside[bucket].append(abs(pooled.elo - centred[bot]) <= pooled.margin)
                    if played == SNAPSHOTS[-1]:
                        new_end.append(hit)
                        new_games.append(p.games)
            advantage_inside.append(abs(result.advantage - ADVANTAGE) <= result.advantage_margin)
    seconds = time.perf_counter() - t0
    print(f"2. coverage: {count} leagues of 8 bots (strengths ~ N(0, {spread:.0f}) Elo; the prior's sd "
          f"{fitting.prior_sds()[0]:.0f}, a new version's around its predecessor's {fitting.prior_sds()[2]:.0f}), "
          f"advantage "
          f"{ADVANTAGE:.0f}, {100 * np.mean(draws):.0f}% draws on average, fitted after {SNAPSHOTS} games, "
          f"a new version +{NEW_VERSION_GAIN:.0f} Elo after {NEW_VERSION_AT} ({seconds:.1f} s)")

    def line(label, hits):
        if not hits:  # a few leagues may leave a bucket empty
            return f"   {label}: no fitted bot (n=0)"
        share = np.mean(hits)
        noise = 1.96 * math.sqrt(0.95 * 0.05 / len(hits))
        return f"   {label}: {100 * share:.1f}% inside the 95% intervals (n={len(hits)}, noise +/- {100 * noise:.1f})"

    for bucket in BUCKETS:
        print(line(f"bots with {bucket:>5} games", inside[bucket]) + "  target 93-97")
    for bucket in BUCKETS:
        print(line(f"new version with {bucket:>5} games", new_inside[bucket]) + "  target 93-97")
    for bucket in BUCKETS:
        print(line(f"  the same, its prior around the pool, not its predecessor, {bucket:>5} games",
                   pooled_inside[bucket]))
    print(line(f"new version at the league's end (median {np.median(new_games):.0f} games)", new_end)
          + "  target 93-97")
    print(line("first-player advantage, every fit", advantage_inside))


def young_pool(count: int, seed: int, spread: float = SPREAD) -> None:
    rng = np.random.default_rng(seed)
    advantages, inside, spreads = [], [], []
    for _ in range(count):
        true = rng.normal(0.0, spread, 4)
        white, black = pairs_between(rng, np.arange(4), 12)
        score = play(rng, true, ADVANTAGE, rng.uniform(0.0, 0.8), white, black)
        result = fitting.fit_games(white, black, score, 4)
        advantages.append(result.advantage)
        inside.append(abs(result.advantage - ADVANTAGE) <= result.advantage_margin)
        spreads.append(max(p.margin for p in result.players if p.margin is not None))
    low, median, high = np.percentile(advantages, [5, 50, 95])
    print(f"3. young pool: {count} pools of 4 bots after 24 games (true advantage {ADVANTAGE:.0f}): fitted "
          f"advantage median {median:.0f}, 5-95% {low:.0f} to {high:.0f}, "
          f"largest |{np.abs(advantages).max():.0f}| Elo, "
          f"true one inside its interval {100 * np.mean(inside):.1f}%; widest rating margin {max(spreads):.0f} Elo")
    white, black = np.array([0, 1] * 12), np.array([1, 0] * 12)
    score = np.array([1.0, 0.0] * 11 + [1.0, 1.0])
    search, random = (result := fitting.fit_games(white, black, score, 2)).players
    print(f"   the issue's case, a searching bot 23-1 against a random one in 24 games: {search.elo:.0f} +/- "
          f"{search.margin:.0f} and {random.elo:.0f} +/- {random.margin:.0f}, advantage {result.advantage:.0f} "
          f"+/- {result.advantage_margin:.0f} Elo (the fit without a prior: 2806 +/- 747, 20 +/- 934, 554)")


def synthetic_timing(seed: int, games: int, bots: int) -> None:
    rng = np.random.default_rng(seed)
    games_ids = 4
    per_game_bots = bots // games_ids
    matches = games // 2
    per_game_matches = np.bincount(np.arange(matches) % games_ids, minlength=games_ids)
    data = []
    for count in per_game_matches:
        first = rng.integers(0, per_game_bots, count)
        second = (first + rng.integers(1, per_game_bots, count)) % per_game_bots
        # api_latency.py's results: white, black, white, black, none equally likely
        outcome = rng.choice(np.array([1.0, 0.0, 1.0, 0.0, 0.5]), size=2 * count)
        data.append((np.r_[first, second], np.r_[second, first], outcome))
    t0 = time.perf_counter()
    notes = []
    for white, black, score in data:
        result = fitting.fit_games(white, black, score, per_game_bots)
        notes.append(sum(p.status == fitting.RATED for p in result.players))
    seconds = time.perf_counter() - t0
    print(f"4. fit of {sum(len(w) for w, _, _ in data):,} synthetic games ({bots} bots over {games_ids} games, "
          f"from arrays): {seconds:.1f} s (target 10 s); bots rated per game {notes}")


def database_timing(database: str, games: int, seed: int, quick: bool = False) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import api_latency as api_bench  # benchmarks/api_latency.py: its arguments, database and loader

    sizes = ["--quick"] if quick else ["--games", str(games)]  # --quick: its smallest data set, loaded afresh
    args = api_bench.parse_args(["--database", database, *sizes, "--seed", str(seed)])
    api_bench.prepare_database(args)
    api_bench.setup_django(args)
    from tournaments.models import Game
    from tournaments.services.ratings import fit_ratings

    loaded = Game.objects.count()
    if loaded != args.games:
        if loaded:
            raise SystemExit(f"{database} holds {loaded} games, not {args.games}: drop it or use another name")
        print(f"loading {args.bots} bots and {args.games:,} games into {database} (api_latency.py's loader) ...",
              flush=True)
        api_bench.load(args)
    t0 = time.perf_counter()
    fits = fit_ratings()
    seconds = time.perf_counter() - t0
    print(f"fit_ratings() over {sum(f.games for f in fits):,} stored games on PostgreSQL (grouped read, fit, "
          f"store): {seconds:.1f} s (target 10 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leagues", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--spread", type=float, default=SPREAD,
                        help="standard deviation of the simulated strengths (Elo)")
    parser.add_argument("--games", type=int, default=1_000_000, help="games of the timed fits")
    parser.add_argument("--no-timing", action="store_true", help="only the simulated leagues")
    parser.add_argument("--database", help="also time fit_ratings() on this PostgreSQL database (loopback)")
    parser.add_argument("--quick", action="store_true", help="the smallest run (2 leagues, fits of 400 games): "
                        "that it runs, not its figures (tests/test_benchmarks.py)")
    args = parser.parse_args()
    if args.quick:
        args.leagues, args.games = 2, 400
    if args.leagues < 1 or args.games < 2:
        parser.error("need --leagues >= 1 and --games >= 2")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    scale(args.seed)
    coverage(args.leagues, args.seed, args.spread)
    young_pool(args.leagues if args.quick else max(args.leagues, 200), args.seed, args.spread)
    if not args.no_timing:
        synthetic_timing(args.seed, args.games, 1000)
    if args.database:
        database_timing(args.database, args.games, args.seed, args.quick)


if __name__ == "__main__":
    main()
