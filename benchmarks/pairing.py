"""Games the ladder needs until every bot's 95% interval is within ±50 Elo: pairing by information
(``ratings.pairing``, the ladder's rule) against the earlier closest-live-Elo rule, on the same leagues.

    python3 benchmarks/pairing.py                  # 100 leagues
    python3 benchmarks/pairing.py --leagues 20 --refit-every 40

Each league is ``benchmarks/ratings.py``'s: 6 bots of distinct owners spread evenly over 450 Elo, a
first-player advantage of 60 Elo, Davidson draws. The ladder is simulated as ``workers.ladder`` runs it:
``--parallel`` matches in flight (each a colour-swapped pair of games, placement first, no version in two
matches), the live Elo updated game by game, and ``ratings.fit`` refitted every ``--refit-every`` games.
The information rule sees the latest fit (its margins narrowed for the games since, as the ladder does)
and the live Elo with ``PRIOR_MARGIN`` before a bot is fitted; the closest rule sees the live Elo and
games. A league is done at the first refit where every bot is rated with a margin of at most 50 Elo.
Both rules play a league from the same random seed. Target: information / closest ≤ 0.6.

Measured (100 leagues, one match in flight): information median 960 games; closest not there within 4,000
games in 96 of 100 leagues (ratio < 0.24). With 6 bots the closest rule keeps replaying the same
neighbouring pairs: their differences get pinned, the pool's positions hardly at all. Three matches in
flight (20 leagues): 830 games against none of 20 within 4,000.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ratings import fit as fitting  # noqa: E402  (after the path)
from ratings.elo import EloRules, updated  # noqa: E402
from ratings.pairing import PRIOR_MARGIN, RULES, Entrant, choose_pairings, met_key, narrowed  # noqa: E402

# benchmarks/ratings.py's league and simulator (loaded by path: its name is the ratings package's)
_spec = importlib.util.spec_from_file_location("ratings_bench", Path(__file__).with_name("ratings.py"))
league = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(league)

TARGET_MARGIN = 50.0
PLACEMENT_MATCHES = 3  # workers.conf.placement_games()' default


def games_to_target(rule: str, seed: int, refit_every: int, parallel: int, max_games: int) -> int | None:
    """Games played when every bot's margin first fits ±50 Elo at a refit, or None within ``max_games``."""
    rng = np.random.default_rng(seed)
    true, n, rules = league.TRUE, len(league.TRUE), EloRules()
    elo, played, placements = [rules.start] * n, [0] * n, [0] * n
    white, black, score = [], [], []
    fitted: fitting.Fit | None = None
    fitted_games = [0] * n
    met = Counter()
    while len(white) < max_games:
        pool = []
        for i in range(n):
            rating, margin = elo[i], PRIOR_MARGIN
            player = fitted.players[i] if fitted else None
            if player is not None and player.status == fitting.RATED:
                rating, margin = player.elo, narrowed(player.margin, played[i] - fitted_games[i])
            pool.append(Entrant(version_id=i, bot_id=i, owner_id=i, elo=rating, games=played[i],
                                placements=placements[i], margin=margin))
        pairs = choose_pairings(pool, parallel, set(), Counter(), owner_cap=n, placement_matches=PLACEMENT_MATCHES,
                                rule=rule, met=met)
        for a, b in pairs:
            met[met_key(a, b)] += 2
            placements[a.version_id] += 1
            placements[b.version_id] += 1
            games_white, games_black = np.array([a.version_id, b.version_id]), np.array([b.version_id, a.version_id])
            for w, bl, s in zip(games_white.tolist(), games_black.tolist(),
                                league.play(rng, true, league.ADVANTAGE, league.NU, games_white, games_black).tolist()):
                before_w, before_b = elo[w], elo[bl]
                elo[w] = updated(before_w, before_b, s, rules.k_for(played[w]))
                elo[bl] = updated(before_b, before_w, 1.0 - s, rules.k_for(played[bl]))
                played[w] += 1
                played[bl] += 1
                white.append(w)
                black.append(bl)
                score.append(s)
                if len(white) % refit_every == 0:
                    fitted = fitting.fit_games(white, black, score, n)
                    fitted_games = list(played)
                    if all(p.status == fitting.RATED and p.margin <= TARGET_MARGIN for p in fitted.players):
                        return len(white)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leagues", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--refit-every", type=int, default=20, help="games between two fits")
    parser.add_argument("--parallel", type=int, default=1, help="ladder matches in flight at once")
    parser.add_argument("--max-games", type=int, default=4000)
    args = parser.parse_args()
    if args.leagues < 1 or args.refit_every < 1 or args.parallel < 1:
        parser.error("need --leagues, --refit-every and --parallel >= 1")
    t0 = time.perf_counter()
    results = {rule: [games_to_target(rule, args.seed + k, args.refit_every, args.parallel, args.max_games)
                      for k in range(args.leagues)] for rule in RULES}
    seconds = time.perf_counter() - t0
    print(f"{args.leagues} leagues of {len(league.TRUE)} bots over {np.ptp(league.TRUE):.0f} Elo, advantage "
          f"{league.ADVANTAGE:.0f}, colour-swapped pairs, {args.parallel} match(es) in flight, refit every "
          f"{args.refit_every} games ({seconds:.1f} s)")
    medians = {}
    for rule, games in results.items():
        # a league not there within --max-games counts as longer than any that is
        medians[rule] = float(np.median([np.inf if g is None else g for g in games]))
        missed = sum(g is None for g in games)
        shown = f"{medians[rule]:.0f}" if np.isfinite(medians[rule]) else f"> {args.max_games}"
        print(f"  {rule:>11}: median {shown} games until every 95% margin <= ±{TARGET_MARGIN:.0f} Elo "
              f"({missed} of {len(games)} leagues not there within {args.max_games})")
    if np.isfinite(medians["closest"]):
        print(f"  information / closest = {medians['information'] / medians['closest']:.2f} (target <= 0.6)")
    else:
        print(f"  information / closest < {medians['information'] / args.max_games:.2f} (target <= 0.6)")

if __name__ == "__main__":
    main()
