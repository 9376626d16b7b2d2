"""How fresh the fitted leaderboard is: from a rated match's finish to a stored fit that includes it.

    python benchmarks/fresh_ratings.py [--matches 20] [--interval 1.0]

Starts a private cluster on loopback (tests/workers/cluster.py: its own redis-server and PostgreSQL database,
two real Celery workers sharing a Redis cache, no beat; the beat's refit period is an hour anyway, so only the
refit sent after each rated match can count), trickles rated matches between instant trusted bots and prints p50 / max
of finished → fitted (target: within 10 s) and how many fits were stored for how many matches (the coalescing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "workers"))

from cluster import Cluster, services_missing  # noqa: E402

FIT = "SELECT extract(epoch FROM fitted_at), games FROM ratings_ratingfit WHERE game = 'tafl9'"
FINISHED = ("SELECT extract(epoch FROM finished_at), games_per_match FROM tournaments_match "
            "WHERE status = 'finished' AND rated ORDER BY finished_at")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between two new matches")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (2 matches): that it runs, not its figures")
    args = parser.parse_args()
    if args.quick:
        args.matches, args.interval = 2, 0.5
    missing = services_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    cluster = Cluster(ARENA_RATING_FIT_SECONDS="3600")
    # The shared cache, as docker-compose.yml sets it: the coalescing marker is then one for every process.
    cluster.env["CACHE_URL"] = f"redis://127.0.0.1:{cluster.redis_port}/1"
    cluster.start()
    fits: dict[float, int] = {}  # each stored fit seen: fitted_at -> games it read
    try:
        cluster.start_worker("f1")
        cluster.start_worker("f2")
        cluster.harness("seed", "--matches", "0")
        time.sleep(3)  # let the workers connect
        trickle = cluster.harness_in_background("trickle", "--matches", str(args.matches),
                                                "--interval", str(args.interval))
        settled_at = None
        while settled_at is None or time.monotonic() < settled_at + 12:  # 12 s after the last finish: any refit
            for fitted_at, games in cluster.sql(FIT):
                fits[float(fitted_at)] = games
            if settled_at is None and trickle.poll() is not None:
                if not cluster.sql("SELECT 1 FROM tournaments_match WHERE status IN ('queued', 'running')"):
                    settled_at = time.monotonic()
            time.sleep(0.05)
        finished = [(float(at), games) for at, games in cluster.sql(FINISHED)]
    finally:
        cluster.stop()
    latencies, total = [], 0
    for at, games in finished:
        total += games
        fitted = [fitted_at for fitted_at, read in fits.items() if fitted_at >= at and read >= total]
        latencies.append(min(fitted) - at if fitted else float("inf"))
    print(f"rated matches finished      : {len(finished)} (one every {args.interval} s offered)")
    print(f"fits stored                 : {len(fits)}")
    print(f"finished -> fitted, p50     : {statistics.median(latencies):.2f} s")
    print(f"finished -> fitted, max     : {max(latencies):.2f} s  (target: 10 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
