"""End-to-end throughput of the match workers, and queued → running latency, on Redis and the embedded broker.

    python benchmarks/throughput.py [--matches 60] [--rounds 3] [--latency-matches 40] [--wakeup-rounds 20]
                                    [--wakeups-only] [--side-by-side-only] [--think SECONDS]

Starts a private cluster on loopback (its own redis-server, its own PostgreSQL database on
127.0.0.1:5432, real Celery workers and beat; tests/workers/cluster.py), plays instant trusted bots
(tests/workers/instant_bot.py, two games per match, move:2000) and prints:
  * games per minute with one worker and with two (and the scaling ratio),
  * p50/p95 of created → claimed latency for matches sent one at a time to idle workers;
  * per kind of match (challenge, tournament, SPRT, ladder), p50/p95 of queued → running with one idle worker
    and no beat, so the only wake-up is the one its creation's event sends: on Redis + PostgreSQL, and on
    the embedded stack (the filesystem broker + SQLite, the quick start's).
  * side by side, in one run on the same bots and seeds: games per minute of the bare runner (the harness plays
    the queued matches' games through ``runner.match.play_game``, nothing stored) and of one real worker playing
    those very matches end to end, with instant trusted bots and with the same bots sandboxed; with ``--think``,
    the same again with bots that take that many seconds a move (what the service costs bots that think at all);
  * where a worker's time goes: milliseconds a match in each step of its path (claim, plan, the runner, live
    publishing on the game loop, the report, the reactions after its commit, the rest);
  * the CPU a match costs every process on the machine, with the bare runner and with that worker, and the
    ceiling it sets: one worker's share of the bare runner's games a minute, even if the service's work all ran
    beside the games, is at most cores x the bare runner's wall time a match / the worker's CPU a match.
Throughput is measured from the first claim to the last finish, so worker start-up is not counted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "workers"))

from cluster import Cluster, services_missing  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def games_per_minute(cluster: Cluster, first_id: int) -> tuple[float, int]:
    timing = cluster.harness("timings", str(first_id))
    rows = timing["rows"]
    span = max(f for _, _, f in rows) - min(s for _, s, _ in rows)
    return timing["games"] / (span / 60), timing["games"]


def deployed(cluster: Cluster) -> Cluster:
    """On Redis + PostgreSQL, as docker-compose.yml runs the arena: the shared Redis cache (live games, the pages'
    stamps) and persistent database connections."""
    if not cluster.embedded:
        cluster.env.update(CACHE_URL=f"redis://127.0.0.1:{cluster.redis_port}/1", DATABASE_CONN_MAX_AGE="60")
    return cluster


def run_phase(cluster: Cluster, workers: list[str], matches: int, seed: int,
              ids: list[int] | None = None) -> tuple[float, int]:
    """Games a minute of ``workers`` on ``matches`` new matches, or on the queued ``ids`` (their creation's wake-ups
    wait in Redis for the first worker)."""
    for name in workers:
        cluster.start_worker(name)
    time.sleep(3)  # let the workers connect before the backlog appears
    if ids is None:
        ids = cluster.harness("seed", "--matches", str(matches), "--seed", str(seed))["matches"]
    cluster.wait_until_done(timeout=1800, poll=1)
    result = games_per_minute(cluster, ids[0])
    for name in workers:
        cluster.stop_worker(name)
    return result


def side_by_side(trusted: bool, matches: int, rounds: int, think: float = 0.0) -> list[tuple]:
    """Per round, (bare runner games a minute, one worker's end to end, games, the bots' ms a move as the bare
    runner timed them) on the same seeded matches of bots taking ``think`` seconds a move: the bare runner, then
    the worker, on each round's new matches (rounds take turns, so that a slower moment of the machine falls on
    both)."""
    cluster = deployed(Cluster(ARENA_SANDBOX_TRUSTED="1" if trusted else "0")).start()
    figures = []
    try:
        for _ in range(rounds):
            ids = cluster.harness("seed", "--matches", str(matches), "--delay", str(think))["matches"]
            bare = cluster.harness("bare", str(ids[0]), "--matches", str(matches), timeout=1800)
            end_to_end, games = run_phase(cluster, ["s1"], 0, seed=0, ids=ids)
            figures.append((bare["games"] / bare["seconds"] * 60, end_to_end, games, bare["ms_a_move"]))
    finally:
        cluster.stop()
    return figures


def breakdown(matches: int) -> tuple[dict, dict]:
    """Where one worker's time goes, per match: ``matches`` new matches of instant trusted bots played by the bare
    runner, then as a worker plays them (``play_while_work``, in the harness's process), each step of the path
    timed. Both answers carry the CPU every process on the machine spent meanwhile."""
    cluster = deployed(Cluster(ARENA_SANDBOX_TRUSTED="1")).start()
    try:
        ids = cluster.harness("seed", "--matches", str(matches))["matches"]
        bare = cluster.harness("bare", str(ids[0]), "--matches", str(matches), timeout=1800)
        return bare, cluster.harness("in-process", "--breakdown", timeout=1800)
    finally:
        cluster.stop()


def print_breakdown(bare: dict, result: dict) -> None:
    steps = result["ms_per_match"]
    total = sum(steps.values())
    print(f"where one worker's time goes, instant trusted bots, {result['games']} games in-process "
          f"({result['games'] / result['seconds'] * 60:.0f} games a minute): ms a match")
    for step, ms in sorted(steps.items(), key=lambda item: -item[1]):
        print(f"    {step:34s} {ms:6.2f}  {ms / total:4.0%}")
    print_cpu(bare, result)


def print_cpu(bare: dict, worker: dict) -> None:
    """The CPU a match costs the whole machine (bots, referee, service, PostgreSQL, Redis), and what it implies: on
    ``cores`` cores one worker cannot play a match in less wall time than its CPU over the cores, however well the
    service's work overlapped the games, so its games a minute are at most cores x bare wall / worker CPU of the
    bare runner's."""
    cores = os.cpu_count() or 1
    wall, cpu = {}, {}  # ms a match
    for name, run in (("bare runner", bare), ("one worker, in-process", worker)):
        wall[name], cpu[name] = (1000 * run[field] / run["matches"] for field in ("seconds", "cpu_seconds"))
        print(f"CPU a match, every process on the machine, {name:22s}: {cpu[name]:5.1f} ms over {wall[name]:5.1f} ms "
              f"of wall ({cpu[name] / wall[name]:.2f} cores busy)")
    bare_wall, worker_wall = wall["bare runner"], wall["one worker, in-process"]
    worker_cpu = cpu["one worker, in-process"]
    print(f"    the service's own CPU a match: {worker_cpu - cpu['bare runner']:.1f} ms; so on {cores} cores one "
          f"worker is at most {min(1.0, cores * bare_wall / worker_cpu):4.0%} of the bare runner even if all of it "
          f"ran beside the games (one after the other, as now: {bare_wall / worker_wall:4.0%})")


KINDS = ("challenge", "tournament", "sprt", "ladder")


def wakeup_latencies(embedded: bool, rounds: int) -> dict[str, list[float]]:
    """Queued → running seconds per kind, one match at a time to one idle worker, beat not running."""
    cluster = deployed(Cluster(embedded=embedded, ARENA_LADDER_QUEUED_PER_GAME="1")).start()
    try:
        cluster.start_worker("idle")
        time.sleep(4)  # connected and waiting
        result = cluster.harness("wakeups", "--kinds", ",".join(KINDS), "--matches", str(rounds),
                                 "--interval", "0.5", timeout=60 + 30 * rounds)
    except AssertionError:  # a match not started: what the worker was doing meanwhile
        print(cluster.log_text()[-8000:], file=sys.stderr)
        raise
    finally:
        cluster.stop()
    return result["latencies"]


def print_wakeups(broker: str, latencies: dict[str, list[float]]) -> None:
    for kind in KINDS:
        values = [seconds * 1000 for seconds in latencies[kind]]
        print(f"queued -> running, {broker:21s} {kind:10s}: p50 {statistics.median(values):4.0f} ms, "
              f"p95 {percentile(values, 0.95):4.0f} ms, max {max(values):4.0f} ms  ({len(values)} matches)")


def load() -> str:
    """The 1, 5 and 15 minute load averages: other work on the machine slows the bots and the service alike."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=60, help="matches per throughput phase")
    parser.add_argument("--rounds", type=int, default=3, help="side-by-side rounds (bare runner, then worker)")
    parser.add_argument("--latency-matches", type=int, default=40)
    parser.add_argument("--wakeup-rounds", type=int, default=20, help="matches of each kind per broker")
    parser.add_argument("--wakeups-only", action="store_true", help="only the per-kind latencies")
    parser.add_argument("--side-by-side-only", action="store_true", help="only the bare runner against one worker")
    parser.add_argument("--think", type=float, default=0.0,
                        help="also side by side with sandboxed bots that take this many seconds a move")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (4 matches a phase, 3 for the latency, 2 wake-up rounds): that it runs")
    args = parser.parse_args()
    if args.quick:
        args.matches, args.latency_matches, args.wakeup_rounds, args.rounds = 4, 3, 2, 1
    missing = services_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} cores; load average at the start: {load()}")
    kinds = [(True, 0.0, "instant trusted bots"), (False, 0.0, "instant sandboxed bots")]
    if args.think:
        kinds.append((False, args.think, f"sandboxed, {args.think * 1000:g} ms a move"))
    for trusted, think, bots in kinds:
        figures = side_by_side(trusted, args.matches, args.rounds, think)
        for bare, end_to_end, games, ms_a_move in figures:
            print(f"games per minute, {bots:22s}: bare runner {bare:7.1f}, one worker end to end {end_to_end:7.1f} "
                  f"= {end_to_end / bare:4.0%}  ({games} games, Redis + PostgreSQL; the bots thought "
                  f"{ms_a_move:.1f} ms a move)")
        ratio = statistics.median(end_to_end / bare for bare, end_to_end, *_ in figures)
        print(f"    one worker / bare runner, {bots}: median of {len(figures)} rounds {ratio:4.0%}")
    print_breakdown(*breakdown(args.matches))
    print(f"load average: {load()}")
    if args.side_by_side_only:
        return 0
    print_wakeups("embedded (filesystem)", wakeup_latencies(True, args.wakeup_rounds))
    print_wakeups("Redis", wakeup_latencies(False, args.wakeup_rounds))
    print(f"load average: {load()}")
    if args.wakeups_only:
        return 0
    cluster = deployed(Cluster()).start()
    try:
        cluster.start_beat()
        one, games_one = run_phase(cluster, ["b1"], args.matches, seed=1)
        two, games_two = run_phase(cluster, ["b1", "b2"], args.matches, seed=2)
        cluster.start_worker("b1")
        cluster.start_worker("b2")
        time.sleep(3)
        ids = cluster.harness("trickle", "--matches", str(args.latency_matches), "--interval", "0.5",
                              timeout=600)["matches"]
        cluster.wait_until_done(timeout=600, poll=1)
        rows = cluster.harness("timings", str(ids[0]))["rows"]
        latencies = [(started - created) * 1000 for created, started, _ in rows]
    finally:
        cluster.stop()
    print(f"games per minute, 1 worker : {one:7.1f}  ({games_one} games)")
    print(f"games per minute, 2 workers: {two:7.1f}  ({games_two} games)")
    print(f"scaling ratio 2/1          : {two / one:7.2f}  (on {os.cpu_count()} cores)")
    print(f"queued -> running latency  : p50 {statistics.median(latencies):.0f} ms, "
          f"p95 {percentile(latencies, 0.95):.0f} ms  ({len(latencies)} matches, Redis, idle workers)")
    print(f"load average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
