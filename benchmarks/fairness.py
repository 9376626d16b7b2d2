"""Contention: how the workers' time is shared when one owner asks for far more than the rest.

    python benchmarks/fairness.py [--workers 2] [--seconds 120] [--delay 0.05] [--light-interval 12]

Starts a private cluster on loopback (its own redis-server, its own PostgreSQL database, real Celery workers
and beat refilling the ladder every second; tests/workers/cluster.py) with instant trusted bots
(tests/workers/instant_bot.py, ``--delay`` seconds a move, two games a match). The load
(tests/workers/harness.py ``contend``): a ranked ladder of 12 bots of 12 owners; a hog with an unrated
round robin of its own 8 bots (56 matches) and 60 challenges standing for its SPRT tests' open matches;
two steady owners with 60 challenges each; and a light owner who sends one challenge every 12 seconds.
After a warm-up it measures, over the matches finished in ``--seconds``:
  * the ladder's share of the worker time (target: within 10% of ARENA_LADDER_SHARE, 0.5),
  * each backlogged owner's share against a fair share, an equal part of what the owners used less the
    light owner's (target: each within 20% of it),
  * p50/p95 of the light owner's challenges' wait, created -> started (target: p95 at most one match's
    length, the mean printed beside it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "workers"))

from cluster import Cluster, services_missing  # noqa: E402

WARM_UP_S = 20  # the workers connect and the ladder fills before the measure starts
LADDER = {
    "ARENA_SCHEDULE_SECONDS": "1",  # beat tops the ladder up every second
    "ARENA_LADDER_QUEUED_PER_GAME": "12",
    "ARENA_LADDER_QUEUED_PER_WORKER": "3",
    "ARENA_LADDER_SHARE": "0.5",
}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the shares are measured")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per move of the instant bots")
    parser.add_argument("--light-interval", type=float, default=12.0, help="seconds between the light owner's "
                        "challenges: below a fair share of the workers")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (10 s measured after 5 s of warm-up): that it runs, not its figures")
    args = parser.parse_args()
    warm_up = WARM_UP_S
    if args.quick:
        args.seconds, args.light_interval, warm_up = 10.0, 5.0, 5.0
    missing = services_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    cluster = Cluster(**LADDER).start()
    try:
        seeded = cluster.harness("contend", "--bots", "12", "--matches", "60", "--delay", str(args.delay))
        for number in range(1, args.workers + 1):
            cluster.start_worker(f"f{number}")
        cluster.start_beat()
        time.sleep(warm_up)
        since = time.time()
        count = int(args.seconds // args.light_interval)
        light = cluster.harness("light", "--matches", str(count), "--interval", str(args.light_interval),
                                timeout=args.seconds + 120)
        time.sleep(max(0.0, since + args.seconds - time.time()))
        measured = cluster.harness("shares", "--since", str(since), "--ids", json.dumps(light))
        backlog = cluster.harness("status")["statuses"].get("queued", 0)
    finally:
        cluster.stop()
    owners = {str(pk): name for name, pk in seeded["owners"].items()}
    used = measured["used"]
    total = sum(used.values())
    owners_total = total - used.get("ladder", 0.0)
    light_used = used.get(str(seeded["owners"]["light"]), 0.0)
    backlogged = [pk for pk, name in owners.items() if name != "light"]
    fair = (owners_total - light_used) / len(backlogged)
    print(f"{args.workers} workers, {args.seconds:.0f} s measured, {total:.0f} worker-seconds used, "
          f"{backlog} matches still queued at the end")
    print(f"ladder share of worker time : {used.get('ladder', 0.0) / total:6.3f}  (guaranteed 0.5)")
    for pk in backlogged:
        mine = used.get(pk, 0.0)
        print(f"{owners[pk]:<8} share           : {mine / total:6.3f}  fair {fair / total:6.3f}  "
              f"ratio {mine / fair:5.2f}")
    print(f"light    share           : {light_used / total:6.3f}  (asks for little: all of it served)")
    waits = measured["waits"]
    if waits:
        print(f"light challenge wait     : p50 {statistics.median(waits):5.2f} s, p95 {percentile(waits, 0.95):5.2f} s "
              f"({len(waits)} challenges, {measured['unstarted']} not started); "
              f"mean match {measured['mean_match_s']:.2f} s")
    else:
        print("light challenge wait     : none started")
    return 0


if __name__ == "__main__":
    sys.exit(main())
