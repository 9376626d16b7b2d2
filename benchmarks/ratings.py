"""Fitted ratings (``ratings.fit``) against the live Elo on simulated leagues, and the time of a large fit.

    python3 benchmarks/ratings.py                   # 400 leagues, then a fit of 1,000,000 synthetic games
    python3 benchmarks/ratings.py --leagues 200 --no-timing
    python3 benchmarks/ratings.py --database arena_bench_fit   # time the stored fit on PostgreSQL as well

Each league: 6 bots spread evenly over 450 Elo, a first-player advantage of 60 Elo, Davidson draws
(ν = 0.5: a fifth of the games between equals drawn), 2,000 games in colour-swapped pairs between random
opponents. Printed: the RMS error of each method to the true strengths (all centred on the pool average),
the fit's own reported standard error, and the share of true strengths (and of the true advantage) inside
the fit's 95% intervals. Targets: fitted RMS within the reported error, coverage 93-97%.

The timing fits 1,000,000 games shaped like ``benchmarks/api.py``'s data set (1,000 bots over the four
games, two colour-swapped games per match between random opponents), from arrays: aggregation and fit,
no database (target: 10 s). ``--database NAME`` builds that data set with ``benchmarks/api.py``'s loader
in a database of its own (once, a few minutes; reused after) and times ``fit_ratings()``, the stored fit
with its grouped read from PostgreSQL.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import fit as fitting  # noqa: E402  (after the path)
from ratings.elo import EloRules, updated  # noqa: E402

TRUE = np.linspace(-225.0, 225.0, 6)
ADVANTAGE, NU = 60.0, 0.5
WINNER = {1.0: "white", 0.5: "none", 0.0: "black"}


def simulate(rng, true, advantage, nu, pairs):
    """White, black, white's score of 2·pairs games: each pair one game each way, Davidson results."""
    n = len(true)
    first = rng.integers(0, n, pairs)
    second = (first + rng.integers(1, n, pairs)) % n
    white = np.column_stack([first, second]).ravel()  # played in this order: a pair's games back to back
    black = np.column_stack([second, first]).ravel()
    return white, black, play(rng, true, advantage, nu, white, black)


def play(rng, true, advantage, nu, white, black):
    """White's scores (1, 0.5, 0) of the games ``white[k]`` against ``black[k]``: Davidson results."""
    d = (true[white] - true[black] + advantage) / fitting.ELO_PER_UNIT / 2
    z = np.exp(d) + np.exp(-d) + nu
    u = rng.random(len(white))
    return np.where(u < np.exp(d) / z, 1.0, np.where(u < (np.exp(d) + nu) / z, 0.5, 0.0))


def live_elo(white, black, score, n, rules=EloRules()):
    """The live incremental Elo, game by game in the order played (``ratings.elo.updated``, own K each)."""
    elo, played = [rules.start] * n, [0] * n
    for w, b, s in zip(white.tolist(), black.tolist(), score.tolist()):
        before_w, before_b = elo[w], elo[b]
        elo[w] = updated(before_w, before_b, s, rules.k_for(played[w]))
        elo[b] = updated(before_b, before_w, 1.0 - s, rules.k_for(played[b]))
        played[w] += 1
        played[b] += 1
    return np.array(elo)


def leagues(count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = TRUE - TRUE.mean()
    fit_errors, live_errors, sigmas, inside, advantage_inside, advantages, draws = [], [], [], 0, 0, [], []
    t0 = time.perf_counter()
    for _ in range(count):
        white, black, score = simulate(rng, TRUE, ADVANTAGE, NU, 1000)
        result = fitting.fit_games(white, black, score, len(TRUE), average=0.0)
        elo = np.array([p.elo for p in result.players])
        margin = np.array([p.margin for p in result.players])
        fit_errors.append(elo - truth)
        sigmas.append(margin / fitting.Z95)
        inside += int((np.abs(elo - truth) <= margin).sum())
        advantage_inside += abs(result.advantage - ADVANTAGE) <= result.advantage_margin
        advantages.append(result.advantage)
        draws.append(float((score == 0.5).mean()))
        live = live_elo(white, black, score, len(TRUE))
        live_errors.append(live - live.mean() - truth)
    seconds = time.perf_counter() - t0
    rms = math.sqrt(np.mean(np.square(fit_errors)))
    reported = math.sqrt(np.mean(np.square(sigmas)))
    live_rms = math.sqrt(np.mean(np.square(live_errors)))
    coverage = inside / (count * len(TRUE))
    spread = 1.96 * math.sqrt(0.95 * 0.05 / (count * len(TRUE)))
    print(f"{count} leagues of {len(TRUE)} bots over {np.ptp(TRUE):.0f} Elo, advantage {ADVANTAGE:.0f}, "
          f"2,000 games each in colour-swapped pairs, {100 * np.mean(draws):.1f}% draws ({seconds:.1f} s)")
    print(f"  RMS error to the true strengths: fitted {rms:.1f} Elo, live Elo {live_rms:.1f} Elo "
          f"(live / fitted = {live_rms / rms:.1f})")
    print(f"  fit's own reported standard error (RMS): {reported:.1f} Elo  -> RMS / reported = {rms / reported:.2f} "
          f"(target about 1)")
    print(f"  true strengths inside the 95% intervals: {100 * coverage:.1f}% (target 93-97; sampling noise "
          f"+/- {100 * spread:.1f})")
    print(f"  first-player advantage: fitted mean {np.mean(advantages):.1f} Elo (true {ADVANTAGE:.0f}), "
          f"inside its 95% interval {100 * advantage_inside / count:.1f}%")



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
        # api.py's results: white, black, white, black, none equally likely
        outcome = rng.choice(np.array([1.0, 0.0, 1.0, 0.0, 0.5]), size=2 * count)
        data.append((np.r_[first, second], np.r_[second, first], outcome))
    t0 = time.perf_counter()
    notes = []
    for white, black, score in data:
        result = fitting.fit_games(white, black, score, per_game_bots)
        notes.append(sum(p.status == fitting.RATED for p in result.players))
    seconds = time.perf_counter() - t0
    print(f"fit of {sum(len(w) for w, _, _ in data):,} synthetic games ({bots} bots over {games_ids} games, "
          f"from arrays): {seconds:.1f} s (target 10 s); bots rated per game {notes}")


def database_timing(database: str, games: int, seed: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import api as api_bench  # benchmarks/api.py: its arguments, database and loader

    args = api_bench.parse_args(["--database", database, "--games", str(games), "--seed", str(seed)])
    api_bench.prepare_database(args)
    api_bench.setup_django(args)
    from tournaments.models import Game
    from tournaments.services.ratings import fit_ratings

    loaded = Game.objects.count()
    if loaded != args.games:
        if loaded:
            raise SystemExit(f"{database} holds {loaded} games, not {args.games}: drop it or use another name")
        print(f"loading {args.bots} bots and {args.games:,} games into {database} (benchmarks/api.py's loader) ...",
              flush=True)
        api_bench.load(args)
    t0 = time.perf_counter()
    fits = fit_ratings()
    seconds = time.perf_counter() - t0
    print(f"fit_ratings() over {sum(f.games for f in fits):,} stored games on PostgreSQL (grouped read, fit, "
          f"store): {seconds:.1f} s (target 10 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leagues", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", type=int, default=1_000_000, help="games of the timed fits")
    parser.add_argument("--no-timing", action="store_true", help="only the simulated leagues")
    parser.add_argument("--database", help="also time fit_ratings() on this PostgreSQL database (loopback)")
    args = parser.parse_args()
    if args.leagues < 1 or args.games < 2:
        parser.error("need --leagues >= 1 and --games >= 2")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    leagues(args.leagues, args.seed)
    if not args.no_timing:
        synthetic_timing(args.seed, args.games, 1000)
    if args.database:
        database_timing(args.database, args.games, args.seed)


if __name__ == "__main__":
    main()
