"""What choosing whose turn it is costs a claim as the fair-share window fills with ended matches.

    python benchmarks/claim_cost.py [--ended 0,10000,100000,300000] [--times 30]

Starts a private cluster (its own PostgreSQL database on 127.0.0.1:5432 and its own Redis cache; no worker runs;
tests/workers/cluster.py), queues 20 matches of 4 owners, then fills the window step by step with ended matches
spread over its settled part (tests/workers/harness.py ``window``). At each step it prints the median milliseconds
of ``worker_time.claim_accounts``, side by side in one run:
  * as the workers run it: the window's settled part summed once every few seconds and kept in the cache
    (``SETTLED_REUSE_SECONDS``), each claim reading the queue, the running matches and the last minutes;
  * with that sum taken at every claim, as every claim did before: its cost grows with the window's matches.
A fleet of workers playing quick matches ends tens of thousands of matches an hour (the window's length).

Measured (this VM: 2 cores, 24 GiB, Python 3.11.7, PostgreSQL on loopback; median ms a claim):

    ended in the window              0    10,000   100,000   300,000
    kept for a few seconds         8.2       7.9      11.0       4.9
    summed at every claim         11.1      20.6      76.9     151.5

and in a run beside the test suite 8.1, 8.1 and 7.7 against 20.5, 112.3 and 206.1 from 10,000 on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "workers"))

from cluster import Cluster, services_missing  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ended", default="0,10000,100000,300000", help="ended matches in the window, step by step")
    parser.add_argument("--times", type=int, default=30, help="claims timed each way at each step")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (0 and 1,000 ended matches, 5 claims): that it runs, not its figures")
    args = parser.parse_args()
    steps = [0, 1000] if args.quick else [int(n) for n in args.ended.split(",")]
    times = 5 if args.quick else args.times
    missing = services_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    cluster = Cluster().start()
    try:
        cluster.env["CACHE_URL"] = f"redis://127.0.0.1:{cluster.redis_port}/1"  # as deployed: the workers' cache
        cluster.harness("seed", "--matches", "20")
        rows, filled = [], 0
        for target in steps:
            result = cluster.harness("window", "--matches", str(target - filled), "--times", str(times),
                                     timeout=1800)
            filled = target
            rows.append((target, result["kept"], result["every_claim"]))
    finally:
        cluster.stop()
    print("median ms a claim (claim_accounts), PostgreSQL")
    print(f"    {'ended in the window':24s}" + "".join(f"{n:>10,}" for n, _, _ in rows))
    print(f"    {'kept for a few seconds':24s}" + "".join(f"{kept:10.1f}" for _, kept, _ in rows))
    print(f"    {'summed at every claim':24s}" + "".join(f"{every:10.1f}" for _, _, every in rows))
    print(f"    {'ratio':24s}" + "".join(f"{kept / every:10.2f}" for _, kept, every in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
